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
mod object_path;
mod wire;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use napi_derive::napi;
use toolcall_stream_core::convert::provider::{
    provider, ConverterOptions, Provider, StreamConverter,
};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::wire::progress::write_argument_progress;
use toolcall_stream_core::wire::StateWord;
use toolcall_stream_core::{Error, ErrorCode, Limits, Profile};

use handles::{HandleTable, Slots};
pub(crate) use wire::js_error;
use wire::{batch, step};

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

/// A converter's state, and why it takes no more input when it is closed
/// (a caught panic, or `converter_free`) although its handle is still alive.
struct Entry {
    converter: Box<dyn StreamConverter>,
    provider: &'static Provider,
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
    /// `kind`: a provider's name ("anthropic", "openai", "openai-responses":
    /// the core's `PROVIDERS`). `profile`: one of the provider's profiles
    /// (its `PROVIDERS` row); default its first. Any other is
    /// `INVALID_ARGUMENT` naming the provider's profiles.
    /// `settings`: the provider's own settings as one JSON object text,
    /// which only that provider reads (`lib/converters/<provider>/converter.js`
    /// writes them; the core's `convert::settings`).
    #[napi(constructor)]
    pub fn new(
        kind: String,
        profile: Option<String>,
        limits_opt: Option<NativeLimits>,
        settings: Option<String>,
    ) -> napi::Result<Self> {
        let provider = provider(&kind).map_err(|e| js_error(&e))?;
        let profile = match profile.as_deref() {
            None => provider.default_profile(),
            Some(name) => Profile::parse(name).map_err(|e| js_error(&e))?,
        };
        let options = ConverterOptions {
            profile,
            limits: limits(limits_opt),
            settings,
        };
        let converter = provider.stream(&options).map_err(|e| js_error(&e))?;
        let slot = CONVERTERS
            .insert(Entry {
                converter,
                provider,
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

    /// The state word of the new converter (`toolcall_stream_core::wire::StateWord`), before any call.
    #[napi(getter)]
    pub fn state(&self) -> f64 {
        CONVERTERS
            .with(self.slot, |e| state_word(&mut e.converter, &[]).encode())
            .unwrap_or(1.0)
    }
}

impl Drop for ConverterHandle {
    fn drop(&mut self) {
        CONVERTERS.remove(self.slot);
    }
}

type Converter = Box<dyn StreamConverter>;

/// The state word after a call that yielded `yielded`: the object path's,
/// or only whether the converter is finished for a provider without one.
fn state_word(c: &mut Converter, yielded: &[Response]) -> StateWord {
    match c.object_path() {
        Some(path) => path.state_word(yielded),
        None => StateWord::of(c.finished()),
    }
}

/// A call's batch: what it yielded, its error, the state word after it and
/// the header the object path builds its responses with when the JS layer
/// does not have it yet.
fn report(c: &mut Converter, yielded: &mut [Response], error: Option<&Error>) -> wire::Batch {
    match c.object_path() {
        Some(path) => {
            let state = path.state_word(yielded);
            batch(yielded, error, state, Some(path))
        }
        None => batch(yielded, error, StateWord::of(c.finished()), None),
    }
}

/// Runs `f` on the converter in `slot`, as one batch.
fn on_converter(
    slot: f64,
    f: impl FnOnce(&mut Converter, &mut Vec<Response>) -> Result<(), Error>,
) -> wire::Batch {
    CONVERTERS
        .with(slot, |entry| {
            step(&mut entry.converter, &mut entry.closed, f, report)
        })
        .unwrap_or_else(|| {
            let e = Error::new(ErrorCode::InvalidArgument, "no live converter in this slot");
            batch(&mut [], Some(&e), StateWord::FINISHED, None)
        })
}

/// Raw SSE bytes into a converter. Borrowed for the call (`&[u8]`, no
/// napi reference to create and delete, unlike `Uint8Array`).
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_push_bytes(slot: f64, data: &[u8]) -> wire::Batch {
    on_converter(slot, |c, out| c.push_bytes(data, out))
}

/// Raw SSE text into a converter.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_push_text(slot: f64, data: String) -> wire::Batch {
    on_converter(slot, |c, out| c.push_bytes(data.as_bytes(), out))
}

/// One SDK object (an Anthropic event, an OpenAI chunk) as JSON text.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_push_object(slot: f64, object: String) -> wire::Batch {
    on_converter(slot, |c, out| c.push_object_text(&object, out))
}

/// End of input.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_end(slot: f64) -> wire::Batch {
    on_converter(slot, |c, out| c.end(out))
}

/// The source of the input failed, with what the JS layer classified as a
/// retryable stream transport error or not: what the reference yields
/// before it rethrows (the held calls of Anthropic under `qwen-0.24`).
/// Finishes the converter.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn converter_upstream_failed(slot: f64, retryable: bool) -> wire::Batch {
    on_converter(slot, |c, out| c.upstream_failed(retryable, out))
}

/// The open calls' argument progress of a converter, as one JSON text
/// (`toolcall_stream_core::wire::progress`); `[]` for a converter that is
/// closed or gone. `held`: the body's bytes after those pushed, held back
/// where the SDK holds them (lib/qwen/sdk-frames.mjs), counted without being
/// converted (empty: none). Asked for at a timer's pace (`lib/progress.js`),
/// never per chunk. A panic here (a bug) is caught and reports no progress:
/// it never crosses the boundary.
#[napi]
pub fn converter_argument_progress(slot: f64, held: &[u8]) -> String {
    CONVERTERS
        .with(slot, |entry| {
            if entry.closed.is_some() {
                return None;
            }
            catch_unwind(AssertUnwindSafe(|| {
                let mut out = String::new();
                write_argument_progress(&entry.converter.argument_progress(held), &mut out);
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
        // A fresh stream lets go of the old one's buffers (default settings
        // are every provider's own, and so is its default profile).
        let options = ConverterOptions {
            profile: entry.provider.default_profile(),
            ..ConverterOptions::default()
        };
        if let Ok(fresh) = entry.provider.stream(&options) {
            entry.converter = fresh;
        }
    });
    StateWord::FINISHED.encode()
}
