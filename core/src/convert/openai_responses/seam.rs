//! How the provider seam (`crate::convert::provider`) drives a Responses
//! stream: each call of [`StreamConverter`] is one of
//! [`OpenAIResponsesStream`]'s own.

use super::OpenAIResponsesStream;
use crate::convert::object_path::ObjectPath;
use crate::convert::provider::StreamConverter;
use crate::foundations::error::Error;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::gemini::Response;

impl StreamConverter for OpenAIResponsesStream {
    fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIResponsesStream::push_bytes(self, bytes, out)
    }

    fn push_object_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_event_text(text, out)
    }

    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIResponsesStream::end(self, out)
    }

    fn upstream_failed(&mut self, _retryable: bool, _out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIResponsesStream::upstream_failed(self);
        Ok(())
    }

    fn argument_progress(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        self.argument_progress_with_held(held)
    }

    fn finished(&self) -> bool {
        self.is_finished()
    }

    /// Only for its message metadata (`message_item.rs`).
    fn object_path(&mut self) -> Option<&mut dyn ObjectPath> {
        Some(self)
    }
}
