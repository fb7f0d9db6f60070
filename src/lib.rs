//! The napi binding: the only place that knows about N-API. It maps the pure
//! core (`toolcall-stream-core`) to JS with few crossings: text or bytes in,
//! one JSON batch out per call, which the JS layer (`lib/`) parses once.
//!
//! A batch is the JSON array `toolcall_stream_core::gemini::write_batch`
//! documents: header items `{"h": {…}}` and compact chunks (`[0, text]`,
//! `[1, thought]`, `[2]`) for the common responses, full items `{"r":
//! response, "p"?: preparations, "s"?: sanitized}` for the rest, ending with
//! `{"error": {code, name, message, type?, offset?, providerError?, fatal}}`
//! when the call failed; everything converted before the error is in the
//! batch. `None` (JS `undefined`) stands for `[]`. `lib/responses.js`
//! `decodeBatch` reads it.
//!
//! Entries that throw instead (constructors, the ACP classes, the calls that
//! return something else than a batch) throw that same error object as the
//! message of a napi `GenericFailure` (`js_error`); `lib/native.js` decodes
//! it, so every error reaches JS as a `ToolCallStreamError` with its code.

#![deny(clippy::all)]

mod acp;
mod body;
mod handles;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use toolcall_stream_core::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::gemini::{write_batch, Response};
use toolcall_stream_core::openai::{OpenAIOptions, OpenAIStream, ResponseParsing};
use toolcall_stream_core::{Error, ErrorCode, Limits, Profile};

use handles::{HandleTable, Slots};

/// Qwen's `responseParsingOptions` as `lib/converters.js` checked them.
#[napi(object)]
pub struct NativeResponseParsing {
    pub content_only_thinking_tag_leaks: Option<bool>,
    pub tagged_thinking_tags: Option<bool>,
    pub tagged_thinking_tags_after_reasoning: Option<bool>,
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
        let set = |slot: &mut usize, v: Option<f64>| {
            if let Some(v) = v.filter(|v| v.is_finite() && *v >= 1.0) {
                *slot = v.min(usize::MAX as f64) as usize;
            }
        };
        set(&mut out.max_call_bytes, l.max_call_bytes);
        set(&mut out.max_buffered_bytes, l.max_buffered_bytes);
        set(&mut out.max_repair_depth, l.max_repair_depth);
    }
    out
}

/// Runs one conversion step on `inner`, turning a panic into an `INTERNAL`
/// error item (never an unwind across the boundary) and the outcome into one
/// batch. After a panic the state may be inconsistent, so it is closed.
fn step<S>(
    inner: &mut S,
    closed: &mut Option<&'static str>,
    f: impl FnOnce(&mut S, &mut Vec<Response>) -> Result<(), Error>,
) -> Option<String> {
    let mut out = Vec::new();
    let result = if let Some(why) = *closed {
        Err(Error::new(ErrorCode::Finished, why))
    } else {
        match catch_unwind(AssertUnwindSafe(|| f(inner, &mut out))) {
            Ok(r) => r,
            Err(panic) => {
                *closed = Some(AFTER_PANIC);
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                Err(Error::new(
                    ErrorCode::Internal,
                    format!("internal error in the native converter: {what}"),
                ))
            }
        }
    };
    let error = result.err();
    if out.is_empty() && error.is_none() {
        return None;
    }
    let mut text = String::with_capacity(out.len() * 256 + 64);
    write_batch(&out, error.as_ref(), &mut text);
    Some(text)
}

/// One converter's state in the handle table.
enum Converter {
    Anthropic(Box<AnthropicStream>),
    OpenAI(Box<OpenAIStream>),
}

/// A converter's state, and why it takes no more input when it is closed
/// (a caught panic, or `converter_free`) although its handle is still alive.
struct Entry {
    converter: Converter,
    closed: Option<&'static str>,
}

const AFTER_PANIC: &str = "the converter is finished after an internal error";
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
    /// parsing (ignored by the Anthropic converter).
    #[napi(constructor)]
    pub fn new(
        kind: String,
        profile: Option<String>,
        limits_opt: Option<NativeLimits>,
        parsing: Option<NativeResponseParsing>,
    ) -> napi::Result<Self> {
        let limits = limits(limits_opt);
        let profile = match profile.as_deref() {
            None => Profile::default(),
            Some(name) => Profile::parse(name)
                .map_err(|e| napi::Error::new(napi::Status::InvalidArg, e.message))?,
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
) -> Option<String> {
    CONVERTERS
        .with(slot, |entry| {
            step(&mut entry.converter, &mut entry.closed, f)
        })
        .unwrap_or_else(|| {
            let e = Error::new(ErrorCode::InvalidArgument, "no live converter in this slot");
            let mut text = String::new();
            write_batch(&[], Some(&e), &mut text);
            Some(text)
        })
}

/// An error thrown rather than returned in a batch (constructors, calls that
/// return something else than a batch, the ACP classes): a `GenericFailure`
/// whose message is the error item of a batch, `{code, name, message, …,
/// fatal}`, which `lib/native.js` turns into a `ToolCallStreamError`.
pub(crate) fn js_error(e: &Error) -> napi::Error {
    let mut json = String::new();
    e.write_json(&mut json);
    napi::Error::new(napi::Status::GenericFailure, json)
}

fn wrong_kind(expected: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("this call needs an {expected} converter"),
    )
}

/// Raw SSE bytes into either converter.
#[napi]
pub fn converter_push_bytes(slot: f64, data: Uint8Array) -> Option<String> {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.push_bytes(&data, out),
        Converter::OpenAI(s) => s.push_bytes(&data, out),
    })
}

/// Raw SSE text into either converter.
#[napi]
pub fn converter_push_text(slot: f64, data: String) -> Option<String> {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.push_bytes(data.as_bytes(), out),
        Converter::OpenAI(s) => s.push_bytes(data.as_bytes(), out),
    })
}

/// End of input for either converter.
#[napi]
pub fn converter_end(slot: f64) -> Option<String> {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.end(out),
        Converter::OpenAI(s) => s.end(out),
    })
}

/// Releases a converter's state at once (its stream was abandoned): every
/// later call on it fails with `FINISHED`. The slot itself stays owned by the
/// handle object until V8 collects it, so its number never reaches another
/// converter while the old one is still reachable.
#[napi]
pub fn converter_free(slot: f64) {
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
}

/// Whether the converter takes no more input.
#[napi]
pub fn converter_finished(slot: f64) -> bool {
    CONVERTERS
        .with(slot, |e| {
            e.closed.is_some()
                || match &e.converter {
                    Converter::Anthropic(s) => s.is_finished(),
                    Converter::OpenAI(s) => s.is_finished(),
                }
        })
        .unwrap_or(true)
}

/// One Anthropic SDK event as JSON text.
#[napi]
pub fn anthropic_push_event(slot: f64, event: String) -> Option<String> {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.push_event_text(&event, out),
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    })
}

/// `input_json_delta` fragments the JS layer gathered for block `index`
/// (its JS number text), in order, joined: the hot path of SDK events.
/// `json_encoded`: sent as a JSON string literal (text with lone surrogates).
#[napi]
pub fn anthropic_append_input(
    slot: f64,
    index: String,
    fragments: String,
    json_encoded: bool,
) -> Option<String> {
    on_converter(slot, |c, _| match c {
        Converter::Anthropic(s) => s.append_input(&index, &fragments, json_encoded),
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    })
}

/// Bytes of arguments block `index` can still take before a limit fails
/// (`Infinity`: no such block, nothing is kept). Not a batch: a number.
#[napi]
pub fn anthropic_args_budget(slot: f64, index: String) -> f64 {
    CONVERTERS
        .with(slot, |entry| match &entry.converter {
            Converter::Anthropic(s) => s.args_budget(&index).map_or(f64::INFINITY, |b| b as f64),
            Converter::OpenAI(_) => 0.0,
        })
        .unwrap_or(0.0)
}

/// `content_block_stop` for a tool_use block whose arguments (`argBytes`
/// UTF-8 bytes, valid JSON) the JS layer held: a batch whose function call
/// has `{}` for the arguments, for the JS layer to fill in; `undefined` when
/// the block is not such a block (nothing changed: take the long way).
#[napi]
pub fn anthropic_stop_held(slot: f64, index: String, arg_bytes: f64) -> Option<String> {
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
    applies.then(|| batch.unwrap_or_else(|| "[]".to_owned()))
}

/// The source of the events failed, with what the JS layer classified as a
/// retryable stream transport error or not: the held calls that 0.24.4
/// yields before it rethrows (none under `qwen-0.21`). Finishes the
/// converter.
#[napi]
pub fn anthropic_upstream_failed(slot: f64, retryable: bool) -> Option<String> {
    on_converter(slot, |c, out| match c {
        Converter::Anthropic(s) => s.upstream_failed(retryable, out),
        Converter::OpenAI(_) => Err(wrong_kind("Anthropic")),
    })
}

/// The JS layer yielded a text or thought chunk it built itself.
#[napi]
pub fn anthropic_note_payload(slot: f64) {
    CONVERTERS.with(slot, |entry| {
        if let Converter::Anthropic(s) = &mut entry.converter {
            s.note_payload();
        }
    });
}

/// One OpenAI chunk as JSON text: a batch of exactly one response or error.
#[napi]
pub fn openai_push_chunk(slot: f64, chunk: String) -> Option<String> {
    on_converter(slot, |c, out| match c {
        Converter::OpenAI(s) => {
            out.push(s.push_chunk_text(&chunk)?);
            Ok(())
        }
        Converter::Anthropic(_) => Err(wrong_kind("OpenAI")),
    })
}

/// Argument-only tool-call deltas the JS layer gathered, as the JSON text
/// `[index, arguments, index, arguments, …]`, fed to the parser in order.
#[napi]
pub fn openai_push_fragments(slot: f64, fragments: String) -> Option<String> {
    on_converter(slot, |c, _| match c {
        Converter::OpenAI(s) => s.push_fragments_text(&fragments),
        Converter::Anthropic(_) => Err(wrong_kind("OpenAI")),
    })
}

/// True when an argument-only delta would convert to an empty response (no
/// held parts to release, no thinking-tag candidate pending): the JS layer
/// may then build that response itself and defer the delta.
#[napi]
pub fn openai_quiet(slot: f64) -> bool {
    CONVERTERS
        .with(slot, |e| match &e.converter {
            Converter::OpenAI(s) => e.closed.is_none() && s.is_quiet(),
            Converter::Anthropic(_) => false,
        })
        .unwrap_or(false)
}

/// Whether a content-only delta may take `openai_push_text_delta`.
#[napi]
pub fn openai_text_ready(slot: f64) -> bool {
    CONVERTERS
        .with(slot, |e| match &e.converter {
            Converter::OpenAI(s) => e.closed.is_none() && s.is_text_ready(),
            Converter::Anthropic(_) => false,
        })
        .unwrap_or(false)
}

/// The content of a content-only delta (only while `openai_text_ready`):
/// the normalised text, empty for no part. The JS layer builds the response.
#[napi]
pub fn openai_push_text_delta(slot: f64, content: String) -> napi::Result<String> {
    let result = CONVERTERS.with(slot, |e| {
        catch_unwind(AssertUnwindSafe(|| match &mut e.converter {
            Converter::OpenAI(s) if e.closed.is_none() => s.push_plain_text(&content),
            _ => Err(wrong_kind("ready OpenAI")),
        }))
        .unwrap_or_else(|_| {
            e.closed = Some(AFTER_PANIC);
            Err(Error::new(
                ErrorCode::Internal,
                "internal error in the native converter",
            ))
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
