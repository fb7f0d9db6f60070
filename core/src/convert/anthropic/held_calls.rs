//! Qwen Code 0.24.4's confirmation of Anthropic tool calls
//! (`packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts,
//! processStream`): a call closed by `content_block_stop` is held until
//! `message_delta` carries a `stop_reason`; its arguments are `JSON.parse`d
//! only (`packages/core/src/core/tool-call-arguments.ts, parseToolCallArguments`),
//! and a call that cannot be confirmed complete fails the stream
//! (`MALFORMED_TOOL_CALL`) or, on `max_tokens`, is dropped.

use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{validate, Kind};
use crate::model::gemini::Response;
use crate::model::lifted::{lift_checked, Lifted};

/// What `content_block_stop` makes of a `tool_use` block's argument text.
pub enum Closed {
    /// Valid JSON with an object root (`"{}"` for an empty buffer): the
    /// arguments as JSON text, and their large string members lifted out
    /// for the batch, if any ([`crate::model::lifted`]).
    Call(String, Option<Lifted>),
    /// Not valid JSON, or a non-object root: no call, only a flag.
    Rejected,
}

/// The held calls and what the closed blocks revealed.
#[derive(Default)]
pub struct HeldCalls {
    calls: Vec<Response>,
    /// Argument bytes of the held calls (they count as buffered data).
    bytes: usize,
    has_empty: bool,
    has_malformed: bool,
    has_non_object: bool,
}

impl HeldCalls {
    /// `parseToolCallArguments` on a closed block's buffer, taken; the
    /// flags record a rejected buffer. Large arguments are validated in the
    /// pass that lifts their large strings.
    pub fn close(&mut self, input_json: String) -> Closed {
        if input_json.is_empty() {
            return Closed::Call("{}".to_owned(), None);
        }
        if let Some(lifted) = lift_checked(&input_json) {
            return Closed::Call(input_json, lifted);
        }
        match validate(&input_json) {
            Some(Kind::Object) => Closed::Call(input_json, None),
            Some(_) => {
                self.has_non_object = true;
                Closed::Rejected
            }
            None => {
                self.has_malformed = true;
                Closed::Rejected
            }
        }
    }

    /// Holds the call chunk built at `content_block_stop` (it carries any
    /// usage pending at that moment, as the reference's chunk does), whose
    /// arguments are `bytes` long.
    pub fn hold(&mut self, chunk: Response, empty: bool, bytes: usize) {
        self.has_empty |= empty;
        self.bytes += bytes;
        self.calls.push(chunk);
    }

    /// Argument bytes of the calls still held.
    pub fn held_bytes(&self) -> usize {
        self.bytes
    }

    /// `message_delta` with a truthy `stop_reason`: the held calls to yield,
    /// or the error. `open_tool_block`: a `tool_use` block is still open.
    /// Returns whether the open `tool_use` blocks are to be dropped
    /// (`max_tokens` truncation).
    pub fn confirm(
        &mut self,
        stop_reason: &str,
        open_tool_block: bool,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        let unconfirmed_empty = self.has_empty && stop_reason != "tool_use";
        let truncated = self.has_malformed || open_tool_block || unconfirmed_empty;
        if self.has_non_object {
            return Err(malformed(
                "completed argument buffer had a non-object JSON root",
            ));
        }
        if truncated && stop_reason == "max_tokens" {
            self.calls.clear();
            self.bytes = 0;
            self.has_empty = false;
            self.has_malformed = false;
            return Ok(true);
        }
        if truncated {
            return Err(malformed(if open_tool_block {
                "tool-use block did not close before the stop reason"
            } else if self.has_malformed {
                "completed argument buffer was not valid JSON"
            } else {
                "empty argument buffer lacked a tool-use stop reason"
            }));
        }
        if !self.calls.is_empty() {
            out.append(&mut self.calls);
            self.bytes = 0;
            self.has_empty = false;
        }
        Ok(false)
    }

    /// The end of a stream that did not fail upstream. `assistant_payload`:
    /// some yielded chunk had a text, thought, signature or call part.
    pub fn at_end(&self, open_tool_block: bool, assistant_payload: bool) -> Result<(), Error> {
        let detail = if self.has_malformed {
            "stream ended with a malformed argument buffer"
        } else if self.has_non_object {
            "stream ended with a non-object argument root"
        } else if !self.calls.is_empty() {
            "stream ended before deferred tool calls were confirmed"
        } else if open_tool_block && assistant_payload {
            "stream ended with an open tool-use block"
        } else {
            return Ok(());
        };
        Err(malformed(detail))
    }

    /// The source failed with a retryable transport error: the held calls
    /// are yielded when every closed block was complete and none is open.
    pub fn on_upstream_failure(&mut self, open_tool_block: bool, out: &mut Vec<Response>) {
        if !self.calls.is_empty()
            && !self.has_empty
            && !self.has_malformed
            && !self.has_non_object
            && !open_tool_block
        {
            out.append(&mut self.calls);
            self.bytes = 0;
        }
    }
}

fn malformed(detail: &str) -> Error {
    Error::new(
        ErrorCode::MalformedToolCall,
        format!("Anthropic stream contained malformed tool call arguments: {detail}"),
    )
}
