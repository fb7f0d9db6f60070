//! How the provider seam (`crate::convert::provider`) drives an Anthropic
//! stream: each call of [`StreamConverter`] is one of [`AnthropicStream`]'s
//! own.

use crate::convert::anthropic::AnthropicStream;
use crate::convert::object_path::ObjectPath;
use crate::convert::provider::StreamConverter;
use crate::foundations::error::Error;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::gemini::Response;

impl StreamConverter for AnthropicStream {
    fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        AnthropicStream::push_bytes(self, bytes, out)
    }

    fn push_object_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_event_text(text, out)
    }

    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        AnthropicStream::end(self, out)
    }

    fn upstream_failed(&mut self, retryable: bool, out: &mut Vec<Response>) -> Result<(), Error> {
        AnthropicStream::upstream_failed(self, retryable, out)
    }

    fn argument_progress(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        AnthropicStream::argument_progress_with_held(self, held)
    }

    fn finished(&self) -> bool {
        AnthropicStream::is_finished(self)
    }

    fn object_path(&mut self) -> Option<&mut dyn ObjectPath> {
        Some(self)
    }
}
