//! The key order of the responses an OpenAI Responses stream builds.

use crate::model::key_order::{KeyOrder, ResponseKey};

/// `makeChunkResponse` (Qwen Code
/// packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts):
/// `new GenerateContentResponse()`, then `candidates`, `responseId`,
/// `modelVersion`, `createTime`, `promptFeedback`, and `makeFinalResponse`'s
/// `usageMetadata` last. Never sent as a header: these responses always
/// travel whole (their text parts carry message metadata).
pub static KEY_ORDER: KeyOrder = KeyOrder {
    name: "OpenAI Responses",
    wire_id: None,
    keys: &[
        ResponseKey::Candidates,
        ResponseKey::ResponseId,
        ResponseKey::ModelVersion,
        ResponseKey::CreateTime,
        ResponseKey::PromptFeedback,
        ResponseKey::UsageMetadata,
    ],
    safety_ratings: true,
};
