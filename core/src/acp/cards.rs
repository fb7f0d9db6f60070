//! The card ledger: what Qwen Code's `ToolCallEmitter` tracks for one ACP
//! session (docs/behaviour.md §5.4). The frames it sends are built in
//! `card_frames.rs`.
//!
//! Where Qwen keeps only `preparedCallIds`, this ledger keeps every *open*
//! card (opened by a preparing frame, by a start that was not prepared, or by
//! a permission request for a call with no card) so it can refuse to build a
//! `tool_call_update` for an id the client has never seen: Zed turns such an
//! update into a permanent "Tool call not found" card (Zed's
//! `crates/acp_thread/src/acp_thread.rs`, `AcpThread::update_tool_call`).
//! Every method that would address a closed card returns
//! `None` instead, and [`ToolCallCards::close_all`] ends whatever is still
//! open, so no card is ever left pending.

use super::bounded_text::{card_title, longer_than, PROGRESS_ID_CHARS};
use super::card_frames::{
    discarded_frame, permission_tool_call, preparing_frame, result_frame, start_frame, text_content,
};
use super::discard::DiscardCause;
use super::frames::{invalid, JsString, OwnedValue, Result, SessionUpdate};
use super::input::{ResultStatus, ToolResult, ToolStart};
use super::progress::{progress_frame, IdleDeadline, ProgressReport};

/// Tools that never get a card (docs/behaviour.md §6.3: TodoWrite is shown as a `plan`).
pub const DEFAULT_SUPPRESSED_TOOLS: &[&str] = &["todo_write"];

/// The text of the failed frame [`ToolCallCards::close_all`] sends for a
/// card whose tool had started (docs/behaviour.md §6.6 wording).
pub const DEFAULT_CLOSE_MESSAGE: &str = "Tool execution was cancelled";

/// Where an open card is in its lifecycle (docs/behaviour.md §5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardPhase {
    /// Opened by a preparing `tool_call` (`pending`, `rawInput: {}`).
    Preparing,
    /// The complete call reached execution (`pending` awaiting permission,
    /// or `in_progress`).
    Started,
    /// A `session/request_permission` for the call is (or was) outstanding.
    /// The request's `toolCall` opens the card on the client when the call
    /// had no preparing card (Zed upserts it), so the ledger counts it open
    /// and owes it one terminal frame like any other.
    Permission,
}

#[derive(Clone, Debug)]
struct OpenCard {
    call_id: JsString,
    tool_name: JsString,
    /// The card's described title, for the title of its discard.
    title: Option<JsString>,
    phase: CardPhase,
}

fn check_call_id(call_id: &JsString, what: &str) -> Result<()> {
    if call_id.is_empty() {
        return Err(invalid(format!(
            "{what}: callId must be a non-empty string"
        )));
    }
    Ok(())
}

/// The cards of one ACP session.
#[derive(Clone, Debug)]
pub struct ToolCallCards {
    suppressed_tools: Vec<JsString>,
    /// Open cards in the order they were opened (few at a time, so a Vec).
    open: Vec<OpenCard>,
}

impl Default for ToolCallCards {
    fn default() -> Self {
        ToolCallCards::new(None)
    }
}

impl ToolCallCards {
    /// `suppressed_tools: None` means [`DEFAULT_SUPPRESSED_TOOLS`]; an explicit
    /// list replaces it.
    pub fn new(suppressed_tools: Option<Vec<JsString>>) -> Self {
        let suppressed_tools = suppressed_tools
            .unwrap_or_else(|| DEFAULT_SUPPRESSED_TOOLS.iter().map(|&s| s.into()).collect());
        ToolCallCards {
            suppressed_tools,
            open: Vec::new(),
        }
    }

    /// docs/behaviour.md §6.3: a suppressed tool never gets a card.
    pub fn is_suppressed(&self, tool_name: impl Into<JsString>) -> bool {
        let tool_name = tool_name.into();
        self.suppressed_tools.contains(&tool_name)
    }

    /// The phase of the open card for `call_id`, if one is open.
    pub fn phase(&self, call_id: impl Into<JsString>) -> Option<CardPhase> {
        let call_id = call_id.into();
        self.card(&call_id).map(|c| c.phase)
    }

    fn card(&self, call_id: &JsString) -> Option<&OpenCard> {
        self.open.iter().find(|c| c.call_id == *call_id)
    }

    /// Whether a card is open for `call_id`.
    pub fn is_open(&self, call_id: impl Into<JsString>) -> bool {
        self.phase(call_id).is_some()
    }

    /// Ids of the open cards, in the order they were opened.
    pub fn open_ids(&self) -> impl Iterator<Item = &JsString> {
        self.open.iter().map(|c| &c.call_id)
    }

    /// [`ToolCallCards::open_ids`] as a JSON array text.
    pub fn open_ids_json(&self) -> String {
        OwnedValue::Arr(self.open_ids().map(OwnedValue::from).collect()).to_json()
    }

    fn take(&mut self, call_id: &JsString) -> Option<OpenCard> {
        let at = self.open.iter().position(|c| c.call_id == *call_id)?;
        Some(self.open.remove(at))
    }

    /// docs/behaviour.md §5.4 `emitStart` with `phase: 'preparing'`: a new `tool_call`,
    /// `pending`, `rawInput: {}`. `None` for a suppressed tool or an id whose
    /// card is already open (the tracker then suppresses it, docs/behaviour.md §5.3).
    pub fn preparing(
        &mut self,
        call_id: impl Into<JsString>,
        tool_name: impl Into<JsString>,
        title: Option<JsString>,
        kind: Option<JsString>,
    ) -> Result<Option<SessionUpdate>> {
        let (call_id, tool_name) = (call_id.into(), tool_name.into());
        check_call_id(&call_id, "preparing")?;
        if self.is_suppressed(&tool_name) || self.is_open(&call_id) {
            return Ok(None);
        }
        let frame = preparing_frame(&call_id, &tool_name, title.as_ref(), kind.as_ref());
        self.open.push(OpenCard {
            call_id,
            tool_name,
            title,
            phase: CardPhase::Preparing,
        });
        Ok(Some(frame))
    }

    /// The progress frame of a card still preparing
    /// ([`super::progress`]): its title is `title` (else the tool name),
    /// bounded as every card title is, followed by what is happening now.
    /// `None` once the card is no longer preparing (started, asked for
    /// permission, ended) or was never opened: no progress frame ever
    /// follows those. `None` too for an id longer than
    /// [`PROGRESS_ID_CHARS`]: such a card keeps the frame it opened with.
    pub fn progress(
        &self,
        call_id: impl Into<JsString>,
        title: Option<JsString>,
        progress: &ProgressReport,
        deadline: Option<&IdleDeadline>,
    ) -> Option<SessionUpdate> {
        let call_id = call_id.into();
        let card = self
            .card(&call_id)
            .filter(|c| c.phase == CardPhase::Preparing)?;
        if longer_than(&card.call_id, PROGRESS_ID_CHARS) {
            return None;
        }
        Some(progress_frame(
            &card.call_id,
            &card_title(title.as_ref(), &card.tool_name),
            progress,
            deadline,
        ))
    }

    /// Forgets a card [`preparing`](Self::preparing) opened when the host's
    /// emitter did not show it (it answered `false`, or failed): the client
    /// never saw the card, so it is closed without a frame. Only a card still
    /// preparing is withdrawn: once a start or a permission request went out
    /// for the id, the client has seen it and it ends with its own frame.
    /// Whether a card was withdrawn.
    pub(crate) fn withdraw(&mut self, call_id: &JsString) -> bool {
        match self.card(call_id) {
            Some(card) if card.phase == CardPhase::Preparing => self.take(call_id).is_some(),
            _ => false,
        }
    }

    /// docs/behaviour.md §5.4 / §6.2 "Execution start": a `tool_call_update` with
    /// the full field set when the card is open (prepared), else a new
    /// `tool_call`. `None` for a suppressed tool without an open card (§6.3:
    /// execution start is skipped for TodoWrite).
    ///
    /// Deviation: Qwen sends a second `tool_call` when an unprepared id is
    /// started twice; the ledger knows that card is open and sends an update.
    /// The update carries ACP's `name` only when the call's name is not the
    /// one the card opened with (the card then takes the new one).
    pub fn started(&mut self, start: &ToolStart) -> Result<Option<SessionUpdate>> {
        check_call_id(&start.call_id, "started")?;
        if !start.raw_input.is_object() {
            return Err(invalid("started: rawInput must be an object"));
        }
        // Suppression only stops a card from being opened; an open card (a
        // preparation whose complete call came back under a suppressed name)
        // must still be addressed, or it would stay pending forever.
        if self.is_suppressed(&start.tool_name) && !self.is_open(&start.call_id) {
            return Ok(None);
        }
        let (update, renamed) = self.enter(start, CardPhase::Started);
        Ok(Some(start_frame(start, update, renamed)))
    }

    /// The `toolCall` of a `session/request_permission` request, as Qwen
    /// Code builds it (`packages/cli/src/acp-integration/session/Session.ts`,
    /// `runTool`):
    /// `{toolCallId, status: "pending", title, content, locations, kind,
    /// rawInput, _meta: {toolName}}`, with the complete arguments, and ACP's
    /// `name` when the request opens the card or renames it. The
    /// request takes the place of the start frame: a prepared card goes
    /// straight from preparing to the request and then to its terminal
    /// frame, and a call with no card gets one opened by the request itself
    /// (same `toolCallId`). Either way the card is open in the
    /// [`CardPhase::Permission`] phase, so [`finished`](Self::finished) and
    /// [`close_all`](Self::close_all) end it exactly once whatever the
    /// answer. `None` for a suppressed tool without an open card (TodoWrite
    /// never asks). `start.status` is ignored: the request is always
    /// `pending`.
    pub fn permission(
        &mut self,
        start: &ToolStart,
        content: Vec<OwnedValue>,
    ) -> Result<Option<SessionUpdate>> {
        check_call_id(&start.call_id, "permission")?;
        if !start.raw_input.is_object() {
            return Err(invalid("permission: rawInput must be an object"));
        }
        if content.iter().any(|c| !c.is_object()) {
            return Err(invalid("permission: content must be an array of objects"));
        }
        if self.is_suppressed(&start.tool_name) && !self.is_open(&start.call_id) {
            return Ok(None);
        }
        let (update, renamed) = self.enter(start, CardPhase::Permission);
        Ok(Some(permission_tool_call(
            start,
            content,
            !update || renamed,
        )))
    }

    /// Moves the card of `start` to `phase`, opening it if none is open.
    /// Returns whether it was open, and whether it was open under another
    /// tool name (it takes `start`'s).
    fn enter(&mut self, start: &ToolStart, phase: CardPhase) -> (bool, bool) {
        match self.open.iter_mut().find(|c| c.call_id == start.call_id) {
            Some(card) => {
                card.phase = phase;
                let renamed = card.tool_name != start.tool_name;
                if renamed {
                    card.tool_name = start.tool_name.clone();
                }
                if start.title.is_some() {
                    card.title = start.title.clone();
                }
                (true, renamed)
            }
            None => {
                self.open.push(OpenCard {
                    call_id: start.call_id.clone(),
                    tool_name: start.tool_name.clone(),
                    title: start.title.clone(),
                    phase,
                });
                (false, false)
            }
        }
    }

    /// docs/behaviour.md §6.2 "Result": the terminal `tool_call_update`. `None` when no
    /// card is open for the id (never an update the client cannot place),
    /// which is always the case for suppressed tools: TodoWrite sends a
    /// `plan` instead (see [`super::plan::plan_update`]).
    pub fn finished(
        &mut self,
        call_id: impl Into<JsString>,
        tool_name: impl Into<JsString>,
        result: ToolResult,
    ) -> Result<Option<SessionUpdate>> {
        let call_id = call_id.into();
        check_call_id(&call_id, "finished")?;
        if self.take(&call_id).is_none() {
            return Ok(None);
        }
        Ok(Some(result_frame(
            &call_id,
            &tool_name.into(),
            result.status,
            result.content,
            result.raw_output,
        )))
    }

    /// docs/behaviour.md §5.4 `emitPreparationDiscarded` / §6.2 "Discarded preparation",
    /// titled with the card's own title and `cause` ([`super::discard`]).
    /// A no-op for ids without an open card, so for suppressed tools too.
    pub fn discarded(
        &mut self,
        call_id: impl Into<JsString>,
        tool_name: impl Into<JsString>,
        cause: Option<&DiscardCause>,
    ) -> Result<Option<SessionUpdate>> {
        let call_id = call_id.into();
        check_call_id(&call_id, "discarded")?;
        let Some(card) = self.take(&call_id) else {
            return Ok(None);
        };
        Ok(Some(discarded_frame(
            &call_id,
            &tool_name.into(),
            card.title.as_ref(),
            cause,
        )))
    }

    /// Terminal frames for every open card, in the order they were opened
    /// (end of turn, cancel). A card still preparing is discarded (its call
    /// never reached execution); a started one, or one awaiting permission,
    /// fails with `message`. `cause` is why a preparing card did not run.
    pub fn close_all(
        &mut self,
        message: Option<JsString>,
        cause: Option<&DiscardCause>,
    ) -> Vec<SessionUpdate> {
        let message = message.unwrap_or_else(|| DEFAULT_CLOSE_MESSAGE.into());
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|card| match card.phase {
                CardPhase::Preparing => {
                    discarded_frame(&card.call_id, &card.tool_name, card.title.as_ref(), cause)
                }
                CardPhase::Started | CardPhase::Permission => result_frame(
                    &card.call_id,
                    &card.tool_name,
                    ResultStatus::Failed,
                    vec![text_content(&message)],
                    None,
                ),
            })
            .collect()
    }
}
