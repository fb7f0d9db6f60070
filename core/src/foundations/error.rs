//! The one error type of the core, with stable codes that become the `code`
//! of the JS `Error` at the binding.

use std::fmt;

/// What went wrong, as the stable `code` a JS caller switches on (the error
/// table of the README). Whether the converter is finished afterwards is
/// [`Error::fatal`], which [`Error::new`] derives from the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// A `data:` payload or an event text is not valid JSON.
    InvalidJson,
    /// The byte stream is not valid UTF-8.
    InvalidUtf8,
    /// An event of a known type lacks a field the reference dereferences
    /// (e.g. `content_block_start` without `content_block`).
    InvalidEvent,
    /// The reference's `InvalidStreamError('…malformed tool call.')`.
    MalformedToolCall,
    /// The reference's `InvalidStreamError('…leaked thinking tags.')`.
    ProtocolTagLeak,
    /// An in-band provider error (Anthropic `error` event, OpenAI
    /// `{"error":…}` chunk, `finish_reason: "error_finish"`).
    StreamError,
    /// A configured resource limit was exceeded.
    LimitExceeded,
    /// The converter was used after `end()` or after a fatal error.
    Finished,
    /// A bad argument from the caller.
    InvalidArgument,
    /// A non-streaming response body the reference cannot convert (not an
    /// object, or a field it iterates or dereferences is of the wrong kind).
    InvalidResponse,
    /// A bug: a panic caught at the binding. The converter is finished.
    Internal,
}

impl ErrorCode {
    /// The code as JS sees it in `err.code`: the variant name in
    /// SCREAMING_SNAKE_CASE (`MalformedToolCall` → `"MALFORMED_TOOL_CALL"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::InvalidUtf8 => "INVALID_UTF8",
            ErrorCode::InvalidEvent => "INVALID_EVENT",
            ErrorCode::MalformedToolCall => "MALFORMED_TOOL_CALL",
            ErrorCode::ProtocolTagLeak => "PROTOCOL_TAG_LEAK",
            ErrorCode::StreamError => "STREAM_ERROR",
            ErrorCode::LimitExceeded => "LIMIT_EXCEEDED",
            ErrorCode::Finished => "FINISHED",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidResponse => "INVALID_RESPONSE",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

/// A failed call: what the binding turns into a `ToolCallStreamError`
/// (`wire::write_error` encodes every field).
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// The stable code (`err.code`).
    pub code: ErrorCode,
    /// The human-readable text (`err.message`). Where the reference throws
    /// the same error it is the reference's message word for word (e.g.
    /// `Error::malformed_tool_call`); otherwise it is ours, and callers
    /// match on `code`, not on the text.
    pub message: String,
    /// The JS error `name` the reference would throw (`InvalidStreamError`
    /// for the reference's stream validation errors, else `Error`).
    pub name: &'static str,
    /// Byte offset into the caller's input where it helps (none past 4 GiB,
    /// which no limit allows; `u32` keeps the error, and every `Result` of
    /// the converters, small).
    pub offset: Option<u32>,
    /// The provider's own error object, as JSON text (in-band errors).
    pub provider_error: Option<Box<str>>,
    /// The whole in-band error event's payload as it arrived (its `data:`
    /// text, or the event's JSON text), so a host can hand its SDK exactly
    /// what the SDK would have decoded (top-level fields such as
    /// `request_id` included).
    pub provider_event: Option<Box<str>>,
    /// The SSE frame the error is about, as the SDK's decoder reads it (its
    /// `event:` line and one `data:` line per line of its data), for a frame
    /// the SDK itself rejects or turns into an error: a payload that is not
    /// JSON, or an in-band error event. A host replays it through its SDK to
    /// throw exactly what the SDK throws (class, message and fields).
    pub sse_frame: Option<Box<str>>,
    /// The error stock Qwen Code throws for the same input where its own
    /// code fails on a value (`TypeError`, with V8's message word for word):
    /// the package's API keeps its own code and message, and a host that
    /// must throw what stock throws (the Qwen preload) throws this.
    /// Boxed: the error is returned through the parser's recursion, whose
    /// frames grow with it.
    pub host_error: Option<Box<HostError>>,
    /// Whether the converter can take more input after this error.
    pub fatal: bool,
    /// `message` is in the text form of [`crate::foundations::json::text`] (it holds a
    /// provider's text, whose lone surrogates the reference's message keeps).
    pub text_message: bool,
}

/// A JS error of the host's own code: its constructor name and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostError {
    /// The constructor's name (`TypeError`).
    pub name: &'static str,
    /// V8's message, e.g. `Cannot read properties of null (reading 'id')`.
    pub message: String,
}

impl Error {
    /// An error with the reference's `name` and `type` for the code
    /// (`InvalidStreamError` for `MALFORMED_TOOL_CALL` and
    /// `PROTOCOL_TAG_LEAK`, else `Error`) and fatal exactly for the codes
    /// that finish a converter in the README's error table
    /// (`INVALID_JSON`, `INVALID_EVENT`, `INVALID_ARGUMENT` and
    /// `INVALID_RESPONSE` leave it usable).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let name = match code {
            ErrorCode::MalformedToolCall | ErrorCode::ProtocolTagLeak => "InvalidStreamError",
            _ => "Error",
        };
        let fatal = matches!(
            code,
            ErrorCode::MalformedToolCall
                | ErrorCode::ProtocolTagLeak
                | ErrorCode::StreamError
                | ErrorCode::LimitExceeded
                | ErrorCode::Finished
                | ErrorCode::InvalidUtf8
                | ErrorCode::Internal
        );
        Error {
            code,
            message: message.into(),
            name,
            offset: None,
            provider_error: None,
            provider_event: None,
            sse_frame: None,
            host_error: None,
            fatal,
            text_message: false,
        }
    }

    /// An error whose message is a provider's text, in the text form of
    /// [`crate::foundations::json::text`] (lone surrogates kept).
    pub(crate) fn with_text(code: ErrorCode, text: String) -> Self {
        let mut e = Error::new(code, text);
        e.text_message = true;
        e
    }

    /// `INVALID_EVENT` where the reference's own code throws a `TypeError`
    /// with V8's message `js_message` (kept as [`Error::host_error`]).
    pub(crate) fn type_error(message: impl Into<String>, js_message: impl Into<String>) -> Self {
        let mut e = Error::new(ErrorCode::InvalidEvent, message);
        e.host_error = Some(Box::new(HostError {
            name: "TypeError",
            message: js_message.into(),
        }));
        e
    }

    /// `INVALID_EVENT` where the reference's own code throws V8's
    /// `RangeError: Maximum call stack size exceeded` (kept as
    /// [`Error::host_error`]).
    pub(crate) fn stack_overflow(message: impl Into<String>) -> Self {
        let mut e = Error::new(ErrorCode::InvalidEvent, message);
        e.host_error = Some(Box::new(HostError {
            name: "RangeError",
            message: "Maximum call stack size exceeded".to_owned(),
        }));
        e
    }

    /// V8's `Cannot read properties of null (reading 'key')` (or of
    /// `undefined`) where the reference dereferences `value` unguarded.
    pub(crate) fn null_read(message: impl Into<String>, null: bool, key: &str) -> Self {
        let what = if null { "null" } else { "undefined" };
        Error::type_error(
            message,
            format!("Cannot read properties of {what} (reading '{key}')"),
        )
    }

    /// The reference's `InvalidStreamError.type`, when it has one (it
    /// follows from the code; derived, so the error stays small enough to
    /// return by value).
    pub fn kind(&self) -> Option<&'static str> {
        match self.code {
            ErrorCode::MalformedToolCall => Some("MALFORMED_TOOL_CALL"),
            ErrorCode::ProtocolTagLeak => Some("PROTOCOL_TAG_LEAK"),
            _ => None,
        }
    }

    /// Keeps the SSE frame `event` / `data` came in (see [`Error::sse_frame`])
    /// on an error the SDK's decoder would have thrown for it.
    pub(crate) fn in_frame(mut self, event: Option<&str>, data: &str) -> Self {
        let from_decoder = self.code == ErrorCode::InvalidJson || self.provider_event.is_some();
        if from_decoder && self.sse_frame.is_none() {
            let mut frame = String::with_capacity(data.len() + 16);
            if let Some(name) = event {
                frame.push_str("event: ");
                frame.push_str(name);
                frame.push('\n');
            }
            // An `event:`-only block has no data line (its data is empty).
            if !(data.is_empty() && event.is_some()) {
                for line in data.split('\n') {
                    frame.push_str("data: ");
                    frame.push_str(line);
                    frame.push('\n');
                }
            }
            self.sse_frame = Some(frame.into());
        }
        self
    }

    /// Sets the byte offset into the caller's input.
    pub(crate) fn with_offset(mut self, offset: usize) -> Self {
        self.offset = u32::try_from(offset).ok();
        self
    }

    /// The reference's `InvalidStreamError('Model response contained a
    /// malformed tool call.', 'MALFORMED_TOOL_CALL')` (Qwen Code
    /// packages/core/src/core/openaiContentGenerator/converter.ts,
    /// `convertOpenAIChunkToGemini`).
    pub(crate) fn malformed_tool_call() -> Self {
        Error::new(
            ErrorCode::MalformedToolCall,
            "Model response contained a malformed tool call.",
        )
    }

    /// The reference's `InvalidStreamError('Model response leaked thinking
    /// tags.', 'PROTOCOL_TAG_LEAK')` (Qwen Code
    /// packages/core/src/core/openaiContentGenerator/converter.ts,
    /// `throwProtocolTagLeak`).
    pub(crate) fn protocol_tag_leak() -> Self {
        Error::new(
            ErrorCode::ProtocolTagLeak,
            "Model response leaked thinking tags.",
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}
