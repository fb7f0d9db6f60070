//! The header of the chunks the JS object path (`lib/object-path.js`) builds
//! for text and thinking deltas, which native sends it whenever it changes
//! (`AnthropicStream::take_event_header`), so that the JS layer never takes
//! a header from a response it was handed.

use std::rc::Rc;

use super::key_order::KEY_ORDER;
use crate::wire::key::open_item;
use crate::wire::{header_id, write_header};

/// The event-header item's key (`lib/generated/wire-constants.js`
/// `KEY_EVENT_HEADER`).
pub const ITEM_KEY: &str = "e";

/// The `f` of the header the JS object path builds its responses with.
const HEADER_ID: u8 = header_id(&KEY_ORDER);

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

/// `{"e": {f, responseId?, modelVersion?}}`: the event-header item, first
/// in a batch. No `createTime`, which the JS layer reads from its clock for
/// each chunk it builds, as the chunk's own conversion would.
#[cold]
pub fn write_event_header_item(h: &EventHeader, out: &mut String) {
    open_item(out, ITEM_KEY);
    write_header(
        HEADER_ID,
        None,
        h.response_id.as_deref(),
        h.model_version.as_deref(),
        out,
    );
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_header_item_has_no_create_time() {
        let item = |id: Option<&str>, model: Option<&str>| {
            let mut out = String::new();
            write_event_header_item(
                &EventHeader {
                    response_id: id.map(Rc::from),
                    model_version: model.map(Rc::from),
                },
                &mut out,
            );
            out
        };
        assert_eq!(
            item(Some("\"msg\""), Some("\"m\"")),
            r#"{"e":{"f":0,"responseId":"msg","modelVersion":"m"}}"#
        );
        assert_eq!(item(None, None), r#"{"e":{"f":0}}"#);
    }
}
