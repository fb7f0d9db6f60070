//! How the provider seam (`crate::convert::provider`) drives an
//! OpenAI-compatible stream: each call of [`StreamConverter`] is one of
//! [`OpenAIStream`]'s own.

use std::any::Any;

use crate::convert::openai::OpenAIStream;
use crate::convert::provider::{ObjectPathHeader, StreamConverter};
use crate::convert::state::State;
use crate::foundations::error::Error;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::gemini::Response;

impl StreamConverter for OpenAIStream {
    fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIStream::push_bytes(self, bytes, out)
    }

    /// A chunk given on its own gives exactly one response.
    fn push_object_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        out.push(self.push_chunk_text(text)?);
        Ok(())
    }

    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIStream::end(self, out)
    }

    fn upstream_failed(&mut self, _retryable: bool, _out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIStream::upstream_failed(self);
        Ok(())
    }

    fn wire_state(&mut self, _yielded: &[Response]) -> State {
        OpenAIStream::wire_state(self)
    }

    fn take_object_path_header(&mut self) -> Option<ObjectPathHeader> {
        OpenAIStream::take_chunk_header(self).map(ObjectPathHeader::Chunk)
    }

    fn argument_progress(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        OpenAIStream::argument_progress_with_held(self, held)
    }

    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
}
