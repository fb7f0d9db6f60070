//! The napi binding: the only place that knows about N-API. It maps the pure
//! core (`toolcall-stream-core`) to JS with few crossings: text or bytes in,
//! one JSON batch out per call, which the JS layer (`lib/`) parses once.
//!
//! A batch is `[{"r": response, "p"?: preparations, "s"?: sanitized}, …]`,
//! ending with `{"error": {code, name, message, type?, offset?,
//! providerError?, fatal}}` when the call failed; everything converted before
//! the error is in the batch. `None` (JS `undefined`) stands for `[]`.

#![deny(clippy::all)]

mod acp;
mod handles;

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use toolcall_stream_core::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::gemini::{write_batch, Response};
use toolcall_stream_core::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::{Error, ErrorCode, Limits};

use handles::Tracked;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
/// batch. After a panic the state may be inconsistent, so it is poisoned.
fn step<S>(
    inner: &mut S,
    poisoned: &mut bool,
    f: impl FnOnce(&mut S, &mut Vec<Response>) -> Result<(), Error>,
) -> Option<String> {
    let mut out = Vec::new();
    let result = if *poisoned {
        Err(Error::new(
            ErrorCode::Finished,
            "the converter is finished after an internal error",
        ))
    } else {
        match catch_unwind(AssertUnwindSafe(|| f(inner, &mut out))) {
            Ok(r) => r,
            Err(panic) => {
                *poisoned = true;
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

/// The state behind `AnthropicConverter` (one request).
#[napi]
pub struct NativeAnthropic {
    inner: Tracked<AnthropicStream>,
    poisoned: bool,
}

#[napi]
impl NativeAnthropic {
    #[napi(constructor)]
    pub fn new(model: Option<String>, limits_opt: Option<NativeLimits>) -> Self {
        let inner = AnthropicStream::new(AnthropicOptions {
            model,
            limits: limits(limits_opt),
        });
        NativeAnthropic {
            inner: Tracked::new(inner),
            poisoned: false,
        }
    }

    /// One SDK event as JSON text.
    #[napi]
    pub fn push_event(&mut self, event: String) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.push_event_text(&event, out)
        })
    }

    /// Raw SSE bytes.
    #[napi]
    pub fn push_bytes(&mut self, data: Uint8Array) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.push_bytes(&data, out)
        })
    }

    /// Raw SSE text.
    #[napi]
    pub fn push_text(&mut self, data: String) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.push_bytes(data.as_bytes(), out)
        })
    }

    #[napi]
    pub fn end(&mut self) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.end(out)
        })
    }

    #[napi(getter)]
    pub fn finished(&self) -> bool {
        self.poisoned || self.inner.is_finished()
    }
}

/// The state behind `OpenAIConverter` (one request).
#[napi(js_name = "NativeOpenAI")]
pub struct NativeOpenAI {
    inner: Tracked<OpenAIStream>,
    poisoned: bool,
}

#[napi]
impl NativeOpenAI {
    #[napi(constructor)]
    pub fn new(limits_opt: Option<NativeLimits>) -> Self {
        let inner = OpenAIStream::new(OpenAIOptions {
            limits: limits(limits_opt),
        });
        NativeOpenAI {
            inner: Tracked::new(inner),
            poisoned: false,
        }
    }

    /// One `chat.completion.chunk` as JSON text: a batch of exactly one
    /// response, or of one error.
    #[napi]
    pub fn push_chunk(&mut self, chunk: String) -> Option<String> {
        step(&mut *self.inner, &mut self.poisoned, |inner, out| {
            out.push(inner.push_chunk_text(&chunk)?);
            Ok(())
        })
    }

    #[napi]
    pub fn push_bytes(&mut self, data: Uint8Array) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.push_bytes(&data, out)
        })
    }

    #[napi]
    pub fn push_text(&mut self, data: String) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.push_bytes(data.as_bytes(), out)
        })
    }

    #[napi]
    pub fn end(&mut self) -> Option<String> {
        step(&mut self.inner, &mut self.poisoned, |inner, out| {
            inner.end(out)
        })
    }

    #[napi(getter)]
    pub fn finished(&self) -> bool {
        self.poisoned || self.inner.is_finished()
    }
}
