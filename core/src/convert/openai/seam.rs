//! How the provider seam (`crate::convert::provider`) drives an
//! OpenAI-compatible stream: each call of [`StreamConverter`] is one of
//! [`OpenAIStream`]'s own.

use crate::convert::object_path::ObjectPath;
use crate::convert::openai::OpenAIStream;
use crate::convert::provider::StreamConverter;
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

    fn argument_progress(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        OpenAIStream::argument_progress_with_held(self, held)
    }

    fn finished(&self) -> bool {
        OpenAIStream::is_finished(self)
    }

    fn object_path(&mut self) -> Option<&mut dyn ObjectPath> {
        Some(self)
    }
}
