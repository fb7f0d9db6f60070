//! The provider response parsing switches of an OpenAI-compatible stream,
//! in their own file: the non-streaming bodies (`crate::convert::nonstream`)
//! read them without importing the stream.

/// The provider response parsing that Qwen Code switches on per provider
/// (`getResponseParsingOptions` of the OpenAI-compatible providers,
/// `packages/core/src/core/openaiContentGenerator/provider/*.ts`, carried
/// as the request context's `responseParsingOptions`). Off by default, as
/// on the default provider of 0.21.2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResponseParsing {
    /// `contentOnlyThinkingTagLeaks`: a `<think>`-like tag at the start of
    /// the content of a stream without structured reasoning is held as a
    /// candidate and fails the stream with `PROTOCOL_TAG_LEAK` when it
    /// proves to be a leaked thinking block (DashScope in 0.21.2, every
    /// model of the default provider in 0.24.4).
    pub content_only_tag_leaks: bool,
    /// `taggedThinkingTags`: `<think>…</think>` inside `content` becomes
    /// thought parts, and structured reasoning is buffered until it is
    /// known whether the content carries tagged thinking (MiniMax).
    pub tagged_thinking: bool,
    /// `taggedThinkingTagsAfterReasoning` (0.24.4, qwen3 models on the
    /// default provider): once structured reasoning was seen, content that
    /// opens with a thinking tag goes through a tagged-thinking parser from
    /// then on (a resent snapshot of it is dropped), and a thought still
    /// open at the finish or at the end of the stream is a
    /// `PROTOCOL_TAG_LEAK`.
    pub tagged_thinking_after_reasoning: bool,
}
