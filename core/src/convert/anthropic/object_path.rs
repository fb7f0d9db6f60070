//! The Anthropic object path (the JS layer's own conversion of SDK event
//! objects, `lib/object-path.js`), as this provider offers it
//! (`crate::convert::object_path`): its state word bits, the header of the
//! chunks it builds, argument fragments gathered in JS, a call whose
//! arguments stayed in JS and what they count against the limits, and the
//! budget for gathering.

use std::rc::Rc;

use super::arg_limits::limit_error;
use super::event_header::{write_event_header_item, EventHeader};
use super::key_order::KEY_ORDER;
use super::AnthropicStream;
use crate::convert::object_path::{HeldArgs, ObjectPath};
use crate::convert::state::StateWord;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{self, LoneEscapes, Value};
use crate::foundations::profile::Profile;
use crate::model::gemini::{Part, Response};

/// This provider's bits of the state word (`crate::convert::state`), which
/// `lib/object-path.js` reads (`lib/generated/wire-constants.js`, written
/// from these by `core/examples/wire_constants.rs`):
///
/// | bits | field |
/// |------|-------|
/// | 3    | `header`: a text/thinking delta converts to exactly one chunk with the header of the last yielded response |
/// | 4    | `payload`: a chunk with a part was yielded (0.24.4's end check) |
/// | 5–20 | `gather`: the index + 1 of the block whose `input_json_delta` fragments may be gathered in JS, 0 for none; the word's `budget` is that block's |
/// | 22   | `stop_gathered`: the stop of a `tool_use` block whose every fragment was gathered in JS may be converted with the arguments kept in JS (calls are not held for the stop reason) |
pub mod word {
    /// `header`.
    pub const HEADER: u64 = 1 << 3;
    /// `payload`.
    pub const PAYLOAD: u64 = 1 << 4;
    /// The lowest bit of `gather`.
    pub const GATHER_SHIFT: u32 = 5;
    /// How many bits `gather` takes.
    pub const GATHER_BITS: u32 = 16;
    /// `stop_gathered`.
    pub const STOP_GATHERED: u64 = 1 << 22;
}

/// Gathering is offered only for block indexes below this.
pub const MAX_GATHER_INDEX: u32 = (1 << word::GATHER_BITS) - 1;

impl ObjectPath for AnthropicStream {
    fn state_word(&mut self, yielded: &[Response]) -> StateWord {
        AnthropicStream::state_word(self, yielded)
    }

    fn write_header_item(&mut self, out: &mut String) -> bool {
        match self.take_event_header() {
            Some(h) => {
                write_event_header_item(&h, out);
                true
            }
            None => false,
        }
    }

    fn append_gathered(
        &mut self,
        index: &str,
        fragments: &str,
        json_encoded: bool,
    ) -> Result<(), Error> {
        self.append_input(index, fragments, json_encoded)
    }

    fn stop_held(
        &mut self,
        index: &str,
        args: HeldArgs<'_>,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        let bytes = match args {
            HeldArgs::Utf8Len(n) => n,
            HeldArgs::Encoded(encoded) => AnthropicStream::encoded_args_bytes(encoded)?,
        };
        self.stop_with_held_args(index, bytes, out)
    }
}

impl AnthropicStream {
    /// The state word after a call that yielded `yielded`. `header`: no
    /// `message_start` usage is pending and the last chunk yielded has the
    /// current response id and model, so a text or thinking delta converts
    /// to one chunk with that header. `gather`: the last open block and how
    /// many bytes of arguments it can still take ([`Self::args_budget`]).
    pub fn state_word(&mut self, yielded: &[Response]) -> StateWord {
        if let Some(last) = yielded.last() {
            self.message.header_shown = std::ptr::eq(last.key_order, &KEY_ORDER)
                && last.response_id == self.message.id
                && last.model_version == self.message.model;
        }
        if self.input.is_finished() {
            return StateWord::FINISHED;
        }
        let gather = self.blocks.open.last().and_then(|b| {
            let index: u32 = b.key.parse().ok()?;
            (index < MAX_GATHER_INDEX && b.key == index.to_string()).then_some(index)
        });
        let bit = |on: bool, bit: u64| if on { bit } else { 0 };
        let mut bits = bit(
            self.message.header_shown && !self.usage.message_start_pending,
            word::HEADER,
        ) | bit(self.message.payload, word::PAYLOAD)
            | bit(self.takes_gathered_stop(), word::STOP_GATHERED);
        if let Some(index) = gather {
            bits |= (u64::from(index) + 1) << word::GATHER_SHIFT;
        }
        let budget = gather.map_or(0, |i| self.args_budget(&i.to_string()).unwrap_or(0));
        StateWord::open(bits, budget)
    }

    /// The header the next text or thinking delta's chunk takes, when the
    /// last yielded chunk had it (`header_shown`, [`Self::state_word`], which
    /// runs first) and the JS layer has not been sent it yet: it goes out
    /// with the call's batch. So whenever the state word's `header` is on,
    /// the JS layer holds this header.
    pub fn take_event_header(&mut self) -> Option<EventHeader> {
        if !self.message.header_shown || self.input.is_finished() {
            return None;
        }
        let current = EventHeader {
            response_id: self.message.id.clone(),
            model_version: self.message.model.clone(),
        };
        if self.message.sent_header.as_ref() == Some(&current) {
            return None;
        }
        self.message.sent_header = Some(current.clone());
        Some(current)
    }

    /// Whether the stop of a `tool_use` block whose fragments the JS layer
    /// gathered may close it with the arguments kept in JS
    /// ([`Self::stop_with_held_args`]): not under [`Profile::Qwen024`], which
    /// holds the call for the stop reason (`super::held_calls`).
    pub fn takes_gathered_stop(&self) -> bool {
        self.options.profile != Profile::Qwen024
    }

    /// The bytes that arguments gathered in JS and sent as one JSON string
    /// literal (the transport of text holding lone surrogates,
    /// [`Self::append_input`]) take once appended: UTF-8, each lone
    /// surrogate as its 6-byte escape. Well-formed text crosses as itself,
    /// and its UTF-8 length is its count.
    pub fn encoded_args_bytes(encoded: &str) -> Result<usize, Error> {
        match json::parse(encoded)? {
            Value::Str(s) => {
                let (text, _) = s.json_text();
                Ok(text.len())
            }
            _ => Err(Error::new(
                ErrorCode::InvalidArgument,
                "encoded fragments must be a JSON string",
            )),
        }
    }

    /// `input_json_delta` fragments for block `index` (JS number text),
    /// gathered and joined by the JS layer from SDK event objects. With
    /// `json_encoded` they come as one JSON string literal (the JS layer's
    /// transport for text holding lone surrogates).
    pub fn append_input(
        &mut self,
        index: &str,
        fragments: &str,
        json_encoded: bool,
    ) -> Result<(), Error> {
        self.input.check_open()?;
        let result = if json_encoded {
            match json::parse(fragments) {
                Ok(Value::Str(s)) => {
                    self.append_to_block(index, |buf, lone| s.append_json_text_to(buf, lone))
                }
                Ok(_) => Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "encoded fragments must be a JSON string",
                )),
                Err(e) => Err(e),
            }
        } else {
            self.append_to_block(index, |buf, _| buf.push_str(fragments))
        };
        self.input.settle(result)
    }

    /// How many more bytes of arguments block `index` (JS number text) can
    /// take before a limit fails; `None` when there is no such block (its
    /// fragments are dropped, so no limit applies). The JS layer gathers
    /// fragments within this budget before handing them over, so a limit
    /// still fails at the event that crosses it.
    pub fn args_budget(&self, index: &str) -> Option<usize> {
        let block = self.blocks.open.iter().find(|b| b.key == index)?;
        let call = self
            .options
            .limits
            .max_call_bytes
            .saturating_sub(block.input_json.len());
        let buffered = self
            .options
            .limits
            .max_buffered_bytes
            .saturating_sub(self.blocks.buffered_args + self.input.buffered());
        Some(call.min(buffered))
    }

    /// `content_block_stop` for block `index` (JS number text) of a
    /// `tool_use` block whose `input_json_delta` fragments the JS layer held
    /// instead of handing them over, and which `JSON.parse` accepts as they
    /// are: `arg_bytes` bytes of them as they would be kept appended (the
    /// binding counts them, [`Self::encoded_args_bytes`]). The limits and the chunk are the
    /// long way's (append, then stop), except that `{}` stands in for the
    /// arguments, which the JS layer puts in from its own parse. `Ok(false)`
    /// (nothing changed) when the block is not such a block: unknown, not
    /// `tool_use`, or holding arguments here already.
    pub fn stop_with_held_args(
        &mut self,
        index: &str,
        arg_bytes: usize,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        self.input.check_open()?;
        if !self.takes_gathered_stop() {
            // The call is held for the stop reason: the long way.
            return Ok(false);
        }
        let Some(pos) = self
            .blocks
            .open
            .iter()
            .position(|b| b.key == index && b.kind == "tool_use" && b.input_json.is_empty())
        else {
            return Ok(false);
        };
        let result = self.held_args_limits(arg_bytes).map(|()| {
            let block = self.blocks.open.remove(pos);
            let part = Part::FunctionCall {
                id: block.id,
                name: block.name,
                args: Rc::new("{}".to_owned()),
                lifted: None,
            };
            let chunk = self.chunk(Some(part));
            out.push(chunk);
            true
        });
        self.input.settle(result)
    }

    /// The checks `append_at` makes, for arguments that stay in JS.
    pub(super) fn held_args_limits(&mut self, arg_bytes: usize) -> Result<(), Error> {
        if self.blocks.buffered_args + arg_bytes + self.input.buffered()
            > self.options.limits.max_buffered_bytes
        {
            return Err(limit_error(
                "buffered stream data",
                self.options.limits.max_buffered_bytes,
            ));
        }
        if arg_bytes > self.options.limits.max_call_bytes {
            return Err(limit_error(
                "tool call arguments",
                self.options.limits.max_call_bytes,
            ));
        }
        Ok(())
    }

    pub(super) fn append_to_block(
        &mut self,
        key: &str,
        append: impl FnOnce(&mut String, &mut LoneEscapes),
    ) -> Result<(), Error> {
        match self.blocks.open.iter().position(|b| b.key == key) {
            Some(pos) => {
                let input_bytes = self.input.buffered();
                self.blocks
                    .append_at(pos, append, &self.options.limits, input_bytes)
            }
            None => Ok(()),
        }
    }
}
