//! Where a response's usage numbers came from (Qwen Code
//! packages/core/src/telemetry/gen-ai-usage.ts, `setGenAiUsageProvenance`):
//! out-of-band telemetry on the `usageMetadata` object, never serialised.
//! Said in the reference's own terms, whichever provider's builder set it.

/// The provenance object a usage builder attaches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsageProvenance {
    /// `cachedInputTokensReported`: the provider reported the cached input
    /// tokens as a number.
    pub cached_input_tokens_reported: bool,
    /// `cacheCreationInputTokens`, where the builder sets that key.
    pub cache_creation: CacheCreation,
}

/// The `cacheCreationInputTokens` key of a provenance object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CacheCreation {
    /// The builder sets no such key (`{cachedInputTokensReported}` alone,
    /// as the OpenAI converter's does).
    NotTracked,
    /// The key holds `undefined`: the provider never reported a count
    /// (`buildAnthropicUsageMetadata`).
    Unreported,
    /// The last count the provider reported (tokens).
    Tokens(f64),
}

impl UsageProvenance {
    /// `{cachedInputTokensReported}`.
    pub fn cached(reported: bool) -> UsageProvenance {
        UsageProvenance {
            cached_input_tokens_reported: reported,
            cache_creation: CacheCreation::NotTracked,
        }
    }

    /// `{cachedInputTokensReported, cacheCreationInputTokens}`: the
    /// cache-creation count when one was reported, else `undefined`.
    pub fn with_cache_creation(reported: bool, creation: Option<f64>) -> UsageProvenance {
        UsageProvenance {
            cached_input_tokens_reported: reported,
            cache_creation: creation.map_or(CacheCreation::Unreported, CacheCreation::Tokens),
        }
    }
}
