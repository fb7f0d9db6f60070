//! The errors the reference throws for `response.failed` and `error`
//! events (`makeResponsesStreamError`, Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts):
//! an `Error` with the reference's message, `type` (the provider's type,
//! else its code), `code` (when truthy) and `status` (500 for
//! `server_error`, 429 for `rate_limit_exceeded`, from
//! `RESPONSES_ERROR_CODE_TO_STATUS`). Ours is `STREAM_ERROR` with the same
//! message; `providerError` holds those three fields as JSON, so a host
//! can throw what the reference throws, and `providerEvent` the event.

use super::js_read::{js_string, json, truthy};
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::Value;

/// `makeResponsesStreamError(message, code, type)` for the event `event`
/// (its JSON text).
pub(super) fn stream_error(
    message: String,
    code: Option<&Value<'_>>,
    kind: Option<&Value<'_>>,
    event: &str,
) -> Error {
    let mut e = Error::new(ErrorCode::StreamError, message);
    let mut fields = String::from("{");
    // `err.type = type ?? code`.
    let kind = match kind {
        None | Some(Value::Null) => code,
        some => some,
    };
    if let Some(kind) = json(kind) {
        fields.push_str("\"type\":");
        fields.push_str(&kind);
    }
    if truthy(code) {
        if fields.len() > 1 {
            fields.push(',');
        }
        fields.push_str("\"code\":");
        fields.push_str(&json(code).unwrap_or_default());
        // `RESPONSES_ERROR_CODE_TO_STATUS[code]`, the code as a property key
        // (a code naming an inherited property, such as `constructor`, gives
        // Qwen's error a function as its status; here it has none).
        let status = match js_string(code).as_str() {
            "server_error" => Some("500"),
            "rate_limit_exceeded" => Some("429"),
            _ => None,
        };
        if let Some(status) = status {
            fields.push_str(",\"status\":");
            fields.push_str(status);
        }
    }
    fields.push('}');
    e.provider_error = Some(fields.into());
    e.provider_event = Some(event.into());
    e
}
