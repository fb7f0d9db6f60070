//! The binding's side of the wire protocol (`toolcall_stream_core::wire`
//! documents the format, `lib/wire.js` decodes it):
//!
//! - every converter call returns a [`Batch`]: the state word alone (a JS
//!   number) when nothing was converted and nothing failed, else the batch's
//!   JSON array text, the state word last, or (when a call's large string
//!   arguments were lifted out of it) an array of that text and the lifted
//!   strings;
//! - every other entry (constructors, the ACP classes, the helpers, the
//!   object path's OpenAI plain-text call) throws [`js_error`]: a napi `GenericFailure`
//!   whose message is the same error object as a batch's error item;
//! - a panic never unwinds across the boundary: [`step`] and the ACP guards
//!   turn it into an `INTERNAL` error, and the state it hit is closed.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::{Either3, ToNapiValue};
use napi::{check_status, sys};
use toolcall_stream_core::convert::object_path::ObjectPath;
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::wire::{self, StateWord};
use toolcall_stream_core::{Error, ErrorCode};

/// What a converter call returns: the batch's JSON text, the state word,
/// or the text followed by the string arguments lifted out of it.
pub type Batch = Either3<String, f64, TextAndStrings>;

/// The outcome of a call, with the state after it and the provider's
/// object path, asked for the header item to send
/// (`toolcall_stream_core::convert::object_path`), as one batch.
pub fn batch(
    responses: &mut [Response],
    error: Option<&Error>,
    state: StateWord,
    header: Option<&mut dyn ObjectPath>,
) -> Batch {
    match wire::batch(responses, error, state, header) {
        None => Either3::B(state.encode()),
        Some(b) if b.strings.is_empty() => Either3::A(b.text),
        Some(mut b) => {
            b.strings.insert(0, b.text);
            Either3::C(TextAndStrings(b.strings))
        }
    }
}

/// A batch's text and the strings lifted out of it, as one JS array. An
/// ASCII string (most file contents) is made as Latin-1, a plain copy,
/// where V8 would scan UTF-8 for multi-byte sequences before copying it.
/// Not in the WebAssembly build: there emnapi (@emnapi/core,
/// `napi_create_string_latin1`) builds a Latin-1 string a byte at a time in
/// JavaScript, where its UTF-8 path decodes the whole string in one
/// `TextDecoder` call: a 100 KB `write_file` stream converts 2.4× faster
/// there without it (benchmark/bench.mjs `--wasi`).
pub struct TextAndStrings(Vec<String>);

impl ToNapiValue for TextAndStrings {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let mut array = std::ptr::null_mut();
        check_status!(sys::napi_create_array_with_length(
            env,
            val.0.len(),
            &mut array
        ))?;
        for (i, s) in val.0.iter().enumerate() {
            let mut value = std::ptr::null_mut();
            let (ptr, len) = (s.as_ptr().cast(), s.len() as isize);
            if s.is_ascii() && !cfg!(target_arch = "wasm32") {
                check_status!(sys::napi_create_string_latin1(env, ptr, len, &mut value))?;
            } else {
                check_status!(sys::napi_create_string_utf8(env, ptr, len, &mut value))?;
            }
            check_status!(sys::napi_set_element(env, array, i as u32, value))?;
        }
        Ok(array)
    }
}

/// An error thrown rather than returned in a batch.
pub fn js_error(e: &Error) -> napi::Error {
    napi::Error::new(napi::Status::GenericFailure, wire::error_text(e))
}

/// The `INTERNAL` error of a caught panic.
pub fn panic_error(panic: Box<dyn std::any::Any + Send>, what: &str) -> Error {
    let why = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    Error::new(
        ErrorCode::Internal,
        format!("internal error in {what}: {why}"),
    )
}

/// Runs one conversion step on `inner` (refused with `FINISHED` when it is
/// `closed`), turning a panic into an `INTERNAL` error; after a panic the
/// state may be inconsistent, so it is closed. `report` writes the batch
/// from the converter after the step, what it yielded and the error: the
/// state word and the object path's header are read there.
pub fn step<S>(
    inner: &mut S,
    closed: &mut Option<&'static str>,
    f: impl FnOnce(&mut S, &mut Vec<Response>) -> Result<(), Error>,
    report: impl Fn(&mut S, &mut [Response], Option<&Error>) -> Batch,
) -> Batch {
    let mut out = Vec::new();
    let result = if let Some(why) = *closed {
        Err(Error::new(ErrorCode::Finished, why))
    } else {
        match catch_unwind(AssertUnwindSafe(|| f(inner, &mut out))) {
            Ok(r) => r,
            Err(panic) => {
                *closed = Some(AFTER_PANIC);
                Err(panic_error(panic, "the native converter"))
            }
        }
    };
    let error = result.err();
    if closed.is_some() {
        return batch(&mut out, error.as_ref(), StateWord::FINISHED, None);
    }
    match catch_unwind(AssertUnwindSafe(|| report(inner, &mut out, error.as_ref()))) {
        Ok(b) => b,
        Err(panic) => {
            *closed = Some(AFTER_PANIC);
            let error = error.unwrap_or_else(|| panic_error(panic, "the native converter"));
            batch(&mut out, Some(&error), StateWord::FINISHED, None)
        }
    }
}

pub const AFTER_PANIC: &str = "the converter is finished after an internal error";
