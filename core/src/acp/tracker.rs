//! `ToolCallPreparationTracker` (docs/behaviour.md §5.3): one per model stream, i.e. one
//! `sendMessageStream` call, which may span several attempts. It remembers
//! which preparations got a card, which were suppressed, and which were
//! resolved by their complete `functionCall`, so the stream loop can discard
//! exactly the right cards on retry, fallback, cancel, error or normal end
//! (docs/behaviour.md §5.5 table).

use std::collections::HashSet;

use serde_json::Value;

use super::{invalid, Result, SessionUpdate, ToolCallCards};

/// One preparation of a response chunk (docs/behaviour.md §5.1), with the card title and
/// kind the caller resolved for its tool (`describe()` runs in JS).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preparation {
    pub call_id: String,
    pub tool_name: String,
    pub title: Option<String>,
    pub kind: Option<String>,
}

impl Preparation {
    pub fn new(call_id: impl Into<String>, tool_name: impl Into<String>) -> Self {
        Preparation {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            title: None,
            kind: None,
        }
    }

    /// Parses `[{callId, toolName, title?, kind?}, …]` (JSON text from JS).
    pub fn list_from_json(json: &str) -> Result<Vec<Preparation>> {
        let items = match super::parse_json(json, "observe")? {
            Value::Array(items) => items,
            _ => return Err(invalid("observe: preparations must be an array")),
        };
        items.iter().map(Preparation::from_value).collect()
    }

    fn from_value(item: &Value) -> Result<Preparation> {
        if !item.is_object() {
            return Err(invalid("observe: each preparation must be an object"));
        }
        let text = |key: &str| match item.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!(
                "observe: preparation {key} must be a string"
            ))),
        };
        let required = |key: &str| {
            text(key)?.ok_or_else(|| invalid(format!("observe: preparation {key} is required")))
        };
        Ok(Preparation {
            call_id: required("callId")?,
            tool_name: required("toolName")?,
            title: text("title")?,
            kind: text("kind")?,
        })
    }
}

#[derive(Clone, Debug, Default)]
pub struct PreparationTracker {
    /// Calls whose preparing frame was built, in observation order.
    pending: Vec<(String, String)>,
    /// Calls the ledger refused a card (suppressed tool or already open);
    /// never retried, and kept across `discard` (docs/behaviour.md §5.3).
    suppressed: HashSet<String>,
    /// Pending calls whose complete `functionCall` arrived.
    resolved: HashSet<String>,
}

impl PreparationTracker {
    pub fn new() -> Self {
        PreparationTracker::default()
    }

    fn is_pending(&self, call_id: &str) -> bool {
        self.pending.iter().any(|(id, _)| id == call_id)
    }

    /// docs/behaviour.md §5.3 `observe`: a preparing frame for each preparation that is
    /// neither pending nor suppressed. The batch is validated first, so a bad
    /// entry leaves no card opened without its frame being returned.
    pub fn observe(
        &mut self,
        cards: &mut ToolCallCards,
        preparations: &[Preparation],
    ) -> Result<Vec<SessionUpdate>> {
        if preparations.iter().any(|p| p.call_id.is_empty()) {
            return Err(invalid("observe: a preparation has an empty callId"));
        }
        let mut frames = Vec::new();
        for p in preparations {
            if self.is_pending(&p.call_id) || self.suppressed.contains(&p.call_id) {
                continue;
            }
            match cards.preparing(
                &p.call_id,
                &p.tool_name,
                p.title.as_deref(),
                p.kind.as_deref(),
            )? {
                Some(frame) => {
                    self.pending.push((p.call_id.clone(), p.tool_name.clone()));
                    frames.push(frame);
                }
                None => {
                    self.suppressed.insert(p.call_id.clone());
                }
            }
        }
        Ok(frames)
    }

    /// docs/behaviour.md §5.3 `resolve`: calls with a non-empty id that is pending become
    /// resolved; missing or empty ids resolve nothing.
    pub fn resolve<'a>(&mut self, call_ids: impl IntoIterator<Item = Option<&'a str>>) {
        for id in call_ids.into_iter().flatten() {
            if !id.is_empty() && self.is_pending(id) {
                self.resolved.insert(id.to_string());
            }
        }
    }

    /// docs/behaviour.md §5.3 `discard`: pending and resolved are cleared *first* (a second
    /// call yields nothing); suppressed is kept. Resolved entries are skipped
    /// unless `include_resolved` (retry, fallback, cancel, stream error).
    pub fn discard(
        &mut self,
        cards: &mut ToolCallCards,
        include_resolved: bool,
    ) -> Result<Vec<SessionUpdate>> {
        let pending = std::mem::take(&mut self.pending);
        let resolved = std::mem::take(&mut self.resolved);
        let mut frames = Vec::new();
        for (call_id, tool_name) in pending {
            if !include_resolved && resolved.contains(&call_id) {
                continue;
            }
            if let Some(frame) = cards.discarded(&call_id, &tool_name)? {
                frames.push(frame);
            }
        }
        Ok(frames)
    }

    /// Ids with a preparing card that this stream still tracks.
    pub fn pending_ids(&self) -> impl Iterator<Item = &str> {
        self.pending.iter().map(|(id, _)| id.as_str())
    }
}
