//! The message metadata the JS layer shares between parts: Qwen's text
//! parts of one output index hold the same `responsesMessage` object, and
//! `updateMessage` adds a `phase` to it later, after those parts were
//! yielded (`output_item.done`, `response.completed`). Each batch opens with
//! the messages created or changed by the call, `{"m": [[serial, object],
//! …]}`, and a response's item lists which of its parts hold which message
//! (`"n"`, `crate::wire`); `lib/wire.js` keeps one object per serial and
//! updates it in place, so what a consumer that keeps the responses sees is
//! what Qwen's sees. This is the stream's only use of the object-path
//! capability (`crate::convert::object_path`): it takes no SDK objects.

use super::OpenAIResponsesStream;
use crate::convert::object_path::ObjectPath;
use crate::convert::state::StateWord;
use crate::model::gemini::Response;
use crate::wire::key::open_item;

/// The messages item's key.
pub const ITEM_KEY: &str = "m";

impl ObjectPath for OpenAIResponsesStream {
    /// Only whether the stream is finished.
    fn state_word(&mut self, _yielded: &[Response]) -> StateWord {
        StateWord::of(self.is_finished())
    }

    fn write_header_item(&mut self, out: &mut String) -> bool {
        let changed = self.messages.take_changed();
        if changed.is_empty() {
            return false;
        }
        open_item(out, ITEM_KEY);
        out.push('[');
        for (i, m) in changed.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('[');
            out.push_str(&m.serial.to_string());
            out.push(',');
            out.push_str(&m.json);
            out.push(']');
        }
        out.push_str("]}");
        true
    }
}
