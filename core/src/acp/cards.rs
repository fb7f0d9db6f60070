//! The card ledger: what Qwen Code's `ToolCallEmitter` tracks for one ACP
//! session (docs/behaviour.md §5.4), plus the frame shapes of docs/behaviour.md §6.2.
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

use super::frames::{frame_json, invalid, parse_json, JsString, OwnedValue, Result, SessionUpdate};

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
    phase: CardPhase,
}

/// `_meta.provenance` and `_meta.serverId` of a tool frame (docs/behaviour.md §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provenance<'a> {
    /// `mcp` or `builtin`.
    pub provenance: &'static str,
    /// The MCP server's name, for `mcp` tools.
    pub server_id: Option<&'a str>,
}

/// docs/behaviour.md §6.2 provenance rule: `mcp__<server>__<tool>` with at least three
/// `__`-separated parts and a non-empty server is `mcp`; anything else,
/// including `mcp__just_one` and `mcp____read`, is `builtin`. (Subagent
/// provenance needs subagent metadata, which this ledger does not model.)
///
/// `tool_name` may be plain text or a [`JsString`]'s escaped text: no escape
/// holds `_`, so the server of escaped text is the escaped server.
pub fn tool_provenance(tool_name: &str) -> Provenance<'_> {
    if tool_name.starts_with("mcp__") {
        let mut parts = tool_name.split("__").skip(1);
        if let (Some(server), Some(_)) = (parts.next(), parts.next()) {
            if !server.is_empty() {
                return Provenance {
                    provenance: "mcp",
                    server_id: Some(server),
                };
            }
        }
    }
    Provenance {
        provenance: "builtin",
        server_id: None,
    }
}

/// docs/behaviour.md §6.2 kind mapping. `kind` is a Qwen core `Kind` value (`read`,
/// `edit`, …, `agent`, `other`) or an ACP kind; `agent` and anything unknown
/// become `other`, and the plan-mode tools are always `switch_mode`. Plain
/// text or a [`JsString`]'s escaped text alike: every name compared is
/// its own escaped text.
pub fn map_tool_kind(tool_name: &str, kind: Option<&str>) -> &'static str {
    if tool_name == "enter_plan_mode" || tool_name == "exit_plan_mode" {
        return "switch_mode";
    }
    match kind {
        Some("read") => "read",
        Some("edit") => "edit",
        Some("delete") => "delete",
        Some("move") => "move",
        Some("search") => "search",
        Some("execute") => "execute",
        Some("think") => "think",
        Some("fetch") => "fetch",
        Some("switch_mode") => "switch_mode",
        _ => "other",
    }
}

/// A file location of a started tool (`ToolCallLocation`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file's path.
    pub path: JsString,
    /// 1-based line; `None` is sent as `null` (docs/behaviour.md §8.3 "Fix 5").
    pub line: Option<u32>,
}

/// The status a start frame carries: `in_progress` for an auto-approved run
/// (docs/behaviour.md §6.2), `pending` while a permission request is outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartStatus {
    /// `pending`: a permission request is outstanding.
    Pending,
    /// `in_progress`: the tool runs.
    InProgress,
}

impl StartStatus {
    fn as_str(self) -> &'static str {
        match self {
            StartStatus::Pending => "pending",
            StartStatus::InProgress => "in_progress",
        }
    }
}

/// A complete tool call reaching execution.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolStart {
    /// The card's `toolCallId`.
    pub call_id: JsString,
    /// The tool's name.
    pub tool_name: JsString,
    /// The complete arguments; always a JSON object.
    pub raw_input: OwnedValue,
    /// The card title; `None` shows the tool name.
    pub title: Option<JsString>,
    /// A Qwen `Kind` or ACP kind, mapped by [`map_tool_kind`].
    pub kind: Option<JsString>,
    /// Files the tool touches.
    pub locations: Vec<Location>,
    /// The frame's status.
    pub status: StartStatus,
}

/// Terminal status of a tool result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultStatus {
    /// `completed`.
    Completed,
    /// `failed`.
    Failed,
}

impl ResultStatus {
    fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Completed => "completed",
            ResultStatus::Failed => "failed",
        }
    }
}

/// The outcome of a tool run (docs/behaviour.md §6.2 "Result").
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// The terminal status.
    pub status: ResultStatus,
    /// `ToolCallContent` items, passed through.
    pub content: Vec<OwnedValue>,
    /// Sent as `rawOutput` only when present (docs/behaviour.md §6.2: only when
    /// `resultDisplay !== undefined`).
    pub raw_output: Option<OwnedValue>,
}

/// `obj[key]`, with `null` read as absent.
fn field<'a>(obj: &'a OwnedValue, key: &str) -> Option<&'a OwnedValue> {
    obj.get(key).filter(|v| !v.is_null())
}

fn string_field(obj: &OwnedValue, key: &str, what: &str) -> Result<Option<JsString>> {
    match field(obj, key) {
        None => Ok(None),
        Some(OwnedValue::Str(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(format!("{what}: {key} must be a string"))),
    }
}

fn required_string(obj: &OwnedValue, key: &str, what: &str) -> Result<JsString> {
    string_field(obj, key, what)?.ok_or_else(|| invalid(format!("{what}: {key} is required")))
}

fn parse_object(json: &str, what: &str) -> Result<OwnedValue> {
    let obj = parse_json(json, what)?;
    if !obj.is_object() {
        return Err(invalid(format!("{what}: expected an object")));
    }
    Ok(obj)
}

impl ToolStart {
    /// Parses `{callId, toolName, rawInput, title?, kind?, locations?,
    /// status?}` (the JS `started()` argument, as JSON text).
    pub fn from_json(json: &str) -> Result<ToolStart> {
        const WHAT: &str = "started";
        let obj = parse_object(json, WHAT)?;
        let call_id = required_string(&obj, "callId", WHAT)?;
        let tool_name = required_string(&obj, "toolName", WHAT)?;
        let raw_input = match field(&obj, "rawInput") {
            None => OwnedValue::Obj(Vec::new()),
            Some(v @ OwnedValue::Obj(_)) => v.clone(),
            Some(_) => return Err(invalid("started: rawInput must be an object")),
        };
        let title = string_field(&obj, "title", WHAT)?;
        let kind = string_field(&obj, "kind", WHAT)?;
        let locations = match field(&obj, "locations") {
            None => Vec::new(),
            Some(OwnedValue::Arr(items)) => items
                .iter()
                .map(parse_location)
                .collect::<Result<Vec<_>>>()?,
            Some(_) => return Err(invalid("started: locations must be an array")),
        };
        let status = match string_field(&obj, "status", WHAT)? {
            None => StartStatus::InProgress,
            Some(s) if s == "in_progress" => StartStatus::InProgress,
            Some(s) if s == "pending" => StartStatus::Pending,
            Some(other) => {
                return Err(invalid(format!(
                    "started: status must be 'pending' or 'in_progress', got {other:?}"
                )))
            }
        };
        Ok(ToolStart {
            call_id,
            tool_name,
            raw_input,
            title,
            kind,
            locations,
            status,
        })
    }
}

fn parse_location(obj: &OwnedValue) -> Result<Location> {
    if !obj.is_object() {
        return Err(invalid("started: each location must be an object"));
    }
    let path = required_string(obj, "path", "started: location")?;
    // A whole number in u32's range (`-0` too, as `JSON.stringify` writes
    // it `0`).
    let line_number = |v: &OwnedValue| {
        v.as_f64()
            .filter(|n| n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(n))
            .map(|n| n as u32)
    };
    let line = match field(obj, "line") {
        None => None,
        Some(v) => match line_number(v) {
            Some(n) => Some(n),
            None => {
                return Err(invalid(
                    "started: location line must be a non-negative integer or null",
                ))
            }
        },
    };
    Ok(Location { path, line })
}

impl ToolResult {
    /// Parses `{status, content?, rawOutput?}` (the JS `finished()` result,
    /// as JSON text; `rawOutput` is absent when it was `undefined`).
    pub fn from_json(json: &str) -> Result<ToolResult> {
        const WHAT: &str = "finished";
        let obj = parse_object(json, WHAT)?;
        let status = match string_field(&obj, "status", WHAT)? {
            Some(s) if s == "completed" => ResultStatus::Completed,
            Some(s) if s == "failed" => ResultStatus::Failed,
            Some(other) => {
                return Err(invalid(format!(
                    "finished: status must be 'completed' or 'failed', got {other:?}"
                )))
            }
            None => return Err(invalid("finished: status is required")),
        };
        let content = match field(&obj, "content") {
            None => Vec::new(),
            Some(OwnedValue::Arr(items)) if items.iter().all(OwnedValue::is_object) => {
                items.clone()
            }
            Some(_) => return Err(invalid("finished: content must be an array of objects")),
        };
        // `null` is a defined rawOutput; only an absent key means "none".
        let raw_output = obj.get("rawOutput").cloned();
        Ok(ToolResult {
            status,
            content,
            raw_output,
        })
    }
}

/// A `ToolCallContent` array as JSON text (the binding's form).
pub fn tool_content_from_json(json: &str, what: &str) -> Result<Vec<OwnedValue>> {
    match parse_json(json, what)? {
        OwnedValue::Arr(items) if items.iter().all(OwnedValue::is_object) => Ok(items),
        _ => Err(invalid(format!(
            "{what}: content must be an array of objects"
        ))),
    }
}

fn check_call_id(call_id: &JsString, what: &str) -> Result<()> {
    if call_id.is_empty() {
        return Err(invalid(format!(
            "{what}: callId must be a non-empty string"
        )));
    }
    Ok(())
}

/// `_meta` of a tool frame, keys in the order of docs/behaviour.md §6.2: `toolName`, then
/// the preparing markers, then provenance.
fn tool_meta(tool_name: &JsString, preparing: bool, discarded: bool) -> OwnedValue {
    let mut meta = vec![("toolName", OwnedValue::from(tool_name))];
    if preparing {
        meta.push(("phase", "preparing".into()));
    }
    if discarded {
        meta.push(("preparationDiscarded", true.into()));
    }
    let p = tool_provenance(tool_name.escaped());
    meta.push(("provenance", p.provenance.into()));
    if let Some(server) = p.server_id {
        meta.push(("serverId", JsString::from_escaped_unchecked(server).into()));
    }
    OwnedValue::object(meta)
}

fn locations_json(locations: &[Location]) -> OwnedValue {
    OwnedValue::Arr(
        locations
            .iter()
            .map(|l| {
                OwnedValue::object([
                    ("path", OwnedValue::from(&l.path)),
                    ("line", l.line.map_or(OwnedValue::Null, OwnedValue::from)),
                ])
            })
            .collect(),
    )
}

fn text_content(text: &JsString) -> OwnedValue {
    OwnedValue::object([
        ("type", "content".into()),
        (
            "content",
            OwnedValue::object([("type", "text".into()), ("text", text.into())]),
        ),
    ])
}

/// The card title: the described one, else the tool name.
fn title(title: Option<&JsString>, tool_name: &JsString) -> OwnedValue {
    title.unwrap_or(tool_name).into()
}

/// The ACP kind, see [`map_tool_kind`].
fn kind(tool_name: &JsString, kind: Option<&JsString>) -> OwnedValue {
    map_tool_kind(tool_name.escaped(), kind.map(JsString::escaped)).into()
}

/// docs/behaviour.md §6.2 "Discarded preparation": no title, kind, rawInput or rawOutput.
fn discarded_frame(call_id: &JsString, tool_name: &JsString) -> SessionUpdate {
    OwnedValue::object([
        ("sessionUpdate", "tool_call_update".into()),
        ("toolCallId", call_id.into()),
        ("status", "failed".into()),
        ("content", OwnedValue::Arr(Vec::new())),
        ("_meta", tool_meta(tool_name, true, true)),
    ])
}

/// docs/behaviour.md §6.2 "Result" / "Error".
fn result_frame(
    call_id: &JsString,
    tool_name: &JsString,
    status: ResultStatus,
    content: Vec<OwnedValue>,
    raw_output: Option<OwnedValue>,
) -> SessionUpdate {
    let mut f = vec![
        ("sessionUpdate", "tool_call_update".into()),
        ("toolCallId", call_id.into()),
        ("status", status.as_str().into()),
        ("content", OwnedValue::Arr(content)),
        ("_meta", tool_meta(tool_name, false, false)),
    ];
    if let Some(raw) = raw_output {
        f.push(("rawOutput", raw));
    }
    OwnedValue::object(f)
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
        let frame = OwnedValue::object([
            ("sessionUpdate", "tool_call".into()),
            ("toolCallId", (&call_id).into()),
            ("status", "pending".into()),
            ("title", self::title(title.as_ref(), &tool_name)),
            ("content", OwnedValue::Arr(Vec::new())),
            ("locations", OwnedValue::Arr(Vec::new())),
            ("kind", self::kind(&tool_name, kind.as_ref())),
            // Never partial arguments (design: "It never contains partial
            // arguments").
            ("rawInput", OwnedValue::Obj(Vec::new())),
            ("_meta", tool_meta(&tool_name, true, false)),
        ]);
        self.open.push(OpenCard {
            call_id,
            tool_name,
            phase: CardPhase::Preparing,
        });
        Ok(Some(frame))
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
        let update = match self.open.iter_mut().find(|c| c.call_id == start.call_id) {
            Some(card) => {
                card.phase = CardPhase::Started;
                true
            }
            None => {
                self.open.push(OpenCard {
                    call_id: start.call_id.clone(),
                    tool_name: start.tool_name.clone(),
                    phase: CardPhase::Started,
                });
                false
            }
        };
        let session_update = if update {
            "tool_call_update"
        } else {
            "tool_call"
        };
        Ok(Some(OwnedValue::object([
            ("sessionUpdate", session_update.into()),
            ("toolCallId", (&start.call_id).into()),
            ("status", start.status.as_str().into()),
            ("title", title(start.title.as_ref(), &start.tool_name)),
            ("content", OwnedValue::Arr(Vec::new())),
            ("locations", locations_json(&start.locations)),
            ("kind", kind(&start.tool_name, start.kind.as_ref())),
            ("rawInput", start.raw_input.clone()),
            ("_meta", tool_meta(&start.tool_name, false, false)),
        ])))
    }

    /// The `toolCall` of a `session/request_permission` request, as Qwen
    /// Code builds it (`packages/cli/src/acp-integration/session/Session.ts`,
    /// `runTool`):
    /// `{toolCallId, status: "pending", title, content, locations, kind,
    /// rawInput, _meta: {toolName}}`, with the complete arguments. The
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
        match self.open.iter_mut().find(|c| c.call_id == start.call_id) {
            Some(card) => card.phase = CardPhase::Permission,
            None => self.open.push(OpenCard {
                call_id: start.call_id.clone(),
                tool_name: start.tool_name.clone(),
                phase: CardPhase::Permission,
            }),
        }
        Ok(Some(OwnedValue::object([
            ("toolCallId", (&start.call_id).into()),
            ("status", "pending".into()),
            ("title", title(start.title.as_ref(), &start.tool_name)),
            ("content", OwnedValue::Arr(content)),
            ("locations", locations_json(&start.locations)),
            ("kind", kind(&start.tool_name, start.kind.as_ref())),
            ("rawInput", start.raw_input.clone()),
            (
                "_meta",
                OwnedValue::object([("toolName", (&start.tool_name).into())]),
            ),
        ])))
    }

    /// docs/behaviour.md §6.2 "Result": the terminal `tool_call_update`. `None` when no
    /// card is open for the id (never an update the client cannot place),
    /// which is always the case for suppressed tools: TodoWrite sends a
    /// `plan` instead (see [`plan_update`]).
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

    /// docs/behaviour.md §5.4 `emitPreparationDiscarded` / §6.2 "Discarded preparation".
    /// A no-op for ids without an open card, so for suppressed tools too.
    pub fn discarded(
        &mut self,
        call_id: impl Into<JsString>,
        tool_name: impl Into<JsString>,
    ) -> Result<Option<SessionUpdate>> {
        let call_id = call_id.into();
        check_call_id(&call_id, "discarded")?;
        if self.take(&call_id).is_none() {
            return Ok(None);
        }
        Ok(Some(discarded_frame(&call_id, &tool_name.into())))
    }

    /// Terminal frames for every open card, in the order they were opened
    /// (end of turn, cancel). A card still preparing is discarded (its call
    /// never reached execution); a started one, or one awaiting permission,
    /// fails with `message`.
    pub fn close_all(&mut self, message: Option<JsString>) -> Vec<SessionUpdate> {
        let message = message.unwrap_or_else(|| DEFAULT_CLOSE_MESSAGE.into());
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|card| match card.phase {
                CardPhase::Preparing => discarded_frame(&card.call_id, &card.tool_name),
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

/// `normalizeTodos`: keep objects with a string `content` and a plan status.
fn normalize_todos(values: &[OwnedValue]) -> Vec<(JsString, JsString)> {
    values
        .iter()
        .filter_map(|v| {
            let content = v.get("content")?.as_str()?;
            let status = v.get("status")?.as_str()?;
            ["pending", "in_progress", "completed"]
                .contains(&status.escaped())
                .then(|| (content.clone(), status.clone()))
        })
        .collect()
}

fn todos_from_display(display: &OwnedValue) -> Option<Vec<(JsString, JsString)>> {
    let todo_list = |v: &OwnedValue| -> Option<Option<Vec<(JsString, JsString)>>> {
        (*v.get("type")?.as_str()? == "todo_list").then(|| {
            v.get("todos")
                .and_then(OwnedValue::as_array)
                .map(normalize_todos)
        })
    };
    match display {
        // `JSON.parse(text)`: a lone surrogate inside a string literal of
        // the text stays one.
        OwnedValue::Str(text) => {
            let parsed = parse_json(&text.json_text(), "plan").ok()?;
            todo_list(&parsed).flatten()
        }
        other => todo_list(other).flatten(),
    }
}

/// docs/behaviour.md §6.3 TodoWrite success: the `plan` update that replaces the card.
/// Todos come from a `{type:'todo_list', todos}` result display (object or
/// JSON text), else from `args.todos`; the plan is sent when todos were
/// found, or empty when `args.todos` is an array; otherwise `None`.
pub fn plan_update(
    args: Option<&OwnedValue>,
    result_display: Option<&OwnedValue>,
) -> Option<SessionUpdate> {
    let args_todos = args
        .and_then(|a| a.get("todos"))
        .and_then(OwnedValue::as_array);
    let todos = result_display
        .and_then(todos_from_display)
        .or_else(|| args_todos.map(normalize_todos));
    let entries = match todos {
        Some(todos) if !todos.is_empty() => todos,
        _ if args_todos.is_some() => Vec::new(),
        _ => return None,
    };
    let entries = entries
        .into_iter()
        .map(|(content, status)| {
            OwnedValue::object([
                ("content", content.into()),
                ("priority", "medium".into()),
                ("status", status.into()),
            ])
        })
        .collect();
    Some(OwnedValue::object([
        ("sessionUpdate", "plan".into()),
        ("entries", OwnedValue::Arr(entries)),
    ]))
}

/// [`plan_update`] over JSON texts (the binding's form): `None` for an
/// absent argument; the result is the frame's JSON text or `null`.
pub fn plan_update_json(args: Option<&str>, result_display: Option<&str>) -> Result<String> {
    let parse = |text: Option<&str>, what: &str| -> Result<Option<OwnedValue>> {
        text.map(|t| parse_json(t, &format!("plan: {what}")))
            .transpose()
    };
    let args = parse(args, "args")?;
    let display = parse(result_display, "resultDisplay")?;
    Ok(frame_json(
        plan_update(args.as_ref(), display.as_ref()).as_ref(),
    ))
}
