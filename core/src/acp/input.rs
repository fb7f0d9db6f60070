//! What the card ledger takes in from JS: a tool's start ([`ToolStart`]),
//! its result ([`ToolResult`]) and tool content, each given as JSON text and
//! checked here, so that the ledger only sees well-formed values.

use super::frames::{invalid, parse_json, JsString, OwnedValue, Result};

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
    pub(super) fn as_str(self) -> &'static str {
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
    /// A Qwen `Kind` or ACP kind, mapped by [`super::kinds::map_tool_kind`].
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
    pub(super) fn as_str(self) -> &'static str {
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
