//! The binding of the non-streaming conversions (core `nonstream`): one body
//! in (JSON text, or the raw bytes of the HTTP body), one batch out in the
//! wire protocol's format (core/src/wire/mod.rs): `[{"r": response, "u"?: usage
//! provenance, "t"?: reasoning part indexes}, 1]` (`write_body_item`, the
//! annotations written as for streams) or `[{"error": {…}}, 1]`, the state
//! word being "finished" (a body is a whole stream). `lib/bodies.js` decodes it with `lib/wire.js`. No state, no
//! handle: a panic becomes an `INTERNAL` error item.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use toolcall_stream_core::convert::nonstream::{body_text, BodyOptions, BodyResponse};
use toolcall_stream_core::convert::openai::ResponseParsing;
use toolcall_stream_core::convert::provider::provider;
use toolcall_stream_core::wire::{write_body_item, write_error, StateWord};
use toolcall_stream_core::{Error, ErrorCode, Profile};

use crate::{limits, NativeLimits};

/// Qwen's `responseParsingOptions` as `lib/converters/options.js` checked them.
#[napi(object)]
pub struct NativeResponseParsing {
    pub content_only_thinking_tag_leaks: Option<bool>,
    pub tagged_thinking_tags: Option<bool>,
    pub tagged_thinking_tags_after_reasoning: Option<bool>,
}

fn options(
    profile: String,
    l: Option<NativeLimits>,
    parsing: Option<NativeResponseParsing>,
) -> Result<BodyOptions, Error> {
    let parsing = parsing.map_or_else(ResponseParsing::default, |p| ResponseParsing {
        content_only_tag_leaks: p.content_only_thinking_tag_leaks.unwrap_or(false),
        tagged_thinking: p.tagged_thinking_tags.unwrap_or(false),
        tagged_thinking_after_reasoning: p.tagged_thinking_tags_after_reasoning.unwrap_or(false),
    });
    Ok(BodyOptions {
        profile: Profile::parse(&profile)?,
        limits: limits(l),
        parsing,
    })
}

/// The provider's row checks the profile (one of its own) before it converts.
fn convert(kind: &str, text: &str, options: &BodyOptions) -> Result<BodyResponse, Error> {
    provider(kind)?.convert_body(text, options)
}

fn item(f: impl FnOnce() -> Result<BodyResponse, Error>) -> String {
    let result = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::new(
            ErrorCode::Internal,
            "internal error in the native converter",
        ))
    });
    let finished = StateWord::FINISHED.encode();
    let mut out = match result {
        Ok(response) => {
            let mut out = String::with_capacity(response.json.len() + 48);
            out.push('[');
            write_body_item(&response, &mut out);
            out
        }
        Err(e) => {
            let mut out = String::from("[{\"error\":");
            write_error(&e, &mut out);
            out.push('}');
            out
        }
    };
    out.push(',');
    out.push_str(&finished.to_string());
    out.push(']');
    out
}

/// A non-streaming body as JSON text (`kind`: `anthropic` or `openai`;
/// `profile`: one of the provider's profiles, its `PROVIDERS` row).
#[napi]
pub fn convert_response_text(
    kind: String,
    text: String,
    profile: String,
    limits: Option<NativeLimits>,
    parsing: Option<NativeResponseParsing>,
) -> String {
    item(|| convert(&kind, &text, &options(profile, limits, parsing)?))
}

/// A non-streaming body as the HTTP body's bytes, read as the SDK's
/// `Response.json()` reads them.
#[napi]
pub fn convert_response_bytes(
    kind: String,
    data: Uint8Array,
    profile: String,
    limits: Option<NativeLimits>,
    parsing: Option<NativeResponseParsing>,
) -> String {
    item(|| {
        convert(
            &kind,
            &body_text(&data),
            &options(profile, limits, parsing)?,
        )
    })
}
