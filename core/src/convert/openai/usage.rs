//! The streaming usage mapping (docs/behaviour.md §3.2.6): a chunk's
//! `usage` as `usageMetadata`, with its provenance.

use crate::foundations::json::{self, Value};
use crate::model::gemini::Usage;
use crate::model::usage_metadata::{self, Count};
use crate::model::usage_provenance::UsageProvenance;

/// Reasoning's estimated token units per token (`estimateTokenCount` of
/// the reference's streaming usage: UTF-16 units weighted by
/// [`super::text_delta::estimate_token_units`], over 20).
const TOKEN_ESTIMATE_UNITS_PER_TOKEN: f64 = 20.0;

/// Usage mapping (docs/behaviour.md §3.2.6, as 0.21.2 runs it), with the provenance
/// the converter attaches (`cachedInputTokensReported`: a numeric
/// `prompt_tokens_details.cached_tokens` or `cached_tokens`).
/// `reasoning_units`: the reasoning channel's estimated token units
/// (`emittedTokenUnits`), which stand in for reasoning tokens the provider
/// does not report.
pub(super) fn usage(usage: &Value<'_>, reasoning_units: f64) -> Usage {
    let is_number = |v: &Value<'_>| matches!(v, Value::Num(_));
    Usage {
        json: usage_json(usage, reasoning_units),
        provenance: UsageProvenance::cached(
            is_number(usage.at("prompt_tokens_details").at("cached_tokens"))
                || is_number(usage.at("cached_tokens")),
        ),
    }
}

/// The counts are the chunk's values as they are (`usage.prompt_tokens
/// || 0`: a count sent as a string stays that string), compared and
/// passed to `Math.min` as JS numbers.
fn usage_json(usage: &Value<'_>, reasoning_units: f64) -> String {
    // `x || 0`, written as the value it is.
    let or_zero = |v: &Value<'_>| {
        if v.truthy() {
            json::to_json_string(v)
        } else {
            "0".to_owned()
        }
    };
    let prompt = or_zero(usage.at("prompt_tokens"));
    let completion = or_zero(usage.at("completion_tokens"));
    let total = or_zero(usage.at("total_tokens"));
    let reasoning = usage.at("completion_tokens_details").at("reasoning_tokens");
    // `providerReasoningTokens ?? …`: present and not null.
    let thoughts = if !reasoning.is_null() {
        json::to_json_string(reasoning)
    } else {
        let estimated = (reasoning_units / TOKEN_ESTIMATE_UNITS_PER_TOKEN).ceil();
        usage_metadata::openai_estimated_thoughts(estimated, usage.at("completion_tokens"))
    };
    let details = usage.at("prompt_tokens_details").at("cached_tokens");
    let cached = usage.at("cached_tokens");
    let cached = if !details.is_null() {
        json::to_json_string(details)
    } else if !cached.is_null() {
        json::to_json_string(cached)
    } else {
        "0".to_owned()
    };
    let (thoughts, total, cached) = (
        (Count::Thoughts, thoughts.as_str()),
        (Count::Total, total.as_str()),
        (Count::Cached, cached.as_str()),
    );
    let mut out = String::with_capacity(128);
    if usage_metadata::openai_has_breakdown(usage) {
        let prompt = (Count::Prompt, prompt.as_str());
        let completion = (Count::Candidates, completion.as_str());
        usage_metadata::write(&mut out, &[prompt, completion, thoughts, total, cached]);
    } else {
        usage_metadata::write(&mut out, &[thoughts, total, cached]);
    }
    out
}
