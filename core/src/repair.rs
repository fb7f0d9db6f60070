//! Argument parsing with the reference's repair semantics (spec §2.6,
//! §3.3.5): `JSON.parse`, else `jsonrepair` then `JSON.parse`, else a
//! fallback. Results are JSON text for JS to parse once, never re-encoded.

use std::borrow::Cow;

use crate::error::{Error, ErrorCode};
use crate::json::{validate, Kind};

/// The outcome of [`safe_json_parse`]: valid JSON text and its kind, or
/// `None` where the reference returns its fallback `{}`.
pub type Parsed<'a> = Option<(Cow<'a, str>, Kind)>;

/// `safeJsonParse(text, {})` (utils/safeJsonParse.ts). `max_depth` bounds the
/// nesting handed to the repairer (it recurses); deeper broken input is a
/// `LIMIT_EXCEEDED` error rather than a risk to the stack.
pub fn safe_json_parse(text: &str, max_depth: usize) -> Result<Parsed<'_>, Error> {
    if text.is_empty() {
        return Ok(None);
    }
    if let Some(kind) = validate(text) {
        return Ok(Some((Cow::Borrowed(text), kind)));
    }
    if nesting_depth(text) > max_depth {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("tool arguments nest deeper than the repair limit of {max_depth} levels"),
        ));
    }
    let repaired = std::panic::catch_unwind(|| jsonrepair_rs::jsonrepair(text));
    Ok(match repaired {
        Ok(Ok(fixed)) => validate(&fixed).map(|kind| (Cow::Owned(fixed), kind)),
        _ => None,
    })
}

/// The deepest bracket nesting outside string literals.
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in text.as_bytes() {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(text: &str) -> Option<String> {
        safe_json_parse(text, 512)
            .unwrap()
            .map(|(t, _)| t.into_owned())
    }

    #[test]
    fn valid_json_passes_through_verbatim() {
        assert_eq!(repaired(r#"{"a": 1}"#).as_deref(), Some(r#"{"a": 1}"#));
        assert_eq!(repaired("5").as_deref(), Some("5"));
        assert_eq!(repaired(""), None);
    }

    #[test]
    fn truncated_and_sloppy_json_is_repaired_like_jsonrepair() {
        let v: serde_json::Value = serde_json::from_str(&repaired(r#"{"a":"x"#).unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"a": "x"}));
        let v: serde_json::Value =
            serde_json::from_str(&repaired(r#"{"valid":"data","invalid": }"#).unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"valid": "data", "invalid": null}));
        let v: serde_json::Value =
            serde_json::from_str(&repaired("{'old': 'a', new: 'b',}").unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"old": "a", "new": "b"}));
    }

    #[test]
    fn deep_broken_input_is_a_limit_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert_eq!(
            safe_json_parse(&deep, 512).unwrap_err().code,
            ErrorCode::LimitExceeded
        );
    }
}
