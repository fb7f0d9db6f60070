//! The message metadata of 0.23.4 and later (`ResponsesStreamState.messages`,
//! `updateMessage` and `textPart`, Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts):
//! one `{id, phase?}` object per output index, created by the first
//! `output_item.added` / `output_item.done` of a message item, the first
//! text delta with an `item_id`, or `response.completed` /
//! `response.incomplete`'s `output`, and given a `phase` (`commentary` or
//! `final_answer`) by any later one of them. Every text part of the index
//! holds that same object as `responsesMessage`, so a phase set later shows
//! on the parts already yielded too: each message has a serial number the
//! JS layer shares one object by (`lib/wire.js`).

use std::collections::HashMap;
use std::rc::Rc;

use super::js_read::{is_str, json, truthy};
use super::output_index::OutputIndex;
use crate::foundations::json::Value;
use crate::model::gemini::PartMessage;

/// One message's metadata.
#[derive(Clone, Debug)]
struct Message {
    serial: u32,
    /// `id` as JSON text; `None`: the key holds `undefined`.
    id: Option<String>,
    phase: Option<&'static str>,
    /// The object as `JSON.stringify` shows it now, made when `id` or
    /// `phase` is set: every text part of the message shares it rather
    /// than writing its own.
    json: Rc<str>,
}

impl Message {
    fn new(serial: u32, id: Option<String>) -> Message {
        let mut message = Message {
            serial,
            id,
            phase: None,
            json: Rc::from(""),
        };
        message.json = message.render();
        message
    }

    /// The object as `JSON.stringify` shows it now.
    fn snapshot(&self) -> PartMessage {
        PartMessage {
            serial: self.serial,
            json: Rc::clone(&self.json),
        }
    }

    fn render(&self) -> Rc<str> {
        let mut out = String::from("{");
        if let Some(id) = &self.id {
            out.push_str("\"id\":");
            out.push_str(id);
        }
        if let Some(phase) = self.phase {
            if self.id.is_some() {
                out.push(',');
            }
            out.push_str("\"phase\":\"");
            out.push_str(phase);
            out.push('"');
        }
        out.push('}');
        Rc::from(out)
    }
}

/// The messages by output index, and what changed since the JS layer was
/// last told.
#[derive(Default)]
pub(super) struct Messages {
    by_index: HashMap<OutputIndex, Message>,
    /// The index [`Messages::text_part`] found last and its message as it
    /// was then (the deltas of a message come in a run); cleared by every
    /// update, which may change it.
    last: Option<(OutputIndex, PartMessage)>,
    serials: u32,
    /// Messages whose metadata changed since [`Messages::take_changed`].
    changed: Vec<u32>,
}

impl Messages {
    /// `updateMessage(index, item)`.
    pub(super) fn update(&mut self, index: OutputIndex, item: &Value<'_>) {
        self.last = None;
        let serials = &mut self.serials;
        let message = self.by_index.entry(index).or_insert_with(|| {
            *serials += 1;
            Message::new(*serials, json(item.get("id")))
        });
        let phase = item.get("phase");
        let new_phase = if is_str(phase, "commentary") {
            Some("commentary")
        } else if is_str(phase, "final_answer") {
            Some("final_answer")
        } else {
            None
        };
        let created = message.serial == self.serials && !self.changed.contains(&message.serial);
        if new_phase.is_some() && new_phase != message.phase {
            message.phase = new_phase;
            message.json = message.render();
            if !self.changed.contains(&message.serial) {
                self.changed.push(message.serial);
            }
        } else if created {
            self.changed.push(message.serial);
        }
    }

    /// The message `textPart(data)` attaches to its part, from the data's
    /// `output_index` and `item_id`, creating it from `item_id` when the
    /// index has none.
    pub(super) fn text_part(
        &mut self,
        output_index: Option<&Value<'_>>,
        item_id: Option<&Value<'_>>,
    ) -> Option<PartMessage> {
        let key = OutputIndex::of(Some(output_index?));
        if let Some((last, message)) = &self.last {
            if *last == key {
                return Some(message.clone());
            }
        }
        // One lookup for the common case, a delta of a message already there.
        if let Some(message) = self.by_index.get(&key) {
            let snapshot = message.snapshot();
            self.last = Some((key, snapshot.clone()));
            return Some(snapshot);
        }
        if !truthy(item_id) {
            return None;
        }
        self.serials += 1;
        self.changed.push(self.serials);
        let message = Message::new(self.serials, json(item_id));
        let snapshot = message.snapshot();
        self.by_index.insert(key, message);
        Some(snapshot)
    }

    /// The metadata of every message that changed since the last call, as
    /// `(serial, object)`, in the order they first changed.
    pub(super) fn take_changed(&mut self) -> Vec<PartMessage> {
        let changed = std::mem::take(&mut self.changed);
        changed
            .into_iter()
            .filter_map(|serial| {
                self.by_index
                    .values()
                    .find(|m| m.serial == serial)
                    .map(Message::snapshot)
            })
            .collect()
    }
}
