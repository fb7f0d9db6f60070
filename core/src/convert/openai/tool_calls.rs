//! A request's tool calls: deltas into the parser
//! (`StreamingToolCallParser.addChunk`), the preparations they announce, the
//! limits, the progress of the announced calls, and generated call ids.

use std::collections::HashSet;

use super::call_ids::{CallId, CallIds};
use super::chunk::provider_index;
use super::tool_call_parser::{
    array_walk, ArgumentChunk, HeldArguments, ProviderIndex, ToolCallParser,
};
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{LoneEscapes, Value};
use crate::foundations::limits::Limits;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::clock::now_ms;
use crate::model::gemini::Preparation;

/// What the calls' arguments are checked against.
#[derive(Clone, Copy)]
pub(super) struct Bounds<'a> {
    /// The stream's limits.
    pub(super) limits: &'a Limits,
    /// The bytes the stream's input holds besides the parser, counted with
    /// the parser's against `max_buffered_bytes`.
    pub(super) input_bytes: usize,
}

/// A request's tool calls, from their deltas to the ids of the complete
/// calls.
pub(super) struct ToolCalls {
    /// `toolCallParser`: routes the deltas to slots and gathers their
    /// arguments, one per request (`createRequestContext`).
    pub(super) parser: ToolCallParser,
    /// `preparedToolCallIds`: the ids whose preparation was yielded.
    pub(super) prepared: HashSet<String>,
    /// How tool-call ids are keyed and written.
    pub(super) ids: CallIds,
    /// The xorshift state behind a generated id's random part
    /// (`Math.random` in the reference).
    rng: u64,
}

impl ToolCalls {
    /// No call yet; `js_ids`: [`super::OpenAIOptions::js_tool_call_ids`];
    /// `seed`: the random part's generator seed.
    pub(super) fn new(js_ids: bool, seed: u64) -> Self {
        ToolCalls {
            parser: ToolCallParser::default(),
            prepared: HashSet::new(),
            ids: CallIds::new(js_ids),
            rng: seed | 1,
        }
    }

    /// The progress of each open call whose preparation was yielded, in the
    /// order the parser made their slots, with the argument text `held`.
    pub(super) fn progress(&mut self, held: &HeldArguments) -> Vec<ArgumentProgress> {
        let (prepared, ids) = (&self.prepared, &self.ids);
        self.parser
            .announced_progress(held)
            .filter(|(id, ..)| prepared.contains(*id))
            .map(|(id, name, argument_bytes, argument_lines)| {
                let (call_id, call_id_json) = match ids.id(id) {
                    CallId::Str(s) => (s.to_owned(), None),
                    CallId::Json(json) => (json.to_owned(), Some(json.to_owned())),
                };
                ArgumentProgress {
                    call_id,
                    call_id_json,
                    tool_name: name.to_owned(),
                    argument_bytes,
                    argument_lines,
                }
            })
            .collect()
    }

    /// One element of `choice.delta.tool_calls`, as `addChunk` reads it.
    pub(super) fn delta(
        &mut self,
        call: &Value<'_>,
        preparations: &mut Vec<Preparation>,
        bounds: Bounds<'_>,
    ) -> Result<(), Error> {
        if call.is_null() {
            return Err(Error::null_read(
                "a tool call must not be null",
                true,
                "index",
            ));
        }
        let index = provider_index(call.get("index"));
        let function = call.at("function");
        let name_value = function.at("name");
        // `StreamingToolCallParser.addChunk`: `name?.trim()` first, then the
        // index check, then `chunk.trim()` unless the delta has an id or a
        // name, then `for (const char of chunk)`.
        if !matches!(name_value, Value::Null | Value::Str(_)) {
            return Err(Error::type_error(
                "a tool call name must be a string",
                "name?.trim is not a function",
            ));
        }
        let name = name_value.as_str();
        let arguments = function.at("arguments");
        let mut owned_args = String::new();
        let mut lone = LoneEscapes::new();
        let mut walk = None;
        let chunk: &str = match arguments {
            v if !v.truthy() => "",
            Value::Str(s) => {
                (owned_args, lone) = s.json_text();
                &owned_args
            }
            _ if matches!(index, ProviderIndex::Invalid) => "",
            _ if !call.at("id").truthy()
                && name
                    .as_deref()
                    .is_none_or(crate::foundations::js_text::is_blank) =>
            {
                return Err(Error::type_error(
                    "tool call arguments must be a string",
                    "chunk.trim is not a function",
                ));
            }
            // An array is iterable: appended as `String(array)`, walked
            // item by item.
            Value::Arr(items) => {
                walk = Some(array_walk(items));
                crate::foundations::js_text::append_js_string_to_arguments(
                    arguments,
                    &mut owned_args,
                    &mut lone,
                );
                &owned_args
            }
            _ => {
                return Err(Error::type_error(
                    "tool call arguments must be a string",
                    "chunk is not iterable",
                ));
            }
        };
        let id = self.ids.key(call.at("id"));
        let chunk = ArgumentChunk {
            text: chunk,
            walk: walk.as_deref().unwrap_or(chunk.as_bytes()),
            lone: &lone,
        };
        self.feed(
            index,
            chunk,
            id.as_deref(),
            name.as_deref(),
            preparations,
            bounds,
        )
    }

    /// [`super::tool_call_parser::ToolCallParser::add_chunk`], then the
    /// limits and the call's preparation.
    pub(super) fn feed(
        &mut self,
        index: ProviderIndex,
        chunk: ArgumentChunk<'_>,
        id: Option<&str>,
        name: Option<&str>,
        preparations: &mut Vec<Preparation>,
        bounds: Bounds<'_>,
    ) -> Result<(), Error> {
        let routed = self.parser.add_chunk(index, chunk, id, name);
        let call_len = routed.map(|slot| self.parser.buffer_len(slot));
        self.check_limits(call_len, bounds)?;
        let slot = match (routed, index) {
            (Some(slot), _) => Some(slot),
            (None, ProviderIndex::Valid(i)) => Some(i),
            (None, ProviderIndex::Invalid) => None,
        };
        if let Some(slot) = slot {
            if let Some((id, name)) = self.parser.unannounced_meta(slot) {
                if !self.prepared.contains(id) {
                    self.prepared.insert(id.to_owned());
                    let (call_id, call_id_json) = match self.ids.id(id) {
                        CallId::Str(s) => (s.to_owned(), None),
                        CallId::Json(json) => (json.to_owned(), Some(json.to_owned())),
                    };
                    preparations.push(Preparation {
                        call_id,
                        tool_name: name.to_owned(),
                        call_id_json,
                    });
                }
            }
        }
        Ok(())
    }

    /// The limits after a chunk was added: `call_len`, the bytes of the
    /// call it went to (if any), and all the bytes held.
    pub(super) fn check_limits(
        &self,
        call_len: Option<usize>,
        bounds: Bounds<'_>,
    ) -> Result<(), Error> {
        let Bounds {
            limits,
            input_bytes,
        } = bounds;
        if call_len.is_some_and(|len| len > limits.max_call_bytes) {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "tool call arguments exceed the limit of {} bytes",
                    limits.max_call_bytes
                ),
            ));
        }
        if self.parser.buffered() + input_bytes > limits.max_buffered_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "buffered stream data exceed the limit of {} bytes",
                    limits.max_buffered_bytes
                ),
            ));
        }
        Ok(())
    }

    /// `call_${Date.now()}_${Math.random().toString(36).substring(2, 9)}`.
    pub(super) fn generated_id(&mut self) -> String {
        let mut suffix = String::with_capacity(7);
        for _ in 0..7 {
            // xorshift64*
            self.rng ^= self.rng >> 12;
            self.rng ^= self.rng << 25;
            self.rng ^= self.rng >> 27;
            let r = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let d = ((r >> 33) % 36) as u32;
            suffix.push(char::from_digit(d, 36).unwrap_or('0'));
        }
        format!("call_{}_{}", now_ms(), suffix)
    }
}
