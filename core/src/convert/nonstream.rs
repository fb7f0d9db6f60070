//! Non-streaming responses: one body → one Gemini response, as Qwen Code
//! converts the answer of a non-streaming request. Each provider's body is
//! converted in its own folder (`anthropic/body.rs`, `openai/body.rs`); this
//! module holds what they share: the options, the result, and the
//! reference's helpers both converters use.
//!
//! The result ([`BodyResponse`]) is the response as the reference's
//! `JSON.stringify` shows it, in its key order, with what the reference
//! attaches out of band: the provenance of its `usageMetadata`
//! (`setGenAiUsageProvenance`, in both converters at both releases) and,
//! for OpenAI, which part is the message's reasoning
//! (`createOpenAIReasoningThoughtPart`). There are no preparations on this
//! path.
//!
//! Where the reference would throw a `TypeError` (a `null` body, a
//! `content` that is not iterable, a `null` block, a choice without a
//! message, …) the body is `INVALID_RESPONSE`; a body that is not a JSON
//! object is too (the reference converts a number or an array to an empty
//! response, a `null` body throws). Token counts are used as the
//! reference uses them: written as sent (`x || 0`), added with JS `+` (a
//! string count concatenates) and compared as JS compares.

use std::borrow::Cow;

use crate::convert::openai::response_parsing::ResponseParsing;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{self, Value};
use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;
use crate::foundations::repair::safe_json_parse;
use crate::model::usage_provenance::UsageProvenance;

/// Options of one non-streaming conversion.
#[derive(Clone, Debug, Default)]
pub struct BodyOptions {
    /// One of the provider's own (its `PROVIDERS` row), which
    /// `Provider::convert_body` checks. Anthropic: 0.24.4 also maps
    /// `refusal` to `SAFETY`. OpenAI: no difference between the releases.
    pub profile: Profile,
    /// `max_repair_depth` bounds the repair of string tool arguments.
    pub limits: Limits,
    /// OpenAI: `tagged_thinking` (`taggedThinkingTags`) parses
    /// `<think>…</think>` in the content into thought parts. The other
    /// options are stream-only.
    pub parsing: ResponseParsing,
}

/// One converted body: the response's JSON text and its out-of-band
/// annotations, written to JS as one full item of the wire protocol
/// (`crate::wire::write_body_item`).
#[derive(Clone, Debug, PartialEq)]
pub struct BodyResponse {
    /// The response as the reference's `JSON.stringify` shows it.
    pub json: String,
    /// The provenance of its `usageMetadata` (`None`: no usage).
    pub usage_provenance: Option<UsageProvenance>,
    /// The indexes of its parts made by `createOpenAIReasoningThoughtPart`
    /// (OpenAI: the message's `reasoning_content` / `reasoning`).
    pub reasoning_parts: Vec<usize>,
}

/// A response body's bytes as the SDKs read them (`Response.json()`: UTF-8
/// with a leading byte order mark removed and invalid sequences replaced
/// by U+FFFD).
pub fn body_text(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes)
}

/// `safeJsonParse(text, {})` of a JSON string's value, as JSON text.
pub(crate) fn safe_args(s: json::JStr<'_>, limits: &Limits) -> Result<String, Error> {
    // Lone surrogates stay escapes, as JS would parse them.
    let (text, lone) = s.json_text();
    Ok(
        match safe_json_parse(&text, &lone, limits.max_repair_depth)? {
            Some((parsed, _)) => parsed.into_owned(),
            None => "{}".to_owned(),
        },
    )
}

/// `for (const x of value)` over a value that was truthy-checked or
/// `|| []`-defaulted: an array's items; a string's characters, which
/// are never blocks or calls; anything else is not iterable.
pub(crate) fn iterate<'v, 'a>(value: &'v Value<'a>, what: &str) -> Result<&'v [Value<'a>], Error> {
    match value {
        Value::Arr(items) => Ok(items),
        v if !v.truthy() => Ok(&[]),
        Value::Str(_) => Ok(&[]),
        _ => Err(invalid(&format!("{what} is not an array"))),
    }
}

/// `x ?? …` reads: present and not null.
pub(crate) fn present<'v, 'a>(v: Option<&'v Value<'a>>) -> Option<&'v Value<'a>> {
    v.filter(|v| !v.is_null())
}

/// A JSON string literal from its source: lone surrogate escapes kept.
pub(crate) fn raw_string(s: json::JStr<'_>) -> String {
    let mut out = String::with_capacity(s.raw().len() + 2);
    out.push('"');
    out.push_str(s.raw());
    out.push('"');
    out
}

/// A value as JSON text (a string from its source).
pub(crate) fn value_text(v: &Value<'_>) -> String {
    match v {
        Value::Str(s) => raw_string(*s),
        v => {
            let mut out = String::new();
            json::stringify(v, &mut out);
            out
        }
    }
}

pub(crate) fn text_part(text_json: &str, thought: bool) -> String {
    let mut out = String::with_capacity(text_json.len() + 24);
    out.push_str("{\"text\":");
    out.push_str(text_json);
    if thought {
        out.push_str(",\"thought\":true");
    }
    out.push('}');
    out
}

/// `responseId` from the body's `id`, when it has one (both converters).
pub(crate) fn write_response_id(body: &Value<'_>, out: &mut String) {
    if let Some(id) = body.get("id") {
        out.push_str(",\"responseId\":");
        json::stringify(id, out);
    }
}

/// `modelVersion` from a truthy `model`, then the empty `promptFeedback`
/// (both converters, in the reference's key order).
pub(crate) fn write_model_and_feedback(body: &Value<'_>, out: &mut String) {
    let model = body.at("model");
    if model.truthy() {
        out.push_str(",\"modelVersion\":");
        json::stringify(model, out);
    }
    out.push_str(",\"promptFeedback\":{\"safetyRatings\":[]}");
}

pub(crate) fn call_part(id: Option<&str>, name: Option<&str>, args: &str) -> String {
    let mut out = String::with_capacity(args.len() + 64);
    crate::model::gemini::write_function_call(&mut out, id, name, args);
    out
}

/// `{"content":{"parts":[…],"role":"model"}` (the candidate left open).
pub(crate) fn write_content(out: &mut String, parts: &[String]) {
    out.push_str("{\"content\":{\"parts\":[");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(p);
    }
    out.push_str("],\"role\":\"model\"}");
}

pub(crate) fn invalid(message: &str) -> Error {
    Error::new(ErrorCode::InvalidResponse, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::anthropic::body::{anthropic_response, anthropic_response_at};
    use crate::convert::openai::body::openai_response;

    #[test]
    fn bom_is_dropped_and_bad_bytes_replaced() {
        assert_eq!(body_text(b"\xEF\xBB\xBF{}"), "{}");
        assert_eq!(body_text(b"\"\xff\""), "\"\u{FFFD}\"");
    }

    #[test]
    fn non_objects_and_uniterable_content_are_invalid_responses() {
        let o = BodyOptions::default();
        for text in ["null", "5", "[]", "\"x\""] {
            let e = anthropic_response(text, &o).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidResponse, "{text}");
            let e = openai_response(text, &o).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidResponse, "{text}");
        }
        for text in [
            r#"{"content":{}}"#,
            r#"{"content":[null]}"#,
            r#"{"content":5}"#,
        ] {
            let e = anthropic_response(text, &o).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidResponse, "{text}");
        }
        for text in [
            r#"{"choices":[{}]}"#,
            r#"{"choices":[5]}"#,
            r#"{"choices":[{"message":{"tool_calls":{}}}]}"#,
            r#"{"choices":[{"message":{"tool_calls":[null]}}]}"#,
        ] {
            let e = openai_response(text, &o).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidResponse, "{text}");
        }
        assert_eq!(
            anthropic_response("{", &o).unwrap_err().code,
            ErrorCode::InvalidJson
        );
    }

    #[test]
    fn string_content_and_primitive_blocks_convert_to_nothing() {
        let o = BodyOptions::default();
        let r = anthropic_response_at(r#"{"content":"abc"}"#, &o, 7)
            .unwrap()
            .json;
        assert_eq!(
            r,
            r#"{"candidates":[{"content":{"parts":[],"role":"model"},"index":0,"safetyRatings":[]}],"createTime":"7","promptFeedback":{"safetyRatings":[]}}"#
        );
        let r = anthropic_response_at(r#"{"content":[1,"text",true,[]]}"#, &o, 7)
            .unwrap()
            .json;
        assert!(r.contains(r#""parts":[]"#), "{r}");
    }

    #[test]
    fn lone_surrogate_escapes_survive_in_text() {
        let o = BodyOptions::default();
        let r = anthropic_response_at(r#"{"content":[{"type":"text","text":"a\ud800b"}]}"#, &o, 7)
            .unwrap()
            .json;
        assert!(r.contains(r#"{"text":"a\ud800b"}"#), "{r}");
    }

    #[test]
    fn refusal_is_safety_only_under_0_24() {
        let text = r#"{"content":[],"stop_reason":"refusal"}"#;
        let r021 = anthropic_response_at(text, &BodyOptions::default(), 7)
            .unwrap()
            .json;
        assert!(r021.contains("FINISH_REASON_UNSPECIFIED"), "{r021}");
        let o = BodyOptions {
            profile: Profile::Qwen024,
            ..BodyOptions::default()
        };
        let r024 = anthropic_response_at(text, &o, 7).unwrap().json;
        assert!(r024.contains("\"SAFETY\""), "{r024}");
    }
}
