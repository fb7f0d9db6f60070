//! `ToolCallPreparationTracker` (docs/behaviour.md §5.3): one per model stream, i.e. one
//! `sendMessageStream` call, which may span several attempts. It remembers
//! which preparations got a card, which were suppressed, and which were
//! resolved by their complete `functionCall`, so the stream loop can discard
//! exactly the right cards on retry, fallback, cancel, error or normal end
//! (docs/behaviour.md §5.5 table).

use std::collections::HashSet;

use super::{invalid, JsString, OwnedValue, Result, SessionUpdate, ToolCallCards};

/// One preparation of a response chunk (docs/behaviour.md §5.1), with the card title and
/// kind the caller resolved for its tool (`describe()` runs in JS).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preparation {
    /// The final (normalised) tool-call id: the card's `toolCallId`.
    pub call_id: JsString,
    /// The tool's name, as the model gave it.
    pub tool_name: JsString,
    /// The card title; `None` shows the tool name.
    pub title: Option<JsString>,
    /// A Qwen `Kind` or ACP kind, mapped by [`super::map_tool_kind`].
    pub kind: Option<JsString>,
}

impl Preparation {
    /// A preparation without a described title or kind.
    pub fn new(call_id: impl Into<JsString>, tool_name: impl Into<JsString>) -> Self {
        Preparation {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            title: None,
            kind: None,
        }
    }

    /// Parses `[{callId, toolName, title?, kind?}, …]` (JSON text from JS).
    pub fn list_from_json(json: &str) -> Result<Vec<Preparation>> {
        match super::parse_json(json, "observe")? {
            OwnedValue::Arr(items) => items.iter().map(Preparation::from_value).collect(),
            _ => Err(invalid("observe: preparations must be an array")),
        }
    }

    fn from_value(item: &OwnedValue) -> Result<Preparation> {
        if !item.is_object() {
            return Err(invalid("observe: each preparation must be an object"));
        }
        let text = |key: &str| match item.get(key) {
            None | Some(OwnedValue::Null) => Ok(None),
            Some(OwnedValue::Str(s)) => Ok(Some(s.clone())),
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

/// What one model stream has shown: pending, suppressed and resolved
/// preparations (docs/behaviour.md §5.3).
#[derive(Clone, Debug, Default)]
pub struct PreparationTracker {
    /// Calls whose preparing frame was built, in observation order.
    pending: Vec<(JsString, JsString)>,
    /// Calls the ledger refused a card (suppressed tool or already open);
    /// never retried, and kept across `discard` (docs/behaviour.md §5.3).
    suppressed: HashSet<JsString>,
    /// Pending calls whose complete `functionCall` arrived.
    resolved: HashSet<JsString>,
}

impl PreparationTracker {
    /// A tracker for a new model stream.
    pub fn new() -> Self {
        PreparationTracker::default()
    }

    fn is_pending(&self, call_id: &JsString) -> bool {
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
            match cards.preparing(&p.call_id, &p.tool_name, p.title.clone(), p.kind.clone())? {
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
    pub fn resolve<I, S>(&mut self, call_ids: I)
    where
        I: IntoIterator<Item = Option<S>>,
        S: Into<JsString>,
    {
        for id in call_ids.into_iter().flatten().map(Into::into) {
            if !id.is_empty() && self.is_pending(&id) {
                self.resolved.insert(id);
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
    pub fn pending_ids(&self) -> impl Iterator<Item = &JsString> {
        self.pending.iter().map(|(id, _)| id)
    }
}
