//! Non-streaming responses: one Anthropic `Message` body or one OpenAI
//! `ChatCompletion` body → one Gemini response, as Qwen Code converts the
//! answer of a non-streaming request:
//!
//! - Anthropic: `AnthropicContentConverter.convertAnthropicResponseToGemini`
//!   (0.24.4: `convertAnthropicResponseToLlm`, the same code but for the
//!   finish mapping), in
//!   `packages/core/src/core/anthropicContentGenerator/converter.ts`; used by
//!   `AnthropicContentGenerator.generateContent` and by
//!   `processStreamWithEmptyFallback` (docs/behaviour.md §2.7).
//! - OpenAI: `convertOpenAIResponseToGemini` (0.24.4:
//!   `convertOpenAIResponseToLlm`, identical), in
//!   `packages/core/src/core/openaiContentGenerator/converter.ts` (docs/behaviour.md §3.4).
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

use crate::convert::anthropic;
use crate::convert::openai::tagged::TaggedThinkingParser;
use crate::convert::openai::{self, ResponseParsing};
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::js_to_string;
use crate::foundations::js_value::JsValue;
use crate::foundations::json::{self, Value};
use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;
use crate::foundations::repair::safe_json_parse;
use crate::model::gemini::{now_ms, Part, UsageProvenance};
use crate::model::usage_metadata::{self, Count};

/// Options of one non-streaming conversion.
#[derive(Clone, Debug, Default)]
pub struct BodyOptions {
    /// Anthropic: 0.24.4 also maps `refusal` to `SAFETY`. OpenAI: no
    /// difference between the releases.
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

/// An Anthropic `Message` (JSON text) → the response's JSON text.
pub fn anthropic_response(text: &str, options: &BodyOptions) -> Result<BodyResponse, Error> {
    anthropic_response_at(text, options, now_ms())
}

/// An OpenAI `ChatCompletion` (JSON text) → the response's JSON text.
pub fn openai_response(text: &str, options: &BodyOptions) -> Result<BodyResponse, Error> {
    openai_response_at(text, options, now_ms())
}

/// [`anthropic_response`] with the clock's `Date.now()` given.
pub fn anthropic_response_at(
    text: &str,
    options: &BodyOptions,
    now_ms: u64,
) -> Result<BodyResponse, Error> {
    let body = json::parse(text)?;
    if !body.is_object() {
        return Err(invalid("an Anthropic Message body must be a JSON object"));
    }
    let mut parts = Vec::new();
    for block in iterate(body.at("content"), "content")? {
        let Value::Obj(_) = block else {
            if block.is_null() {
                return Err(invalid("content holds a null block"));
            }
            // A primitive has no `type`: `String(undefined || "")` matches nothing.
            continue;
        };
        let ty = block.at("type");
        let kind = if ty.truthy() {
            js_to_string(ty)
        } else {
            String::new()
        };
        match kind.as_str() {
            "text" => {
                if let Some(text) = block.at("text").as_jstr().filter(|t| !t.is_empty()) {
                    parts.push(text_part(&raw_string(text), false));
                }
            }
            "tool_use" => {
                let id = block.get("id").and_then(Value::as_jstr).map(raw_string);
                let name = block.get("name").and_then(Value::as_jstr).map(raw_string);
                let args = safe_input_to_args(block.get("input"), &options.limits)?;
                parts.push(call_part(id.as_deref(), name.as_deref(), &args));
            }
            "thinking" => {
                let thinking = block.at("thinking").as_jstr().filter(|t| !t.is_empty());
                let signature = block.at("signature").as_jstr().filter(|t| !t.is_empty());
                if thinking.is_some() || signature.is_some() {
                    let mut part = String::from("{\"text\":");
                    part.push_str(&thinking.map_or_else(|| "\"\"".to_owned(), raw_string));
                    part.push_str(",\"thought\":true,\"thoughtSignature\":");
                    part.push_str(&signature.map_or_else(|| "\"\"".to_owned(), raw_string));
                    part.push('}');
                    parts.push(part);
                }
            }
            "redacted_thinking" => parts.push(text_part("\"\"", true)),
            _ => {}
        }
    }

    let mut out = String::with_capacity(256 + parts.iter().map(String::len).sum::<usize>());
    out.push_str("{\"candidates\":[");
    write_content(&mut out, &parts);
    out.push_str(",\"index\":0,\"safetyRatings\":[]");
    let stop = body.at("stop_reason");
    if stop.truthy() {
        out.push_str(",\"finishReason\":\"");
        out.push_str(anthropic::map_finish_reason(
            &js_to_string(stop),
            options.profile,
        ));
        out.push('"');
    }
    out.push_str("}]");
    write_response_id(&body, &mut out);
    out.push_str(",\"createTime\":\"");
    out.push_str(&now_ms.to_string());
    out.push('"');
    write_model_and_feedback(&body, &mut out);
    let usage = body.at("usage");
    let mut usage_provenance = None;
    if usage.truthy() {
        out.push_str(",\"usageMetadata\":");
        usage_provenance = Some(anthropic_usage(usage, &mut out));
    }
    out.push('}');
    Ok(BodyResponse {
        json: out,
        usage_provenance,
        reasoning_parts: Vec::new(),
    })
}

/// `buildAnthropicUsageMetadata` over the body's usage, each count `|| 0`
/// (docs/behaviour.md §2.5); the output count is always a number here.
/// Returns the provenance it attaches: `cache_read_input_tokens` is a
/// number, and the cache-creation count when that is a number.
fn anthropic_usage(usage: &Value<'_>, out: &mut String) -> UsageProvenance {
    // `x || 0`: a count as the body sent it (a string stays a string, and
    // `+` concatenates it, as `buildAnthropicUsageMetadata` does).
    let count = |key| {
        let v = usage.at(key);
        if v.truthy() {
            JsValue::of(v)
        } else {
            JsValue::number(0.0)
        }
    };
    let input = count("input_tokens");
    let cache_read = count("cache_read_input_tokens");
    let cache_creation = count("cache_creation_input_tokens");
    let output = count("output_tokens");
    let cache_creation_reported = matches!(usage.at("cache_creation_input_tokens"), Value::Num(_));
    out.push_str(&usage_metadata::anthropic(
        &input,
        &cache_read,
        &cache_creation,
        cache_creation_reported,
        Some(&output),
    ));
    UsageProvenance::Anthropic {
        cached_input_tokens_reported: matches!(usage.at("cache_read_input_tokens"), Value::Num(_)),
        cache_creation_input_tokens: cache_creation_reported.then(|| cache_creation.as_number()),
    }
}

/// `safeInputToArgs(input)`: an object (or array) as it is, a string
/// through `safeJsonParse(input, {})`, anything else `{}`.
fn safe_input_to_args(input: Option<&Value<'_>>, limits: &Limits) -> Result<String, Error> {
    match input {
        Some(v @ (Value::Obj(_) | Value::Arr(_))) => {
            let mut s = String::new();
            json::stringify(v, &mut s);
            Ok(s)
        }
        Some(Value::Str(s)) => safe_args(*s, limits),
        _ => Ok("{}".to_owned()),
    }
}

/// `safeJsonParse(text, {})` of a JSON string's value, as JSON text.
fn safe_args(s: json::JStr<'_>, limits: &Limits) -> Result<String, Error> {
    // Lone surrogates stay escapes, as JS would parse them.
    let (text, lone) = s.json_text();
    Ok(
        match safe_json_parse(&text, &lone, limits.max_repair_depth)? {
            Some((parsed, _)) => parsed.into_owned(),
            None => "{}".to_owned(),
        },
    )
}

/// [`openai_response`] with the clock's `Date.now()` given.
pub fn openai_response_at(
    text: &str,
    options: &BodyOptions,
    now_ms: u64,
) -> Result<BodyResponse, Error> {
    let body = json::parse(text)?;
    if !body.is_object() {
        return Err(invalid(
            "an OpenAI ChatCompletion body must be a JSON object",
        ));
    }
    // `openaiResponse.choices?.[0]`
    let choice = match body.get("choices") {
        Some(Value::Arr(items)) => items.first(),
        Some(v @ Value::Obj(_)) => v.get("0"),
        Some(Value::Str(s)) if !s.is_empty() => {
            return Err(invalid("choices[0] has no message"));
        }
        _ => None,
    }
    .filter(|c| c.truthy());
    let mut out = String::with_capacity(512);
    out.push_str("{\"candidates\":[");
    let mut reasoning = None;
    let mut reasoning_parts = Vec::new();
    if let Some(choice) = choice {
        let message = match choice {
            Value::Obj(_) => choice.get("message").filter(|m| !m.is_null()),
            _ => None,
        }
        .ok_or_else(|| invalid("choices[0] has no message"))?;
        // `message?.reasoning_content ?? message?.reasoning`
        reasoning = present(message.get("reasoning_content")).or(present(message.get("reasoning")));
        let content = message.at("content");
        let text_parts = if content.truthy() {
            text_to_parts(content, options.parsing)
        } else {
            Vec::new()
        };
        let mut parts = Vec::with_capacity(text_parts.len() + 1);
        if let Some(r) = reasoning.filter(|r| r.truthy()) {
            if !text_parts.iter().any(|(_, thought)| *thought) {
                // `createOpenAIReasoningThoughtPart(reasoningText)`
                reasoning_parts.push(parts.len());
                parts.push(text_part(&value_text(r), true));
            }
        }
        parts.extend(text_parts.iter().map(|(t, thought)| text_part(t, *thought)));
        let calls = message.at("tool_calls");
        if calls.truthy() {
            for call in iterate(calls, "message.tool_calls")? {
                if call.is_null() {
                    return Err(invalid("message.tool_calls holds a null call"));
                }
                let function = call.at("function");
                if !function.truthy() {
                    continue;
                }
                let arguments = function.at("arguments");
                let args = match arguments {
                    Value::Str(s) if arguments.truthy() => safe_args(*s, &options.limits)?,
                    _ => "{}".to_owned(),
                };
                let id = call.get("id").map(value_text);
                let name = function.get("name").map(value_text);
                parts.push(call_part(id.as_deref(), name.as_deref(), &args));
            }
        }
        write_content(&mut out, &parts);
        // `choice.finish_reason || "stop"`
        let finish = choice.at("finish_reason");
        let stop = Value::Str(json::JStr::from_scanned("stop", false));
        let finish = if finish.truthy() { finish } else { &stop };
        out.push_str(",\"finishReason\":\"");
        out.push_str(openai::map_finish_reason(finish, options.profile));
        out.push_str("\",\"index\":0,\"safetyRatings\":[]}");
    }
    out.push(']');
    write_response_id(&body, &mut out);
    out.push_str(",\"createTime\":");
    let created = body.at("created");
    if created.truthy() {
        json::write_str(&mut out, &js_to_string(created));
    } else {
        out.push('"');
        out.push_str(&now_ms.to_string());
        out.push('"');
    }
    write_model_and_feedback(&body, &mut out);
    let usage = body.at("usage");
    let mut usage_provenance = None;
    if usage.truthy() {
        out.push_str(",\"usageMetadata\":");
        openai_usage(usage, reasoning, &mut out);
        // `cachedInputTokensReported`: a numeric
        // `prompt_tokens_details?.cached_tokens` or `cached_tokens`.
        let is_number = |v: &Value<'_>| matches!(v, Value::Num(_));
        usage_provenance = Some(UsageProvenance::OpenAI {
            cached_input_tokens_reported: is_number(
                usage.at("prompt_tokens_details").at("cached_tokens"),
            ) || is_number(usage.at("cached_tokens")),
        });
    }
    out.push('}');
    Ok(BodyResponse {
        json: out,
        usage_provenance,
        reasoning_parts,
    })
}

/// `convertOpenAITextToParts(content, requestContext)` with a fresh request
/// context: tagged thinking when `taggedThinkingTags` is on, else one text
/// part. Parts as (JSON text of the text, thought).
fn text_to_parts(content: &Value<'_>, parsing: ResponseParsing) -> Vec<(String, bool)> {
    if !parsing.tagged_thinking {
        return vec![(value_text(content), false)];
    }
    // The parser appends the content to its buffer (`String(content)`), a
    // string in the text form, so its lone surrogates stay.
    let text = match content {
        Value::Str(s) => s.text().into_owned(),
        v => js_to_string(v),
    };
    TaggedThinkingParser::default()
        .parse(&text, true)
        .into_iter()
        .filter_map(|p| match p {
            Part::Text { text, thought } => {
                let mut s = String::with_capacity(text.len() + 2);
                json::write_text(&mut s, &text);
                Some((s, thought))
            }
            _ => None,
        })
        .collect()
}

/// The non-streaming usage mapping (docs/behaviour.md §3.4: as in streaming, but the
/// reasoning estimate is taken from the message's reasoning text).
fn openai_usage(usage: &Value<'_>, reasoning: Option<&Value<'_>>, out: &mut String) {
    // `x || 0`, written as the value it is.
    let or_zero = |v: &Value<'_>| {
        if v.truthy() {
            value_text(v)
        } else {
            "0".to_owned()
        }
    };
    let prompt = or_zero(usage.at("prompt_tokens"));
    let completion = or_zero(usage.at("completion_tokens"));
    let total = or_zero(usage.at("total_tokens"));
    let cached = present(usage.at("prompt_tokens_details").get("cached_tokens"))
        .or(present(usage.get("cached_tokens")))
        .map_or_else(|| "0".to_owned(), value_text);
    let thoughts = match present(
        usage
            .at("completion_tokens_details")
            .get("reasoning_tokens"),
    ) {
        Some(v) => value_text(v),
        None => {
            let estimated = match reasoning {
                None => 0.0,
                Some(Value::Str(s)) => estimate_text_tokens(&s.value()),
                Some(v) if !v.truthy() => 0.0,
                // `text.length` of a non-string: NaN.
                Some(_) => f64::NAN,
            };
            usage_metadata::openai_estimated_thoughts(estimated, usage.at("completion_tokens"))
        }
    };
    let (total, cached, thoughts) = (
        (Count::Total, total.as_str()),
        (Count::Cached, cached.as_str()),
        (Count::Thoughts, thoughts.as_str()),
    );
    if usage_metadata::openai_has_breakdown(usage) {
        let prompt = (Count::Prompt, prompt.as_str());
        let completion = (Count::Candidates, completion.as_str());
        usage_metadata::write(out, &[prompt, completion, total, cached, thoughts]);
    } else {
        usage_metadata::write(out, &[total, cached, thoughts]);
    }
}

/// `estimateTextTokens` (packages/core/src/utils/request-tokenizer/
/// textTokenizer.ts): `ceil(ascii / 4 + nonAscii * 1.1)` in UTF-16 code
/// units, computed in doubles as JS does.
pub fn estimate_text_tokens(text: &str) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let mut ascii = 0usize;
    let mut non_ascii = 0usize;
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else {
            non_ascii += c.len_utf16();
        }
    }
    if non_ascii == 0 {
        return (ascii as f64 / 4.0).ceil();
    }
    (ascii as f64 / 4.0 + non_ascii as f64 * 1.1).ceil()
}

/// `for (const x of value)` over a value that was truthy-checked or
/// `|| []`-defaulted: an array's items; a string's characters, which
/// are never blocks or calls; anything else is not iterable.
fn iterate<'v, 'a>(value: &'v Value<'a>, what: &str) -> Result<&'v [Value<'a>], Error> {
    match value {
        Value::Arr(items) => Ok(items),
        v if !v.truthy() => Ok(&[]),
        Value::Str(_) => Ok(&[]),
        _ => Err(invalid(&format!("{what} is not an array"))),
    }
}

/// `x ?? …` reads: present and not null.
fn present<'v, 'a>(v: Option<&'v Value<'a>>) -> Option<&'v Value<'a>> {
    v.filter(|v| !v.is_null())
}

/// A JSON string literal from its source: lone surrogate escapes kept.
fn raw_string(s: json::JStr<'_>) -> String {
    let mut out = String::with_capacity(s.raw().len() + 2);
    out.push('"');
    out.push_str(s.raw());
    out.push('"');
    out
}

/// A value as JSON text (a string from its source).
fn value_text(v: &Value<'_>) -> String {
    match v {
        Value::Str(s) => raw_string(*s),
        v => {
            let mut out = String::new();
            json::stringify(v, &mut out);
            out
        }
    }
}

fn text_part(text_json: &str, thought: bool) -> String {
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
fn write_response_id(body: &Value<'_>, out: &mut String) {
    if let Some(id) = body.get("id") {
        out.push_str(",\"responseId\":");
        json::stringify(id, out);
    }
}

/// `modelVersion` from a truthy `model`, then the empty `promptFeedback`
/// (both converters, in the reference's key order).
fn write_model_and_feedback(body: &Value<'_>, out: &mut String) {
    let model = body.at("model");
    if model.truthy() {
        out.push_str(",\"modelVersion\":");
        json::stringify(model, out);
    }
    out.push_str(",\"promptFeedback\":{\"safetyRatings\":[]}");
}

fn call_part(id: Option<&str>, name: Option<&str>, args: &str) -> String {
    let mut out = String::with_capacity(args.len() + 64);
    crate::model::gemini::write_function_call(&mut out, id, name, args);
    out
}

/// `{"content":{"parts":[…],"role":"model"}` (the candidate left open).
fn write_content(out: &mut String, parts: &[String]) {
    out.push_str("{\"content\":{\"parts\":[");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(p);
    }
    out.push_str("],\"role\":\"model\"}");
}

fn invalid(message: &str) -> Error {
    Error::new(ErrorCode::InvalidResponse, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_follows_js_doubles() {
        assert_eq!(estimate_text_tokens(""), 0.0);
        assert_eq!(estimate_text_tokens("abcde"), 2.0);
        assert_eq!(estimate_text_tokens(&"é".repeat(3)), 4.0);
        // 2 / 4 + 25 × 1.1 is 28.000000000000004 in doubles: JS rounds it
        // up to 29 (the streaming estimate's exact units give 28).
        assert_eq!(estimate_text_tokens(&format!("ab{}", "é".repeat(25))), 29.0);
        assert_eq!(estimate_text_tokens("😀"), 3.0);
    }

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
