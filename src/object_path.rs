//! The object path's calls (`lib/object-path.js`: the JS layer's own
//! conversion of hot SDK objects): argument fragments gathered in JS handed
//! over in one call, a held call's stop, a content-only delta's text. They
//! are provider-shaped by nature, so they reach the concrete stream type
//! (`StreamConverter::as_any`) rather than the provider seam; each fails
//! with `INVALID_ARGUMENT` on a converter of another provider.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::Either;
use napi_derive::napi;
use toolcall_stream_core::convert::anthropic::AnthropicStream;
use toolcall_stream_core::convert::openai::object_path::PlainText;
use toolcall_stream_core::convert::openai::OpenAIStream;
use toolcall_stream_core::{Error, ErrorCode};

use crate::wire::{self, AFTER_PANIC};
use crate::{js_error, on_converter, Converter, CONVERTERS};

fn wrong_kind(expected: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("this call needs an {expected} converter"),
    )
}

fn anthropic(c: &mut Converter) -> Result<&mut AnthropicStream, Error> {
    c.as_any()
        .downcast_mut::<AnthropicStream>()
        .ok_or_else(|| wrong_kind("Anthropic"))
}

fn openai(c: &mut Converter) -> Result<&mut OpenAIStream, Error> {
    c.as_any()
        .downcast_mut::<OpenAIStream>()
        .ok_or_else(|| wrong_kind("OpenAI"))
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
        anthropic(c)?.append_input(&index, &fragments, json_encoded)
    })
}

/// `content_block_stop` for a tool_use block whose arguments (valid JSON)
/// the JS layer gathered and keeps: a batch whose function call has `{}` for
/// the arguments, for the JS layer to fill in; `undefined` when the block is
/// not such a block (nothing changed: take the long way). What the
/// arguments take once appended: well-formed text's UTF-8 length
/// (`utf8_len`, `Buffer.byteLength`, which Node computes with SIMD where
/// V8's own count is a byte loop), or, for text with lone surrogates, the
/// text itself as a JSON string literal (`encoded`), counted here as
/// `anthropic_append_input` would keep it.
#[napi(ts_return_type = "string | number | Array<string> | null")]
pub fn anthropic_stop_held(
    slot: f64,
    index: String,
    utf8_len: Option<f64>,
    encoded: Option<String>,
) -> Option<wire::Batch> {
    let bytes = match (&encoded, utf8_len) {
        (Some(encoded), _) => AnthropicStream::encoded_args_bytes(encoded),
        (None, Some(n)) if n.is_finite() && n >= 0.0 => Ok(n.min(usize::MAX as f64) as usize),
        (None, _) => Err(Error::new(
            ErrorCode::InvalidArgument,
            "anthropicStopHeld needs the arguments' UTF-8 length or their JSON text",
        )),
    };
    let mut applies = true;
    let batch = on_converter(slot, |c, out| {
        applies = anthropic(c)?.stop_with_held_args(&index, bytes?, out)?;
        Ok(())
    });
    applies.then_some(batch)
}

/// Argument-only tool-call deltas the JS layer gathered (the object path,
/// while quiet), as the JSON text `[index, arguments, index, arguments, …]`,
/// fed to the parser in order.
#[napi(ts_return_type = "string | number | Array<string>")]
pub fn openai_push_fragments(slot: f64, fragments: String) -> wire::Batch {
    on_converter(slot, |c, _| openai(c)?.push_fragments_text(&fragments))
}

/// The content of a content-only delta, only while the state word says
/// `text_ready`: its normalised text, as the number of UTF-16 units of
/// `content` it starts after (0: `content` itself; the text is its suffix,
/// the common case, so no string is made) or as text (empty for no part).
/// The JS layer builds the response. Not a batch: the state word is the same
/// after the call (`OpenAIStream::push_plain_text` changes neither `quiet`
/// nor `text_ready`), and an error (only when not ready) is thrown.
#[napi(ts_return_type = "number | string")]
pub fn openai_push_text_delta(slot: f64, content: String) -> napi::Result<Either<f64, String>> {
    let result = CONVERTERS.with(slot, |e| {
        catch_unwind(AssertUnwindSafe(|| {
            match e.converter.as_any().downcast_mut::<OpenAIStream>() {
                Some(s) if e.closed.is_none() => s.push_plain_text(&content),
                _ => Err(wrong_kind("ready OpenAI")),
            }
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
