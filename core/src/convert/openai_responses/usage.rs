//! `makeFinalResponse`'s `usageMetadata` (Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts)
//! and its provenance.

use super::js_read::{json, read_opt};
use crate::foundations::json::Value;
use crate::model::gemini::Usage;
use crate::model::usage_provenance::UsageProvenance;

/// The `usageMetadata` of `usage` (the envelope's, `None`: `undefined`),
/// when it is truthy: `promptTokenCount`, `candidatesTokenCount` and
/// `totalTokenCount` as the provider wrote them (a key that holds
/// `undefined` is not written), `thoughtsTokenCount` and
/// `cachedContentTokenCount` defaulting to 0; the provenance says whether
/// `input_tokens_details.cached_tokens` was a number.
pub(super) fn usage_metadata(usage: Option<&Value<'_>>) -> Option<Usage> {
    let usage = usage.filter(|u| u.truthy())?;
    let cached = read_opt(usage.get("input_tokens_details"), "cached_tokens");
    let reasoning = read_opt(usage.get("output_tokens_details"), "reasoning_tokens");
    let or_zero = |v: Option<&Value<'_>>| match v {
        None | Some(Value::Null) => "0".to_owned(),
        some => json(some).unwrap_or_default(),
    };
    let mut out = String::from("{");
    let mut first = true;
    let fields = [
        ("promptTokenCount", json(usage.get("input_tokens"))),
        ("candidatesTokenCount", json(usage.get("output_tokens"))),
        ("totalTokenCount", json(usage.get("total_tokens"))),
        ("thoughtsTokenCount", Some(or_zero(reasoning))),
        ("cachedContentTokenCount", Some(or_zero(cached))),
    ];
    for (key, value) in fields {
        let Some(value) = value else { continue };
        if !first {
            out.push(',');
        }
        first = false;
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        out.push_str(&value);
    }
    out.push('}');
    Some(Usage {
        json: out,
        provenance: UsageProvenance::cached(matches!(cached, Some(Value::Num(_)))),
    })
}
