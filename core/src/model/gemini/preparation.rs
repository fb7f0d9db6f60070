//! A tool-call preparation, beside a response (never inside it).

/// A tool-call preparation (docs/behaviour.md §5.1): the stable id and name of a call
/// whose arguments are still streaming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preparation {
    /// The provider's own id of the call, as it arrived (OpenAI
    /// `tool_calls[].id`, Anthropic `content_block.id`), never empty; the
    /// per-attempt id that GeminiChat derives from it (docs/behaviour.md
    /// §4.1) is the host's business.
    pub call_id: String,
    /// The function name of the call, never empty (OpenAI: trimmed, as
    /// `StreamingToolCallParser.addChunk` stores it).
    pub tool_name: String,
    /// The id's JSON where it is not a string (an OpenAI stream's JS ids,
    /// `openai/call_ids.rs`): written in place of `call_id`.
    pub call_id_json: Option<String>,
}
