//! The key order of the responses an OpenAI Responses stream builds.

use crate::model::key_order::{KeyOrder, ResponseKey};

/// `makeChunkResponse` (Qwen Code
/// packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts):
/// `new GenerateContentResponse()`, then `candidates`, `responseId`,
/// `modelVersion`, `createTime`, `promptFeedback`, and `makeFinalResponse`'s
/// `usageMetadata` last. A text or thought delta's response travels as a
/// compact chunk under a header with this id (its text part's message as a
/// serial, `crate::wire::compact_kind::MESSAGE_TEXT`); the JS layer sets
/// `responseId` and `modelVersion` even when the header has none, as
/// `makeChunkResponse` does (lib/converters/openai-responses/converter.js).
pub static KEY_ORDER: KeyOrder = KeyOrder {
    name: "OpenAI Responses",
    wire_id: Some(2),
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
