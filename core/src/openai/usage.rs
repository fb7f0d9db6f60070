//! The streaming usage mapping (docs/behaviour.md §3.2.6): a chunk's
//! `usage` as `usageMetadata`, with its provenance.

use super::OpenAIStream;
use crate::gemini::{Usage, UsageProvenance};
use crate::json::{self, Value};

/// Reasoning's estimated token units per token (`estimateTokenCount` of
/// the reference's streaming usage: UTF-16 units weighted by
/// [`super::text_delta::estimate_token_units`], over 20).
const TOKEN_ESTIMATE_UNITS_PER_TOKEN: f64 = 20.0;

impl OpenAIStream {
    /// Usage mapping (docs/behaviour.md §3.2.6, as 0.21.2 runs it), with the provenance
    /// the converter attaches (`cachedInputTokensReported`: a numeric
    /// `prompt_tokens_details.cached_tokens` or `cached_tokens`).
    pub(super) fn usage(&self, usage: &Value<'_>) -> Usage {
        let is_number = |v: &Value<'_>| matches!(v, Value::Num(_));
        Usage {
            json: self.usage_json(usage),
            provenance: UsageProvenance::OpenAI {
                cached_input_tokens_reported: is_number(
                    usage.at("prompt_tokens_details").at("cached_tokens"),
                ) || is_number(usage.at("cached_tokens")),
            },
        }
    }

    /// The counts are the chunk's values as they are (`usage.prompt_tokens
    /// || 0`: a count sent as a string stays that string), compared and
    /// passed to `Math.min` as JS numbers.
    pub(super) fn usage_json(&self, usage: &Value<'_>) -> String {
        // `x || 0`, written as the value it is.
        let or_zero = |v: &Value<'_>, out: &mut String| {
            if v.truthy() {
                json::stringify(v, out);
            } else {
                out.push('0');
            }
        };
        let prompt = usage.at("prompt_tokens");
        let completion = usage.at("completion_tokens");
        let total = usage.at("total_tokens");
        let reasoning = usage.at("completion_tokens_details").at("reasoning_tokens");
        let mut out = String::with_capacity(128);
        out.push('{');
        // `totalTokens === 0 || promptTokens !== 0 || completionTokens !== 0`:
        // a truthy count is never the number 0.
        if !total.truthy() || prompt.truthy() || completion.truthy() {
            out.push_str("\"promptTokenCount\":");
            or_zero(prompt, &mut out);
            out.push_str(",\"candidatesTokenCount\":");
            or_zero(completion, &mut out);
            out.push(',');
        }
        out.push_str("\"thoughtsTokenCount\":");
        // `providerReasoningTokens ?? …`: present and not null.
        if !reasoning.is_null() {
            json::stringify(reasoning, &mut out);
        } else {
            let estimated =
                (self.reasoning_state.token_units / TOKEN_ESTIMATE_UNITS_PER_TOKEN).ceil();
            let completion = if completion.truthy() {
                crate::js_text::js_to_number(completion)
            } else {
                0.0
            };
            // `completionTokens > 0 ? Math.min(estimated, completionTokens)`:
            // NaN compares false.
            let thoughts = if completion > 0.0 {
                // `Math.min`: NaN wins.
                if estimated.is_nan() {
                    f64::NAN
                } else {
                    estimated.min(completion)
                }
            } else {
                estimated
            };
            json::write_number(&mut out, thoughts);
        }
        out.push_str(",\"totalTokenCount\":");
        or_zero(total, &mut out);
        out.push_str(",\"cachedContentTokenCount\":");
        let details = usage.at("prompt_tokens_details").at("cached_tokens");
        let cached = usage.at("cached_tokens");
        if !details.is_null() {
            json::stringify(details, &mut out);
        } else if !cached.is_null() {
            json::stringify(cached, &mut out);
        } else {
            out.push('0');
        }
        out.push('}');
        out
    }
}
