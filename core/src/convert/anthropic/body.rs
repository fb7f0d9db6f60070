//! A non-streaming Anthropic `Message` body → one Gemini response:
//! `AnthropicContentConverter.convertAnthropicResponseToGemini` (0.24.4:
//! `convertAnthropicResponseToLlm`, the same code but for the finish
//! mapping), in `packages/core/src/core/anthropicContentGenerator/converter.ts`;
//! used by `AnthropicContentGenerator.generateContent` and by
//! `processStreamWithEmptyFallback` (docs/behaviour.md §2.7). What both
//! providers' bodies share is `crate::convert::nonstream`.

use crate::convert::nonstream::{
    call_part, invalid, iterate, raw_string, safe_args, text_part, write_content,
    write_model_and_feedback, write_response_id, BodyOptions, BodyResponse,
};
use crate::foundations::error::Error;
use crate::foundations::js_text::js_to_string;
use crate::foundations::js_value::JsValue;
use crate::foundations::json::{self, Value};
use crate::foundations::limits::Limits;
use crate::model::clock::now_ms;
use crate::model::usage_metadata::{self};
use crate::model::usage_provenance::UsageProvenance;

/// An Anthropic `Message` (JSON text) → the response's JSON text.
pub fn anthropic_response(text: &str, options: &BodyOptions) -> Result<BodyResponse, Error> {
    anthropic_response_at(text, options, now_ms())
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
        out.push_str(super::map_finish_reason(
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
    UsageProvenance::with_cache_creation(
        matches!(usage.at("cache_read_input_tokens"), Value::Num(_)),
        cache_creation_reported.then(|| cache_creation.as_number()),
    )
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
