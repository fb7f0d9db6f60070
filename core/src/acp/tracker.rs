//! `ToolCallPreparationTracker` (docs/behaviour.md §5.3): one per model stream, i.e. one
//! `sendMessageStream` call, which may span several attempts. It remembers
//! which preparations got a card, which were suppressed, and which were
//! resolved by their complete `functionCall`, so the stream loop can discard
//! exactly the right cards on retry, fallback, cancel, error or normal end
//! (docs/behaviour.md §5.5 table).
//!
//! Qwen Code's tracker (packages/cli/src/acp-integration/session/
//! tool-call-preparation-tracker.ts, `observe`) does not decide whether a
//! card is shown: it asks its emitter (`ToolCallEmitter.emitStart`), which
//! answers `false` for a suppressed tool, and records the answer. A host that
//! keeps such an emitter drives this tracker in two steps per preparation:
//! [`PreparationTracker::offer`] opens the card in the ledger and gives the
//! preparing frame, and [`PreparationTracker::answer`] records what the
//! emitter said. [`PreparationTracker::observe`] is both steps at once, the
//! frames being emitted by the caller.

use std::collections::HashSet;

use super::cards::ToolCallCards;
use super::discard::DiscardCause;
use super::frames::{invalid, parse_json, JsString, OwnedValue, Result, SessionUpdate};

/// One preparation of a response chunk (docs/behaviour.md §5.1) as a card
/// shows it: the call's final id and tool name (the converter's
/// [`crate::model::gemini::Preparation`], its id normalised) with the card
/// title and kind the caller resolved for its tool (`describe()` runs in JS).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DescribedPreparation {
    /// The final (normalised) tool-call id: the card's `toolCallId`.
    pub call_id: JsString,
    /// The tool's name, as the model gave it.
    pub tool_name: JsString,
    /// The card title; `None` shows the tool name.
    pub title: Option<JsString>,
    /// A Qwen `Kind` or ACP kind, mapped by [`super::kinds::map_tool_kind`].
    pub kind: Option<JsString>,
}

impl DescribedPreparation {
    /// A preparation without a described title or kind.
    pub fn new(call_id: impl Into<JsString>, tool_name: impl Into<JsString>) -> Self {
        DescribedPreparation {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            title: None,
            kind: None,
        }
    }

    /// Parses `[{callId, toolName, title?, kind?}, …]` (JSON text from JS).
    pub fn list_from_json(json: &str) -> Result<Vec<DescribedPreparation>> {
        match parse_json(json, "observe")? {
            OwnedValue::Arr(items) => items.iter().map(DescribedPreparation::from_value).collect(),
            _ => Err(invalid("observe: preparations must be an array")),
        }
    }

    /// Parses one `{callId, toolName, title?, kind?}` (JSON text from JS).
    pub fn from_json(json: &str) -> Result<DescribedPreparation> {
        DescribedPreparation::from_value(&parse_json(json, "observe")?)
    }

    pub(super) fn from_value(item: &OwnedValue) -> Result<DescribedPreparation> {
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
        Ok(DescribedPreparation {
            call_id: required("callId")?,
            tool_name: required("toolName")?,
            title: text("title")?,
            kind: text("kind")?,
        })
    }
}

/// What the host's emitter answered for a preparing frame (Qwen Code's
/// `ToolCallEmitter.emitStart` resolves to a boolean, or rejects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartAnswer {
    /// The frame was shown (`true`): the card is tracked, and discarded
    /// later unless its call resolves.
    Emitted,
    /// The emitter skipped the frame (`false`, e.g. a suppressed tool): the
    /// card is withdrawn and the call is never offered again in this stream.
    Declined,
    /// The emitter failed: the card is withdrawn and nothing is recorded, so
    /// the next observation offers the call again (Qwen's tracker records
    /// nothing when `emitStart` rejects).
    Failed,
}

/// What one model stream has shown: pending, suppressed and resolved
/// preparations (docs/behaviour.md §5.3), and those awaiting the emitter's
/// answer.
#[derive(Clone, Debug, Default)]
pub struct PreparationTracker {
    /// Calls whose preparing frame was shown, in the order the answers came.
    pending: Vec<(JsString, JsString)>,
    /// Calls whose preparing frame was offered and is not answered yet. Not
    /// pending: a discard meanwhile leaves them alone, as Qwen's tracker
    /// leaves a call whose `emitStart` has not settled.
    awaiting: Vec<(JsString, JsString)>,
    /// Calls refused a card, by the ledger (suppressed tool or already open)
    /// or by the emitter; never offered again, and kept across `discard`
    /// (docs/behaviour.md §5.3).
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

    fn is_awaiting(&self, call_id: &JsString) -> bool {
        self.awaiting.iter().any(|(id, _)| id == call_id)
    }

    /// docs/behaviour.md §5.3 `observe`: a preparing frame for each preparation that is
    /// neither pending nor suppressed, each counted as emitted (the caller
    /// sends them all). The batch is validated first, so a bad entry leaves
    /// no card opened without its frame being returned.
    pub fn observe(
        &mut self,
        cards: &mut ToolCallCards,
        preparations: &[DescribedPreparation],
    ) -> Result<Vec<SessionUpdate>> {
        if preparations.iter().any(|p| p.call_id.is_empty()) {
            return Err(invalid("observe: a preparation has an empty callId"));
        }
        let mut frames = Vec::new();
        for p in preparations {
            if let Some(frame) = self.offer(cards, p)? {
                self.answer(cards, &p.call_id, StartAnswer::Emitted)?;
                frames.push(frame);
            }
        }
        Ok(frames)
    }

    /// The first step of `observe` for one preparation, when a host's emitter
    /// decides: the preparing frame to hand to the emitter, its card opened
    /// in the ledger and the call awaiting [`answer`](Self::answer). `None`
    /// when there is nothing to ask: the call is pending, suppressed, or
    /// already awaiting an answer, or the ledger refuses it a card (a
    /// suppressed tool, or an id whose card is open), which suppresses it
    /// as in [`observe`](Self::observe).
    pub fn offer(
        &mut self,
        cards: &mut ToolCallCards,
        preparation: &DescribedPreparation,
    ) -> Result<Option<SessionUpdate>> {
        let p = preparation;
        if p.call_id.is_empty() {
            return Err(invalid("observe: a preparation has an empty callId"));
        }
        if self.is_pending(&p.call_id)
            || self.is_awaiting(&p.call_id)
            || self.suppressed.contains(&p.call_id)
        {
            return Ok(None);
        }
        match cards.preparing(&p.call_id, &p.tool_name, p.title.clone(), p.kind.clone())? {
            Some(frame) => {
                self.awaiting.push((p.call_id.clone(), p.tool_name.clone()));
                Ok(Some(frame))
            }
            None => {
                self.suppressed.insert(p.call_id.clone());
                Ok(None)
            }
        }
    }

    /// The second step: records the emitter's answer for an offered call
    /// (Qwen's `observe`: `true` makes it pending, `false` suppressed; a
    /// rejection records nothing). A card the emitter did not show is
    /// withdrawn from the ledger without a frame, so neither a discard nor
    /// an update is ever built for it. An error for a call that awaits no
    /// answer.
    pub fn answer(
        &mut self,
        cards: &mut ToolCallCards,
        call_id: impl Into<JsString>,
        answer: StartAnswer,
    ) -> Result<()> {
        let call_id = call_id.into();
        let Some(at) = self.awaiting.iter().position(|(id, _)| *id == call_id) else {
            return Err(invalid(
                "answer: no preparing frame awaits an answer for this callId",
            ));
        };
        let (call_id, tool_name) = self.awaiting.remove(at);
        match answer {
            StartAnswer::Emitted => self.pending.push((call_id, tool_name)),
            StartAnswer::Declined => {
                cards.withdraw(&call_id);
                self.suppressed.insert(call_id);
            }
            StartAnswer::Failed => {
                cards.withdraw(&call_id);
            }
        }
        Ok(())
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
    /// call yields nothing); suppressed and awaiting calls are kept. Resolved
    /// entries are skipped unless `include_resolved` (retry, fallback, cancel,
    /// stream error). A pending call whose card the ledger already closed
    /// gets no frame. `cause` is why, when the host knows it
    /// ([`super::discard`]): each frame's title says it.
    pub fn discard(
        &mut self,
        cards: &mut ToolCallCards,
        include_resolved: bool,
        cause: Option<&DiscardCause>,
    ) -> Result<Vec<SessionUpdate>> {
        let pending = std::mem::take(&mut self.pending);
        let resolved = std::mem::take(&mut self.resolved);
        let mut frames = Vec::new();
        for (call_id, tool_name) in pending {
            if !include_resolved && resolved.contains(&call_id) {
                continue;
            }
            if let Some(frame) = cards.discarded(&call_id, &tool_name, cause)? {
                frames.push(frame);
            }
        }
        Ok(frames)
    }
}
