//! The key orders of the responses an OpenAI-compatible stream or body
//! builds.

use crate::model::key_order::{KeyOrder, ResponseKey};

/// `convertOpenAIChunkToGemini`'s assignments (Qwen Code
/// packages/core/src/core/openaiContentGenerator/converter.ts): `candidates`
/// first, then the header fields and `usageMetadata`.
pub static KEY_ORDER: KeyOrder = KeyOrder {
    name: "OpenAI",
    wire_id: Some(1),
    keys: &[
        ResponseKey::Candidates,
        ResponseKey::ResponseId,
        ResponseKey::CreateTime,
        ResponseKey::ModelVersion,
        ResponseKey::PromptFeedback,
        ResponseKey::UsageMetadata,
    ],
    safety_ratings: true,
};

/// The pipeline's end-of-stream flush of held parts (Qwen Code
/// packages/core/src/core/openaiContentGenerator/pipeline.ts): a bare
/// `new GenerateContentResponse()` with only `candidates`, whose candidate
/// has no `safetyRatings`. Never sent as a header.
pub static BARE: KeyOrder = KeyOrder {
    name: "OpenAI pipeline flush",
    wire_id: None,
    keys: &[ResponseKey::Candidates],
    safety_ratings: false,
};
