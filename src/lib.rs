//! The napi binding: the only place that knows about N-API. It maps the pure
//! core (`toolcall-stream-core`) to JS with few crossings: text or bytes in,
//! one batch out per call, which `lib/wire.js` decodes once. The batch
//! format, the error encoding and the state word every batch carries are the
//! wire protocol (`toolcall_stream_core::wire`, `wire.rs` here).
//!
//! Converters live in a per-thread handle table (`handles.rs`); the hot
//! calls are free functions addressed by slot. The ACP classes are in
//! `acp.rs`.

#![deny(clippy::all)]

mod acp;
mod body;
mod handles;
mod wire;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use napi_derive::napi;
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::chunk_header::ChunkHeader;
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream, ResponseParsing};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::wire::progress::write_argument_progress;
use toolcall_stream_core::wire::State;
use toolcall_stream_core::{Error, ErrorCode, Limits, Profile};

use handles::{HandleTable, Slots};
pub(crate) use wire::js_error;
use wire::{batch, step, AFTER_PANIC};

/// Qwen's `responseParsingOptions` as `lib/converters/options.js` checked them.
#[napi(object)]
pub struct NativeResponseParsing {
    pub content_only_thinking_tag_leaks: Option<bool>,
    pub tagged_thinking_tags: Option<bool>,
    pub tagged_thinking_tags_after_reasoning: Option<bool>,
}

/// What the host around an OpenAI converter does (Qwen's pipeline, its JS ids), as
/// `lib/converters/options.js` checked it (absent = off).
#[napi(object)]
pub struct NativePipeline {
    /// The `error_finish` check before the converter (`StreamContentError`).
    pub throw_on_error_finish: Option<bool>,
    /// The SSE paths leave out the responses the pipeline drops unseen.
    pub drop_empty_responses: Option<bool>,
    /// Tool-call ids keep their JS values (a host's `jsToolCallIds`).
    pub js_tool_call_ids: Option<bool>,
}

/// Limits as JS passes them (numbers; absent = default).
#[napi(object)]
pub struct NativeLimits {
    pub max_call_bytes: Option<f64>,
    pub max_buffered_bytes: Option<f64>,
    pub max_repair_depth: Option<f64>,
}

fn limits(l: Option<NativeLimits>) -> Limits {
    let mut out = Limits::default();
    if let Some(l) = l {
        // lib/converters/options.js lets only numbers >= 1 through: `Infinity` is
        // no limit (the cast saturates at usize::MAX), not the default.
        let set = |slot: &mut usize, v: Option<f64>| {
            if let Some(v) = v.filter(|v| *v >= 1.0) {
                *slot = v as usize;
            }
        };
        set(&mut out.max_call_bytes, l.max_call_bytes);
        set(&mut out.max_buffered_bytes, l.max_buffered_bytes);
        set(&mut out.max_repair_depth, l.max_repair_depth);
    }
    out
}

/// One converter's state in the handle table.
enum Converter {
    Anthropic(Box<AnthropicStream>),
    OpenAI(Box<OpenAIStream>),
}

impl Converter {
    /// The state word after a call that yielded `yielded`.
    fn state(&mut self, yielded: &[Response]) -> State {
        match self {
            Converter::Anthropic(s) => s.wire_state(yielded),
            Converter::OpenAI(s) => s.wire_state(),
        }
    }

    /// The state word after a call, and nothing more to send.
    fn report_state(&mut self, yielded: &[Response]) -> (State, Option<Rc<ChunkHeader>>) {
        (self.state(yielded), None)
    }

    /// The state word after a call, and (OpenAI) the chunk header noted for
    /// the object path when the JS layer does not have it yet.
    fn report_chunk_header(&mut self, yielded: &[Response]) -> (State, Option<Rc<ChunkHeader>>) {
        let state = self.state(yielded);
        let chunk_header = match self {
            Converter::Anthropic(_) => None,
            Converter::OpenAI(s) => s.take_chunk_header(),
        };
        (state, chunk_header)
    }
}

/// A converter's state, and why it takes no more input when it is closed
/// (a caught panic, or `converter_free`) although its handle is still alive.
struct Entry {
    converter: Converter,
    closed: Option<&'static str>,
}

const AFTER_FREE: &str = "the converter was freed (free())";

thread_local! {
    static CONVERTER_SLOTS: RefCell<Slots<Entry>> = const { RefCell::new(Slots::new()) };
}

/// The converters of this thread (see `handles`: one table per thread).
static CONVERTERS: HandleTable<Entry> = HandleTable::new(&CONVERTER_SLOTS);

/// The handle object behind `AnthropicConverter` / `OpenAIConverter`: it
/// owns one slot of the converter table, freed when V8 collects it. The hot
/// calls are the free functions below, addressed by `slot`.
#[napi]
pub struct ConverterHandle {
    slot: f64,
}

#[napi]
impl ConverterHandle {
    /// `kind`: "anthropic" or "openai". `profile`: "qwen-0.21" (default) or
    /// "qwen-0.24". `parsing`: the OpenAI converter's provider response
    /// parsing; `pipeline`: what Qwen's pipeline does around the OpenAI
    /// converter (both ignored by the Anthropic converter).
    #[napi(constructor)]
    pub fn new(
        kind: String,
        profile: Option<String>,
        limits_opt: Option<NativeLimits>,
        parsing: Option<NativeResponseParsing>,
        pipeline: Option<NativePipeline>,
    ) -> napi::Result<Self> {
        let limits = limits(limits_opt);
        let profile = match profile.as_deref() {
            None => Profile::default(),
            Some(name) => Profile::parse(name).map_err(|e| js_error(&e))?,
        };
        let converter = match kind.as_str() {
            "anthropic" => Converter::Anthropic(Box::new(AnthropicStream::new(AnthropicOptions {
                profile,
                limits,
            }))),
            "openai" => Converter::OpenAI(Box::new(OpenAIStream::new(OpenAIOptions {
                limits,
                profile,
                parsing: parsing
                    .map(|p| ResponseParsing {
                        content_only_tag_leaks: p.content_only_thinking_tag_leaks.unwrap_or(false),
                        tagged_thinking: p.tagged_thinking_tags.unwrap_or(false),
                        tagged_thinking_after_reasoning: p
                            .tagged_thinking_tags_after_reasoning
                            .unwrap_or(false),
                    })
                    .unwrap_or_default(),
                throw_on_error_finish: pipeline
                    .as_ref()
                    .and_then(|p| p.throw_on_error_finish)
                    .unwrap_or(false),
                drop_empty: pipeline
                    .as_ref()
                    .and_then(|p| p.drop_empty_responses)
                    .unwrap_or(false),
                js_tool_call_ids: pipeline
                    .as_ref()
                    .and_then(|p| p.js_tool_call_ids)
                    .unwrap_or(false),
            }))),
            other => {
                return Err(js_error(&Error::new(
                    ErrorCode::InvalidArgument,
                    format!("unknown converter kind {other:?}"),
                )));
            }
        };
        let slot = CONVERTERS
            .insert(Entry {
                converter,
                closed: None,
            })
            .ok_or_else(|| {
                js_error(&Error::new(
                    ErrorCode::LimitExceeded,
                    "too many live converters on this thread",
                ))
            })?;
        Ok(ConverterHandle { slot })
    }

    #[napi(getter)]
    pub fn slot(&self) -> f64 {
        self.slot
    }

    /// The state word of the new converter (`wire::State`), before any call.
    #[napi(getter)]
    pub fn state(&self) -> f64 {
        CONVERTERS
            .with(self.slot, |e| e.converter.state(&[]).encode())
            .unwrap_or(1.0)
    }
}

impl Drop for ConverterHandle {
    fn drop(&mut self) {
        CONVERTERS.remove(self.slot);
    }
}

/// Runs `f` on the converter in `slot`, as one batch.
fn on_converter(
    slot: f64,
    f: impl FnOnce(&mut Converter, &mut Vec<Response>) -> Result<(), Error>,
) -> wire::Batch {
    on_converter_reporting(slot, f, Converter::report_state)
}

/// [`on_converter`], the batch carrying what `report` reads after the call.
fn on_converter_reporting(
    slot: f64,
    f: impl FnOnce(&mut Converter, &mut Vec<Response>) -> Result<(), Error>,
    report: impl FnOnce(&mut Converter, &[Response]) -> (State, Option<Rc<ChunkHeader>>),
) -> wire::Batch {
    CONVERTERS
        .with(slot, |entry| {
            step(&mut entry.converter, &mut entry.closed, f, report)
        })
        .unwrap_or_else(|| {
            let e = Error::new(ErrorCode::InvalidArgument, "no live converter in this slot");
            batch(&mut [], Some(&e), State::FINISHED, None)
        })
}

fn wrong_kind(expected: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("this call needs an {expected} converter"),
    )
}

/// Raw SSE bytes into either converter. Borrowed for the call (`&[u8]`, no
/// napi reference to create and delete, unlike `Uint8Array`).
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_push_bytes(slot: f64, data: &[u8]) -> wire::Batch {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.push_bytes(data, out),
        Converter::OpenAI(s) => s.push_bytes(data, out),
    })
}

/// Raw SSE text into either converter.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_push_text(slot: f64, data: String) -> wire::Batch {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.push_bytes(data.as_bytes(), out),
        Converter::OpenAI(s) => s.push_bytes(data.as_bytes(), out),
    })
}

/// End of input for either converter.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_end(slot: f64) -> wire::Batch {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.end(out),
        Converter::OpenAI(s) => s.end(out),
    })
}

/// The open calls' argument progress of either converter, as one JSON text
/// (`toolcall_stream_core::wire::progress`); `[]` for a converter that is
/// closed or gone. Asked for at a timer's pace (`lib/progress.js`), never per
/// chunk. A panic here (a bug) is caught and reports no progress: it never
/// crosses the boundary.
#[napi]
pub fn converter_argument_progress(slot: f64) -> String {
    CONVERTERS
        .with(slot, |entry| {
            if entry.closed.is_some() {
                return None;
            }
            catch_unwind(AssertUnwindSafe(|| {
                let progress = match &mut entry.converter {
                    Converter::Anthropic(s) => s.argument_progress(),
                    Converter::OpenAI(s) => s.argument_progress(),
                };
                let mut out = String::new();
                write_argument_progress(&progress, &mut out);
                out
            }))
            .ok()
        })
        .flatten()
        .unwrap_or_else(|| "[]".to_owned())
}

/// Releases a converter's state at once (its stream was abandoned): every
/// later call on it fails with `FINISHED`. The slot itself stays owned by the
/// handle object until V8 collects it, so its number never reaches another
/// converter while the old one is still reachable. Returns the state word
/// (finished).
#[napi]
pub fn converter_free(slot: f64) -> f64 {
    CONVERTERS.with(slot, |entry| {
        if entry.closed == Some(AFTER_FREE) {
            return;
        }
        entry.closed = Some(AFTER_FREE);
        entry.converter = match entry.converter {
            Converter::Anthropic(_) => {
                Converter::Anthropic(Box::new(AnthropicStream::new(AnthropicOptions {
                    profile: Profile::default(),
                    limits: Limits::default(),
                })))
            }
            Converter::OpenAI(_) => {
                Converter::OpenAI(Box::new(OpenAIStream::new(OpenAIOptions::default())))
            }
        };
    });
    State::FINISHED.encode()
}

/// One Anthropic SDK event as JSON text.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn anthropic_push_event(slot: f64, event: String) -> wire::Batch {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.push_event_text(&event, out),
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    })
}

/// `input_json_delta` fragments the JS layer gathered for block `index`
/// (its JS number text), in order, joined (the object path's gathering, within
/// the budget the state word gave). `json_encoded`: sent as a JSON string
/// literal (text with lone surrogates).
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn anthropic_append_input(
    slot: f64,
    index: String,
    fragments: String,
    json_encoded: bool,
) -> wire::Batch {
    on_converter(slot, |c, _| match c {
        Converter::Anthropic(s) => s.append_input(&index, &fragments, json_encoded),
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    })
}

/// `content_block_stop` for a tool_use block whose arguments (`argBytes`
/// UTF-8 bytes, valid JSON) the JS layer held: a batch whose function call
/// has `{}` for the arguments, for the JS layer to fill in; `undefined` when
/// the block is not such a block (nothing changed: take the long way).
#[napi(ts_return_type = "string | number | Array<string> | null")]
pub fn anthropic_stop_held(slot: f64, index: String, arg_bytes: f64) -> Option<wire::Batch> {
    let mut applies = true;
    let batch = on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => {
            let bytes = if arg_bytes.is_finite() && arg_bytes >= 0.0 {
                arg_bytes.min(usize::MAX as f64) as usize
            } else {
                usize::MAX
            };
            applies = s.stop_with_held_args(&index, bytes, out)?;
            Ok(())
        }
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    });
    applies.then_some(batch)
}

/// The source of the events failed, with what the JS layer classified as a
/// retryable stream transport error or not: the held calls that 0.24.4
/// yields before it rethrows (none under `qwen-0.21`). Finishes the
/// converter.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn anthropic_upstream_failed(slot: f64, retryable: bool) -> wire::Batch {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.upstream_failed(retryable, out),
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    })
}

/// One OpenAI chunk as JSON text: a batch of exactly one response or error,
/// with the chunk header for the object path when it changed (the object
/// path's native path: `lib/object-path.js`).
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn openai_push_chunk(slot: f64, chunk: String) -> wire::Batch {
    on_converter_reporting(
        slot,
        |c, out| match c {
            Converter::OpenAI(s) => {
                out.push(s.push_chunk_text(&chunk)?);
                Ok(())
            }
            Converter::Anthropic(_) => Err(wrong_kind("OpenAI")),
        },
        Converter::report_chunk_header,
    )
}

/// Argument-only tool-call deltas the JS layer gathered (the object path,
/// while quiet), as the JSON text `[index, arguments, index, arguments, …]`,
/// fed to the parser in order.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn openai_push_fragments(slot: f64, fragments: String) -> wire::Batch {
    on_converter(slot, |c, _| match c {
        Converter::OpenAI(s) => s.push_fragments_text(&fragments),
        Converter::Anthropic(_) => Err(wrong_kind("OpenAI")),
    })
}

/// The content of a content-only delta, only while the state word says
/// `text_ready`: the normalised text, empty for no part; the JS layer builds
/// the response. Not a batch: the state word is the same after the call
/// (`OpenAIStream::push_plain_text` changes neither `quiet` nor
/// `text_ready`), and an error (only when not ready) is thrown.
#[napi]
pub fn openai_push_text_delta(slot: f64, content: String) -> napi::Result<String> {
    let result = CONVERTERS.with(slot, |e| {
        catch_unwind(AssertUnwindSafe(|| match &mut e.converter {
            Converter::OpenAI(s) if e.closed.is_none() => s.push_plain_text(&content),
            _ => Err(wrong_kind("ready OpenAI")),
        }))
        .unwrap_or_else(|panic| {
            e.closed = Some(AFTER_PANIC);
            Err(wire::panic_error(panic, "the native converter"))
        })
    });
    match result {
        Some(Ok(text)) => Ok(text),
        Some(Err(e)) => Err(js_error(&e)),
        None => Err(js_error(&Error::new(
            ErrorCode::InvalidArgument,
            "no live converter in this slot",
        ))),
    }
}
