//! A non-streaming OpenAI `ChatCompletion` body → one Gemini response:
//! `convertOpenAIResponseToGemini` (0.24.4: `convertOpenAIResponseToLlm`,
//! identical), in `packages/core/src/core/openaiContentGenerator/converter.ts`
//! (docs/behaviour.md §3.4). What both providers' bodies share is
//! `crate::convert::nonstream`.

use crate::convert::nonstream::{
    call_part, invalid, iterate, present, safe_args, text_part, value_text, write_content,
    write_model_and_feedback, write_response_id, BodyOptions, BodyResponse,
};
use crate::convert::openai::tagged::TaggedThinkingParser;
use crate::convert::openai::ResponseParsing;
use crate::foundations::error::Error;
use crate::foundations::js_text::js_to_string;
use crate::foundations::json::{self, Value};
use crate::model::clock::now_ms;
use crate::model::gemini::Part;
use crate::model::usage_metadata::{self, Count};
use crate::model::usage_provenance::UsageProvenance;

/// An OpenAI `ChatCompletion` (JSON text) → the response's JSON text.
pub fn openai_response(text: &str, options: &BodyOptions) -> Result<BodyResponse, Error> {
    openai_response_at(text, options, now_ms())
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
        out.push_str(super::map_finish_reason(finish, options.profile));
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
        usage_provenance = Some(UsageProvenance::cached(
            is_number(usage.at("prompt_tokens_details").at("cached_tokens"))
                || is_number(usage.at("cached_tokens")),
        ));
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
}
