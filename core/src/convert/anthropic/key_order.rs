//! The key order of every response an Anthropic stream or body builds.

use crate::model::key_order::{KeyOrder, ResponseKey};

/// `buildGeminiChunk`'s object literal (Qwen Code
/// packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts):
/// the header fields first, then `candidates` and `usageMetadata`.
pub static KEY_ORDER: KeyOrder = KeyOrder {
    name: "Anthropic",
    wire_id: Some(0),
    keys: &[
        ResponseKey::ResponseId,
        ResponseKey::CreateTime,
        ResponseKey::ModelVersion,
        ResponseKey::PromptFeedback,
        ResponseKey::Candidates,
        ResponseKey::UsageMetadata,
    ],
    safety_ratings: true,
};
