//! The object path's calls (`lib/object-path.js`: the JS layer's own
//! conversion of hot SDK objects): argument fragments gathered in JS handed
//! over in one call, a held call's stop, a content-only delta's text. Each
//! goes to the converter's object path, a capability its provider offers
//! beside the seam (`toolcall_stream_core::convert::object_path`); a
//! converter whose provider has none, or whose object path does not take
//! the call, fails with `INVALID_ARGUMENT`. Nothing here names a provider's
//! type.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::Either;
use napi_derive::napi;
use toolcall_stream_core::convert::object_path::{HeldArgs, ObjectPath, PlainText};
use toolcall_stream_core::{Error, ErrorCode};

use crate::wire::{self, AFTER_PANIC};
use crate::{js_error, on_converter, Converter, CONVERTERS};

/// The converter's object path, or the error of a provider without one.
fn object_path(c: &mut Converter) -> Result<&mut dyn ObjectPath, Error> {
    c.object_path().ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidArgument,
            "this converter's provider has no object path",
        )
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
    on_converter(slot, |c, _| {
        object_path(c)?.append_gathered(&index, &fragments, json_encoded)
    })
}

/// `content_block_stop` for a tool_use block whose arguments (valid JSON)
/// the JS layer gathered and keeps: a batch whose function call has `{}` for
/// the arguments, for the JS layer to fill in; `undefined` when the block is
/// not such a block (nothing changed: take the long way). What the
/// arguments take once appended: well-formed text's UTF-8 length
/// (`utf8_len`, `Buffer.byteLength`, which Node computes with SIMD where
/// V8's own count is a byte loop), or, for text with lone surrogates, the
/// text itself as a JSON string literal (`encoded`), counted by the object
/// path as `anthropic_append_input` would keep it.
#[napi(ts_return_type = "string | number | Array<string> | null")]
pub fn anthropic_stop_held(
    slot: f64,
    index: String,
    utf8_len: Option<f64>,
    encoded: Option<String>,
) -> Option<wire::Batch> {
    let args = match (&encoded, utf8_len) {
        (Some(encoded), _) => Ok(HeldArgs::Encoded(encoded)),
        (None, Some(n)) if n.is_finite() && n >= 0.0 => {
            Ok(HeldArgs::Utf8Len(n.min(usize::MAX as f64) as usize))
        }
        (None, _) => Err(Error::new(
            ErrorCode::InvalidArgument,
            "anthropicStopHeld needs the arguments' UTF-8 length or their JSON text",
        )),
    };
    let mut applies = true;
    let batch = on_converter(slot, |c, out| {
        applies = object_path(c)?.stop_held(&index, args?, out)?;
        Ok(())
    });
    applies.then_some(batch)
}

/// Argument-only tool-call deltas the JS layer gathered (the object path,
/// while quiet), as the JSON text `[index, arguments, index, arguments, …]`,
/// fed to the parser in order.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn openai_push_fragments(slot: f64, fragments: String) -> wire::Batch {
    on_converter(slot, |c, _| object_path(c)?.push_gathered(&fragments))
}

/// The content of a content-only delta, only while the state word says
/// `text_ready`: its normalised text, as the number of UTF-16 units of
/// `content` it starts after (0: `content` itself; the text is its suffix,
/// the common case, so no string is made) or as text (empty for no part).
/// The JS layer builds the response. Not a batch: the state word is the same
/// after the call (the OpenAI object path's text delta changes neither
/// `quiet` nor `text_ready`), and an error (only when not ready) is thrown.
#[napi(ts_return_type = "number | string")]
pub fn openai_push_text_delta(slot: f64, content: String) -> napi::Result<Either<f64, String>> {
    let result = CONVERTERS.with(slot, |e| {
        if e.closed.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "this call needs a ready converter",
            ));
        }
        catch_unwind(AssertUnwindSafe(|| {
            object_path(&mut e.converter)?.push_text_delta(&content)
        }))
        .unwrap_or_else(|panic| {
            e.closed = Some(AFTER_PANIC);
            Err(wire::panic_error(panic, "the native converter"))
        })
    });
    match result {
        Some(Ok(PlainText::Suffix(units))) => Ok(Either::A(units as f64)),
        Some(Ok(PlainText::Text(text))) => Ok(Either::B(text)),
        Some(Err(e)) => Err(js_error(&e)),
        None => Err(js_error(&Error::new(
            ErrorCode::InvalidArgument,
            "no live converter in this slot",
        ))),
    }
}
