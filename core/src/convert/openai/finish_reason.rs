//! The finish mapping of the two releases.

use crate::foundations::json::Value;
use crate::foundations::profile::Profile;

/// The finish mapping of a truthy `finish_reason` (Qwen Code
/// packages/core/src/core/openaiContentGenerator/converter.ts). 0.21.2's
/// `mapOpenAIFinishReasonToGemini` looks the value up as a property key
/// (`String(value)`: `["stop"]` is `stop`); 0.24.4's
/// `mapOpenAIFinishReasonToLlm` takes strings only, lower-cased, and maps
/// `max_tokens` too. 0.21.2's rule is the wildcard arm: the provider's row
/// lists only these two releases (`convert/provider.rs`), so no other
/// profile reaches here.
pub fn map_finish_reason(reason: &Value<'_>, profile: Profile) -> &'static str {
    let key = match (reason, profile) {
        (Value::Str(s), Profile::Qwen024) => s.value().to_lowercase(),
        (_, Profile::Qwen024) => return "FINISH_REASON_UNSPECIFIED",
        (v, _) => crate::foundations::js_text::js_to_string(v),
    };
    match key.as_str() {
        "stop" | "function_call" | "tool_calls" => "STOP",
        "length" => "MAX_TOKENS",
        "max_tokens" if profile == Profile::Qwen024 => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        _ => "FINISH_REASON_UNSPECIFIED",
    }
}
