//! The ACP tool-card lifecycle: which cards are open in a session (the
//! ledger, [`cards`]), which preparations one model stream has shown
//! ([`tracker`]), and the per-attempt tool-call id normalisation that makes a
//! preparation and its complete call share one `toolCallId` ([`ids`]).
//!
//! Frames are ACP `session/update` payloads (the `update` object), built as
//! `serde_json::Value` trees with insertion-ordered keys so the key order of
//! docs/behaviour.md §6.2 survives to the wire, where only `JSON.parse`
//! reads them. JSON that comes *in* is read by the converters' parser
//! ([`parse_json`], `crate::json`), not by serde_json: one set of JSON
//! semantics for everything that crosses from JS. Nothing here knows about
//! napi or JS.

pub mod cards;
pub mod ids;
pub mod tracker;

pub use cards::{
    map_tool_kind, plan_update, plan_update_json, tool_content_from_json, tool_provenance,
    CardPhase, Location, Provenance, ResultStatus, StartStatus, ToolCallCards, ToolResult,
    ToolStart, DEFAULT_SUPPRESSED_TOOLS,
};
pub use ids::ToolCallIds;
pub use tracker::{Preparation, PreparationTracker};

use crate::error::{Error, ErrorCode};

/// An ACP `session/update` payload: the value of `params.update`.
pub type SessionUpdate = serde_json::Value;

/// Bad input from the caller: the core's one error type, code
/// `INVALID_ARGUMENT` (the JS `Error.code`).
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidArgument, message)
}

pub type Result<T> = std::result::Result<T, Error>;

/// A JSON text from JS, read with the converters' semantics (`crate::json`:
/// `JSON.parse`'s grammar, the last duplicate key wins in the first one's
/// place), as a frame-tree value. As everywhere in the core, a lone UTF-16
/// surrogate in a string (which a Rust string cannot hold) becomes U+FFFD;
/// a number is what `JSON.stringify(JSON.parse(text))` writes (`-0` is `0`,
/// out-of-range is `null`). Values JS passes through untouched (`rawInput`,
/// tool content, `rawOutput`) never cross (lib/acp.js), so they keep their
/// exact strings and any nesting.
pub(crate) fn parse_json(text: &str, what: &str) -> Result<serde_json::Value> {
    let dom = crate::json::parse(text).map_err(|e| invalid(format!("{what}: {}", e.message)))?;
    Ok(to_tree(&dom))
}

fn to_tree(v: &crate::json::Value<'_>) -> serde_json::Value {
    use crate::json::Value as J;
    use serde_json::Value as T;
    match v {
        J::Null => T::Null,
        J::Bool(b) => T::Bool(*b),
        J::Num(_) => number(v.as_f64().unwrap_or(f64::NAN)),
        J::Str(s) => T::String(s.value().into_owned()),
        J::Arr(items) => T::Array(items.iter().map(to_tree).collect()),
        J::Obj(entries) => {
            let mut map = serde_json::Map::new();
            for (k, item) in entries {
                // serde_json's ordered insert keeps an existing key's place.
                map.insert(k.value().into_owned(), to_tree(item));
            }
            T::Object(map)
        }
    }
}

/// A JS number as `JSON.stringify` writes it: integers as integers.
fn number(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

/// One optional frame as JSON text (`null` for none): the binding returns
/// this so JS does a single `JSON.parse`.
pub fn frame_json(frame: Option<&SessionUpdate>) -> String {
    frame.map_or_else(|| "null".to_string(), SessionUpdate::to_string)
}

/// Frames as one JSON array text.
pub fn frames_json(frames: &[SessionUpdate]) -> String {
    let mut out = String::from("[");
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&f.to_string());
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::parse_json;

    #[test]
    fn incoming_json_is_read_with_the_converters_semantics() {
        let v = parse_json(
            r#"{"b":1,"a":2,"b":3,"s":"x\ud800y","n":[1.0,-0,1e400,0.5]}"#,
            "t",
        )
        .unwrap();
        // The last duplicate wins, in the first one's place.
        assert_eq!(
            v.to_string(),
            r#"{"b":3,"a":2,"s":"x�y","n":[1,0,null,0.5]}"#
        );
        let deep = format!("{}{}", "[".repeat(400), "]".repeat(400));
        assert!(
            parse_json(&deep, "t").is_ok(),
            "deeper than serde_json's 128"
        );
        let e = parse_json("{", "observe").unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidArgument);
        assert!(
            e.message.starts_with("observe: invalid JSON"),
            "{}",
            e.message
        );
    }
}
