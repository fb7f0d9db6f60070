//! The tool-card frames of docs/behaviour.md §6.2, keys in the order Qwen
//! Code writes them: the preparing start, the execution start, the
//! permission request's `toolCall`, the result and the discarded
//! preparation. The ledger ([`super::cards`]) decides which frame a card
//! gets; this module only builds it. A frame carries the tool name and the
//! title as [`super::bounded_text`] bounds them.

use super::bounded_text::{bounded_name, card_title};
use super::discard::{discarded_title, DiscardCause};
use super::frames::{JsString, OwnedValue, SessionUpdate};
use super::input::{Location, ResultStatus, ToolStart};
use super::kinds::{map_tool_kind, tool_provenance};

/// `_meta` of a tool frame, keys in the order of docs/behaviour.md §6.2: the tool name
/// (under Qwen's `toolName`, then Zed's `tool_name`, the one key Zed reads),
/// then the preparing marker, then provenance.
pub(super) fn tool_meta(tool_name: &JsString, preparing: bool) -> OwnedValue {
    let name = bounded_name(tool_name);
    let mut meta = vec![
        ("toolName", OwnedValue::from(&name)),
        ("tool_name", OwnedValue::from(name)),
    ];
    if preparing {
        meta.push(("phase", "preparing".into()));
    }
    meta.extend(provenance_meta(tool_name));
    OwnedValue::object(meta)
}

/// `_meta` of a discarded preparation: [`tool_meta`]'s, with the cause after
/// `preparationDiscarded` when it is known.
fn discarded_meta(tool_name: &JsString, cause: Option<&DiscardCause>) -> OwnedValue {
    let name = bounded_name(tool_name);
    let mut meta = vec![
        ("toolName", OwnedValue::from(&name)),
        ("tool_name", OwnedValue::from(name)),
        ("phase", "preparing".into()),
        ("preparationDiscarded", true.into()),
    ];
    if let Some(cause) = cause {
        meta.push(("discardReason", cause.reason.as_str().into()));
        if let Some(ms) = cause.idle_limit() {
            meta.push(("idleLimitMs", OwnedValue::from(ms as f64)));
        }
    }
    meta.extend(provenance_meta(tool_name));
    OwnedValue::object(meta)
}

/// `_meta.provenance`, and `_meta.serverId` for an MCP tool (read from the
/// whole name, the server's name bounded as a tool name is).
fn provenance_meta(tool_name: &JsString) -> Vec<(&'static str, OwnedValue)> {
    let p = tool_provenance(tool_name.escaped());
    let mut meta = vec![("provenance", p.provenance.into())];
    if let Some(server) = p.server_id {
        let server = JsString::from_escaped_unchecked(server);
        meta.push(("serverId", bounded_name(&server).into()));
    }
    meta
}

pub(super) fn locations_json(locations: &[Location]) -> OwnedValue {
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

pub(super) fn text_content(text: &JsString) -> OwnedValue {
    OwnedValue::object([
        ("type", "content".into()),
        (
            "content",
            OwnedValue::object([("type", "text".into()), ("text", text.into())]),
        ),
    ])
}

/// The card title (see [`card_title`]).
fn title(title: Option<&JsString>, tool_name: &JsString) -> OwnedValue {
    card_title(title, tool_name).into()
}

/// ACP's `name` (the Tool Call Name RFD, in the v1 schema of
/// `@agentclientprotocol/sdk`): the tool's programmatic name, bounded.
fn name(tool_name: &JsString) -> OwnedValue {
    bounded_name(tool_name).into()
}

/// The ACP kind, see [`super::kinds::map_tool_kind`].
fn kind(tool_name: &JsString, kind: Option<&JsString>) -> OwnedValue {
    map_tool_kind(tool_name.escaped(), kind.map(JsString::escaped)).into()
}

/// docs/behaviour.md §6.2 "Discarded preparation": no kind, rawInput or
/// rawOutput, and a title that says the call did not run and why
/// ([`super::discard`]), built on the card's own title (`title`, else the
/// tool name, bounded as every card title is). The cause, when known, is
/// `_meta.discardReason` (and an idle timeout's limit `_meta.idleLimitMs`),
/// after `preparationDiscarded`.
pub(super) fn discarded_frame(
    call_id: &JsString,
    tool_name: &JsString,
    title: Option<&JsString>,
    cause: Option<&DiscardCause>,
) -> SessionUpdate {
    OwnedValue::object([
        ("sessionUpdate", "tool_call_update".into()),
        ("toolCallId", call_id.into()),
        ("status", "failed".into()),
        (
            "title",
            discarded_title(&card_title(title, tool_name), cause).into(),
        ),
        ("content", OwnedValue::Arr(Vec::new())),
        ("_meta", discarded_meta(tool_name, cause)),
    ])
}

/// docs/behaviour.md §6.2 "Result" / "Error".
pub(super) fn result_frame(
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
        ("_meta", tool_meta(tool_name, false)),
    ];
    if let Some(raw) = raw_output {
        f.push(("rawOutput", raw));
    }
    OwnedValue::object(f)
}

/// docs/behaviour.md §6.2 preparing start: a `tool_call`, `pending`, with no
/// locations and `rawInput: {}`, and ACP's `name` after the title.
pub(super) fn preparing_frame(
    call_id: &JsString,
    tool_name: &JsString,
    title: Option<&JsString>,
    kind: Option<&JsString>,
) -> SessionUpdate {
    OwnedValue::object([
        ("sessionUpdate", "tool_call".into()),
        ("toolCallId", call_id.into()),
        ("status", "pending".into()),
        ("title", self::title(title, tool_name)),
        ("name", self::name(tool_name)),
        ("content", OwnedValue::Arr(Vec::new())),
        ("locations", OwnedValue::Arr(Vec::new())),
        ("kind", self::kind(tool_name, kind)),
        // Never partial arguments (design: "It never contains partial
        // arguments").
        ("rawInput", OwnedValue::Obj(Vec::new())),
        ("_meta", tool_meta(tool_name, true)),
    ])
}

/// docs/behaviour.md §6.2 "Execution start": a `tool_call_update` of a card
/// already open (`update`), else a new `tool_call`, with the full field set.
/// ACP's `name` goes on the `tool_call`, and on the update only when
/// `renamed` (the card was opened under another name): an update carries
/// the fields that change.
pub(super) fn start_frame(start: &ToolStart, update: bool, renamed: bool) -> SessionUpdate {
    let session_update = if update {
        "tool_call_update"
    } else {
        "tool_call"
    };
    let mut f = vec![
        ("sessionUpdate", session_update.into()),
        ("toolCallId", (&start.call_id).into()),
        ("status", start.status.as_str().into()),
        ("title", title(start.title.as_ref(), &start.tool_name)),
    ];
    if !update || renamed {
        f.push(("name", name(&start.tool_name)));
    }
    f.extend([
        ("content", OwnedValue::Arr(Vec::new())),
        ("locations", locations_json(&start.locations)),
        ("kind", kind(&start.tool_name, start.kind.as_ref())),
        ("rawInput", start.raw_input.clone()),
        ("_meta", tool_meta(&start.tool_name, false)),
    ]);
    OwnedValue::object(f)
}

/// The `toolCall` of a `session/request_permission` request (Qwen Code's
/// `packages/cli/src/acp-integration/session/Session.ts`, `runTool`): always
/// `pending`, `_meta` with the tool name only. ACP's `name` only when
/// `named`: the request opens the card (no card was open for the call), or
/// the card was opened under another name.
pub(super) fn permission_tool_call(
    start: &ToolStart,
    content: Vec<OwnedValue>,
    named: bool,
) -> OwnedValue {
    let tool_name = bounded_name(&start.tool_name);
    let mut f = vec![
        ("toolCallId", (&start.call_id).into()),
        ("status", "pending".into()),
        ("title", title(start.title.as_ref(), &start.tool_name)),
    ];
    if named {
        f.push(("name", OwnedValue::from(&tool_name)));
    }
    f.extend([
        ("content", OwnedValue::Arr(content)),
        ("locations", locations_json(&start.locations)),
        ("kind", kind(&start.tool_name, start.kind.as_ref())),
        ("rawInput", start.raw_input.clone()),
        (
            "_meta",
            OwnedValue::object([
                ("toolName", OwnedValue::from(&tool_name)),
                ("tool_name", OwnedValue::from(tool_name)),
            ]),
        ),
    ]);
    OwnedValue::object(f)
}
