//! The header of the chunks the JS object path (`lib/object-path.js`) builds
//! for text and thinking deltas, which native sends it whenever it changes
//! (`AnthropicStream::take_event_header`), so that the JS layer never takes
//! a header from a response it was handed.

use std::rc::Rc;

/// The header of the chunk a text or thinking delta converts to while the
/// state word's `header` is on: the current message's id and model, as
/// `buildGeminiChunk` puts them on every chunk (Qwen Code
/// packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts).
/// The wire sends it whenever it changes (`crate::wire`, the event-header
/// item), so the JS layer never takes it from a response it was handed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventHeader {
    /// `responseId`: the message's `id` as JSON text (`None`: absent).
    pub response_id: Option<Rc<str>>,
    /// `modelVersion`: the message's `model` as JSON text (`None`: absent).
    pub model_version: Option<Rc<str>>,
}
