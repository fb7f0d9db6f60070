//! The Anthropic Messages stream → Gemini chunks, with the semantics of
//! `AnthropicContentGenerator.processStream` in Qwen Code 0.21.2 (docs/behaviour.md §2),
//! or in 0.24.4 under [`Profile::Qwen024`] (tool calls confirmed by the stop
//! reason, see [`crate::convert::anthropic::held_calls`]), plus SSE framing with the
//! Anthropic SDK's event handling (§2.1).
//!
//! One job a file: the stream as the list of its parts, its options, the
//! message it follows, and its public face here; `sse_events` (the SDK's
//! view of an SSE event), `byte_path` (the hot `content_block_delta` events
//! without a DOM), `events` (the state machine), `object_path` (support
//! for the JS layer's conversion of SDK objects), `arg_limits` (the open
//! blocks and their argument buffers against the limits), `usage` (the
//! token counts and their `usageMetadata`), `held_calls` (0.24.4's calls
//! held for the stop reason), `held_progress` (the argument progress of
//! frames held before the converter), `prefix` (the hot paths' prefix tests),
//! `event_header` (the header the object path is handed), `hot_shapes` (the
//! events the object path takes, declared once), `seam` (the provider
//! seam's calls), `body` (a non-streaming `Message`).

mod arg_limits;
pub mod body;
mod byte_path;
pub mod event_header;
mod events;
mod held_calls;
mod held_progress;
pub mod hot_shapes;
pub mod key_order;
pub mod object_path;
mod prefix;
mod seam;
mod sse_events;
mod usage;

use std::rc::Rc;

use crate::convert::anthropic::held_calls::HeldCalls;
use crate::convert::stream_input::{SseConsumer, StreamInput};
use crate::foundations::error::Error;
use crate::foundations::json;
use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;
use crate::foundations::sse::Bom;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::clock::now_ms_shared;
use crate::model::gemini::{Candidate, Part, Response};
use arg_limits::Blocks;
use event_header::EventHeader;
use usage::TokenCounts;

/// Options of one Anthropic stream. There is no configured model: both
/// releases take `modelVersion` from `message_start` only (without one it
/// is absent, whatever model the request named).
#[derive(Clone, Debug, Default)]
pub struct AnthropicOptions {
    /// The release followed: when tool calls are emitted and how their
    /// arguments are parsed ([`Profile`]).
    pub profile: Profile,
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    pub limits: Limits,
}

/// The message as `processStream` follows it across events.
#[derive(Default)]
struct Message {
    /// `messageId`, as JSON text: the chunks' `responseId`.
    id: Option<Rc<str>>,
    /// `model`, as JSON text, absent when falsy (`model || undefined`): the
    /// chunks' `modelVersion`.
    model: Option<Rc<str>>,
    /// `finishReason`: the last truthy `stop_reason`, as `String(value)`.
    finish_reason: Option<String>,
    /// A chunk with a text, thought, signature or call part was yielded
    /// (`responseHasAssistantPayload` over the yielded chunks, 0.24.4).
    payload: bool,
    /// The stream ended with an in-band `error` event, whose held calls
    /// `upstream_failed` may still yield (0.24.4: the SDK's error is the
    /// source's failure).
    failed_in_band: bool,
    /// The last yielded chunk has the current header (see
    /// [`AnthropicStream::state_word`]).
    header_shown: bool,
    /// The event header last sent to the JS object path ([`EventHeader`]).
    sent_header: Option<EventHeader>,
}

/// One request's stream state (docs/behaviour.md §2.2). Each part is
/// defined beside the code that owns it.
pub struct AnthropicStream {
    /// The release followed and the limits.
    options: AnthropicOptions,
    /// The byte-input decoder and the finished flag.
    input: StreamInput,
    /// The message: its header, stop reason and what was yielded of it.
    message: Message,
    /// The token counts and the usage `message_start` left pending
    /// (`usage.rs`).
    usage: TokenCounts,
    /// The open blocks and the argument bytes buffered (`arg_limits.rs`).
    blocks: Blocks,
    /// Calls held for the stop reason under `Profile::Qwen024`
    /// (`held_calls.rs`).
    held: HeldCalls,
}

impl AnthropicStream {
    /// The state of a fresh request, as `processStream` starts it (Qwen Code
    /// packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts):
    /// no message, no open block, zero usage.
    pub fn new(options: AnthropicOptions) -> Self {
        AnthropicStream {
            input: StreamInput::new(options.limits.max_buffered_bytes, Bom::Never),
            message: Message::default(),
            usage: TokenCounts::default(),
            blocks: Blocks::default(),
            held: HeldCalls::default(),
            options,
        }
    }

    /// The release this stream follows (from [`AnthropicOptions::profile`]).
    pub fn profile(&self) -> Profile {
        self.options.profile
    }

    /// `end()` was called or a fatal error occurred: every further call is
    /// `FINISHED`.
    pub fn is_finished(&self) -> bool {
        self.input.is_finished()
    }

    /// The progress of each open `tool_use` block that yielded a
    /// preparation, in block order: its argument bytes so far and the line
    /// breaks in them; nothing once the stream is finished. The JS layer asks
    /// for it at a timer's pace, never per event (`lib/progress.js`).
    pub fn argument_progress(&mut self) -> Vec<ArgumentProgress> {
        if self.is_finished() {
            return Vec::new();
        }
        self.blocks.progress(&[])
    }

    /// One SDK event given as JSON text.
    pub fn push_event_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        self.input.check_open()?;
        let result = json::parse(text).and_then(|ev| self.event(&ev, out));
        let result = result.map_err(|mut e| {
            if e.provider_error.is_some() && e.provider_event.is_none() {
                e.provider_event = Some(text.into());
            }
            e
        });
        self.input.settle(result)
    }

    /// Raw bytes of the SSE response body, split anywhere.
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_sse(bytes, out)
    }

    /// End of input: flushes a final unterminated SSE event. The converter is
    /// finished afterwards.
    pub fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        self.finish_sse(out)?;
        if self.options.profile == Profile::Qwen024 {
            self.held
                .at_end(self.blocks.has_open_tool_block(), self.message.payload)?;
        }
        Ok(())
    }

    /// The source of the events failed; `retryable`: with what 0.24.4
    /// classifies as a retryable stream transport error (the caller
    /// classifies it). Under `Profile::Qwen024` the held calls are then
    /// yielded when each was confirmed complete, as 0.24.4's `processStream`
    /// does before it rethrows. The converter is finished (a finished one
    /// yields nothing, unless an in-band `error` event finished it: that is
    /// the SDK's error, the source's failure in the reference).
    pub fn upstream_failed(
        &mut self,
        retryable: bool,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        if self.input.is_finished() && !std::mem::take(&mut self.message.failed_in_band) {
            return Ok(());
        }
        if retryable && self.options.profile == Profile::Qwen024 {
            let open = self.blocks.has_open_tool_block();
            self.held.on_upstream_failure(open, out);
        }
        self.input.finish();
        Ok(())
    }

    /// `buildGeminiChunk(part, …, takePendingMessageStartUsage())`.
    fn chunk(&mut self, part: Option<Part>) -> Response {
        let usage = self.usage.take_message_start();
        Response {
            key_order: &key_order::KEY_ORDER,
            response_id: self.message.id.clone(),
            create_time: now_ms_shared(),
            model_version: self.message.model.clone(),
            candidate: Some(Candidate {
                parts: part.into_iter().collect(),
                finish_reason: None,
            }),
            usage,
            preparations: Vec::new(),
            sanitized: None,
        }
    }

    fn finish_chunk(&self) -> Response {
        Response {
            key_order: &key_order::KEY_ORDER,
            response_id: self.message.id.clone(),
            create_time: now_ms_shared(),
            model_version: self.message.model.clone(),
            candidate: Some(Candidate {
                parts: Vec::new(),
                finish_reason: self
                    .message
                    .finish_reason
                    .as_deref()
                    .map(|r| map_finish_reason(r, self.options.profile)),
            }),
            usage: Some(self.usage.metadata()),
            preparations: Vec::new(),
            sanitized: None,
        }
    }
}

/// `mapAnthropicFinishReasonToGemini` (docs/behaviour.md §2.4), for a truthy reason;
/// 0.24.4's `mapAnthropicFinishReasonToLlm` also maps `refusal` to `SAFETY`
/// (anthropicContentGenerator/converter.ts).
pub fn map_finish_reason(reason: &str, profile: Profile) -> &'static str {
    match reason {
        "end_turn" | "stop_sequence" | "tool_use" => "STOP",
        "max_tokens" => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        "refusal" if profile == Profile::Qwen024 => "SAFETY",
        _ => "FINISH_REASON_UNSPECIFIED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[&str]) -> (Vec<String>, Option<Error>) {
        let mut s = AnthropicStream::new(AnthropicOptions::default());
        let mut out = Vec::new();
        let mut error = None;
        for e in events {
            if let Err(e) = s.push_event_text(e, &mut out) {
                error = Some(e);
                break;
            }
        }
        let written = out
            .iter()
            .map(|r| {
                let mut text = String::new();
                r.write_response(&mut text);
                text
            })
            .collect();
        (written, error)
    }

    #[test]
    fn text_thinking_and_signature_keep_lone_surrogates_and_other_types() {
        let delta = |d: &str| format!(r#"{{"type":"content_block_delta","index":0,"delta":{d}}}"#);
        let (out, error) = run(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking"}}"#,
            &delta(r#"{"type":"text_delta","text":"\ud835"}"#),
            &delta(r#"{"type":"thinking_delta","thinking":"\udc00"}"#),
            &delta(r#"{"type":"signature_delta","signature":"s\udfff"}"#),
            &delta(r#"{"type":"text_delta","text":42}"#),
            &delta(r#"{"type":"thinking_delta","thinking":{"a":1}}"#),
            &delta(r#"{"type":"signature_delta","signature":[1]}"#),
            &delta(r#"{"type":"text_delta","text":0}"#),
        ]);
        assert_eq!(error, None);
        let parts: Vec<&str> = out
            .iter()
            .map(|r| {
                let at = r.find("\"parts\":[").unwrap() + 9;
                &r[at..at + r[at..].find("],\"role\"").unwrap()]
            })
            .collect();
        assert_eq!(
            parts,
            [
                r#"{"text":"\ud835"}"#,
                r#"{"text":"\udc00","thought":true}"#,
                r#"{"thought":true,"thoughtSignature":"s\udfff"}"#,
                r#"{"text":42}"#,
                r#"{"text":{"a":1},"thought":true}"#,
                r#"{"thought":true,"thoughtSignature":[1]}"#,
            ]
        );
    }

    #[test]
    fn usage_counts_of_other_types_add_as_javascript_adds_them() {
        let (out, _) = run(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":"10","output_tokens":"1","cache_read_input_tokens":"2"}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"20"}}"#,
        ]);
        assert!(
            out[0].contains(r#""usageMetadata":{"promptTokenCount":"1020","cachedContentTokenCount":"2","candidatesTokenCount":"20","totalTokenCount":"102020"}"#),
            "{}",
            out[0]
        );
    }

    #[test]
    fn a_null_sub_object_carries_the_reference_type_error() {
        let (_, error) = run(&[r#"{"type":"message_start","message":null}"#]);
        let host = error.and_then(|e| e.host_error).unwrap();
        assert_eq!(
            (host.name, host.message.as_str()),
            ("TypeError", "Cannot read properties of null (reading 'id')")
        );
    }
}
