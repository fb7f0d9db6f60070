//! What the ACP modules share: the frame type, the one error type and
//! result, and JSON in and out. Frames are written by [`frame_json`] /
//! [`frames_json`] exactly as `JSON.stringify` writes them; JSON that comes
//! in is read by the converters' parser (`parse_json`).

use crate::foundations::error::{Error, ErrorCode};
pub use crate::foundations::json::{JsString, OwnedValue};

/// An ACP `session/update` payload: the value of `params.update`.
pub type SessionUpdate = OwnedValue;

/// Bad input from the caller: the core's one error type, code
/// `INVALID_ARGUMENT` (the JS `Error.code`).
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidArgument, message)
}

/// The result of every fallible ledger call: errors are the core's one
/// [`Error`] type.
pub type Result<T> = std::result::Result<T, Error>;

/// A JSON text from JS, read with the converters' semantics (`crate::foundations::json`:
/// `JSON.parse`'s grammar, the last duplicate key wins in the first one's
/// place), as an owned value. Strings keep lone UTF-16 surrogates
/// ([`JsString`]); a number is what `JSON.stringify(JSON.parse(text))`
/// writes (`-0` is `0`, out-of-range is `null`). Values JS passes through
/// untouched (`rawInput`, tool content, `rawOutput`) never cross
/// (lib/acp/), so native code never limits their nesting.
pub(crate) fn parse_json(text: &str, what: &str) -> Result<OwnedValue> {
    OwnedValue::parse(text).map_err(|e| invalid(format!("{what}: {}", e.message)))
}

/// One optional frame as JSON text (`null` for none): the binding returns
/// this so JS does a single `JSON.parse`.
pub fn frame_json(frame: Option<&SessionUpdate>) -> String {
    frame.map_or_else(|| "null".to_string(), SessionUpdate::to_json)
}

/// Frames as one JSON array text.
pub fn frames_json(frames: &[SessionUpdate]) -> String {
    let mut out = String::from("[");
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        f.write(&mut out);
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
        // The last duplicate wins, in the first one's place; a lone
        // surrogate stays what it is.
        assert_eq!(
            v.to_json(),
            r#"{"b":3,"a":2,"s":"x\ud800y","n":[1,0,null,0.5]}"#
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
