//! The one writer of a `usageMetadata` object's JSON text, and the count
//! arithmetic the reference's builders share. Each builder of the
//! reference sets the counts in its own order (Anthropic's
//! `buildAnthropicUsageMetadata`, docs/behaviour.md §2.5; OpenAI's
//! streaming chunk converter, §3.2.6, and its response converter, §3.4),
//! and the JS layer's objects keep that order, so the callers give it.

use crate::foundations::js_value::JsValue;
use crate::foundations::json::{self, Value};

/// A count of `usageMetadata`, by its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// `promptTokenCount`.
    Prompt,
    /// `candidatesTokenCount`.
    Candidates,
    /// `thoughtsTokenCount`.
    Thoughts,
    /// `totalTokenCount`.
    Total,
    /// `cachedContentTokenCount`.
    Cached,
}

impl Count {
    fn key(self) -> &'static str {
        match self {
            Count::Prompt => "promptTokenCount",
            Count::Candidates => "candidatesTokenCount",
            Count::Thoughts => "thoughtsTokenCount",
            Count::Total => "totalTokenCount",
            Count::Cached => "cachedContentTokenCount",
        }
    }
}

/// Writes the object `{"key":value,…}` to `out`: the counts in the order
/// given, each value its JSON text.
pub(crate) fn write(out: &mut String, counts: &[(Count, &str)]) {
    out.push('{');
    for (i, (count, value)) in counts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(count.key());
        out.push_str("\":");
        out.push_str(value);
    }
    out.push('}');
}

/// `buildAnthropicUsageMetadata` (docs/behaviour.md §2.5) of the counts as
/// JS holds them: the prompt count is `input + cacheRead + cacheCreation`,
/// unless the counts look like an OpenAI-compatible provider's (no
/// cache-creation count, a positive cache-read count within the input
/// count), where the input count already holds the cached tokens. `output`:
/// the output count when the builder has one (it then adds the candidates
/// and total counts).
pub(crate) fn anthropic(
    input: &JsValue,
    cache_read: &JsValue,
    cache_creation: &JsValue,
    cache_creation_reported: bool,
    output: Option<&JsValue>,
) -> String {
    let looks_like_openai = !cache_creation_reported
        && cache_creation.is_zero()
        && cache_read.is_positive()
        && input.at_least(cache_read);
    let prompt = if looks_like_openai {
        input.clone()
    } else {
        input.add(cache_read).add(cache_creation)
    };
    let mut out = String::with_capacity(96);
    match output {
        Some(output) => write(
            &mut out,
            &[
                (Count::Prompt, prompt.json()),
                (Count::Cached, cache_read.json()),
                (Count::Candidates, output.json()),
                (Count::Total, prompt.add(output).json()),
            ],
        ),
        None => write(
            &mut out,
            &[
                (Count::Prompt, prompt.json()),
                (Count::Cached, cache_read.json()),
            ],
        ),
    }
    out
}

/// The OpenAI thoughts count when the provider reports none: the estimate,
/// capped by a positive completion count (`completionTokens > 0 ?
/// Math.min(estimated, completionTokens) : estimated`, compared as JS
/// numbers, `Math.min` letting NaN win), as JSON text.
pub(crate) fn openai_estimated_thoughts(estimated: f64, completion: &Value<'_>) -> String {
    let completion = if completion.truthy() {
        crate::foundations::js_text::js_to_number(completion)
    } else {
        0.0
    };
    let thoughts = if completion > 0.0 {
        if estimated.is_nan() {
            f64::NAN
        } else {
            estimated.min(completion)
        }
    } else {
        estimated
    };
    let mut out = String::new();
    json::write_number(&mut out, thoughts);
    out
}

/// Whether an OpenAI usage object gets the prompt and candidates counts:
/// `totalTokens === 0 || promptTokens !== 0 || completionTokens !== 0`
/// (a truthy count is never the number 0).
pub(crate) fn openai_has_breakdown(usage: &Value<'_>) -> bool {
    !usage.at("total_tokens").truthy()
        || usage.at("prompt_tokens").truthy()
        || usage.at("completion_tokens").truthy()
}
