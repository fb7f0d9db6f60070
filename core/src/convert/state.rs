//! What a converter tells its JS layer after every call: whether it is
//! finished and which object-path predicates (the JS layer's own conversion
//! of SDK objects, `lib/object-path.js`) may take the next input.
//! The wire encodes it as one number (`crate::wire`, `State::encode`).

/// A converter's state as its JS layer needs it (the bits named below are
/// the state word's, `crate::wire`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Bit 0: no more input is taken (`end()`, a fatal error, or the
    /// converter was freed). The word is then exactly 1: no object path.
    pub finished: bool,
    /// Bit 1 (OpenAI, [`crate::convert::openai::OpenAIStream::is_quiet`]): a chunk
    /// that only appends tool-call arguments converts to an empty response.
    pub quiet: bool,
    /// Bit 2 (OpenAI, [`crate::convert::openai::OpenAIStream::is_text_ready`]): a
    /// content-only delta may take the text path.
    pub text_ready: bool,
    /// Bit 3 (Anthropic, [`crate::convert::anthropic::AnthropicStream::wire_state`]):
    /// a text or thinking delta converts to exactly one chunk with the
    /// header of the last yielded response.
    pub header: bool,
    /// Bit 4 (Anthropic): a chunk with a part was yielded, which 0.24.4's
    /// end-of-stream check looks at (`responseHasAssistantPayload`).
    pub payload: bool,
    /// The open block whose `input_json_delta` fragments the JS layer may
    /// gather (an index below [`MAX_GATHER_INDEX`]).
    pub gather: Option<u32>,
    /// A closing thinking-tag candidate is pending (OpenAI).
    pub tag_closing: bool,
    /// (Anthropic, [`crate::convert::anthropic::AnthropicStream::takes_gathered_stop`])
    /// the stop of a block whose every fragment the JS layer gathered may be
    /// converted with the arguments kept in JS: calls are not held for the
    /// stop reason.
    pub stop_gathered: bool,
    /// Bytes of tool-call arguments that can still be gathered in JS before
    /// a limit could fail (Anthropic: for the `gather` block; OpenAI: for
    /// any call while `quiet`). The wire hands it over in UTF-16 units
    /// (`crate::wire`, `State::encode`).
    pub budget: usize,
}

/// Gathering is offered only for block indexes below this.
pub const MAX_GATHER_INDEX: u32 = (1 << 16) - 1;

impl State {
    /// A finished converter: the object path is closed.
    pub const FINISHED: State = State {
        finished: true,
        quiet: false,
        text_ready: false,
        header: false,
        payload: false,
        gather: None,
        tag_closing: false,
        stop_gathered: false,
        budget: 0,
    };
}
