//! JSON with JavaScript's semantics, without `serde_json::Value`.
//!
//! One job a file, each for the hot path:
//! - [`dom`]: [`parse`], a borrowed, lenient DOM for provider events, parsed
//!   and dropped without recursion (any depth, as `JSON.parse`). Strings
//!   stay escaped slices of the input until somebody asks for their value,
//!   and property lookup follows `JSON.parse` (the last duplicate key wins),
//!   so a converter reads events the way the TypeScript reference reads
//!   objects.
//! - [`fields`]: [`flat_fields`], the named fields of a flat object read in
//!   one pass without a tree (a provider's hot events), where that gives
//!   what [`parse`] gives; else the caller parses.
//! - `simd`: the stop search, where plain string content ends, a block
//!   at a time (SSE2 on x86_64, NEON on aarch64, SWAR elsewhere; core's
//!   tests pick one per thread with `set_stop_search`, under the
//!   `stop-search-switch` feature).
//! - `escape`: escape decoding, with JavaScript's lone surrogates.
//! - [`scan`]: where a string's content or a number ends, checked without
//!   decoding.
//! - [`scan_decode`]: the one-pass scan + decode of a string's content into
//!   a buffer (argument fragments into a call's buffer).
//! - [`validate`](mod@validate): is this text something `JSON.parse` accepts,
//!   and what is its top-level kind? Iterative (no recursion limit, like V8),
//!   used on accumulated tool arguments, whose text is then handed to JS
//!   verbatim.
//! - [`stringify`](mod@stringify): `JSON.stringify` output, byte for byte
//!   (integer-like keys first, shortest round-trip numbers, minimal escapes),
//!   written without recursion.
//! - [`lone_escapes`]: [`LoneEscapes`], where accumulated argument text
//!   holds a lone surrogate as its escape, for the repair to read the text
//!   as the reference's string.
//! - [`js_string`]: [`JsString`], a JS string owned on the Rust side with its
//!   lone UTF-16 surrogates, held as the text `JSON.stringify` writes for it.
//! - [`owned`]: [`OwnedValue`], an owned value of those strings, built by the
//!   core (the ACP frames) or read from JS, written as `JSON.stringify`
//!   writes it. The core has no second JSON stack: no `serde_json`.
//!
//! JavaScript's string semantics that are not JSON (`String(v)`, `trim`,
//! UTF-16 lengths) live in [`crate::foundations::js_text`].
#![warn(missing_docs)]

pub mod dom;
mod escape;
pub mod fields;
pub mod js_string;
pub mod lone_escapes;
pub mod owned;
pub mod scan;
pub mod scan_decode;
mod simd;
mod stand_in;
pub mod stringify;
pub mod text;
pub mod validate;

pub use dom::{get, nests_deeper_than, parse, parse_number, JStr, Value};
pub use fields::flat_fields;
pub use js_string::JsString;
pub use lone_escapes::LoneEscapes;
pub use owned::OwnedValue;
pub use scan::scan_string;
pub use scan_decode::{scan_json_bytes_following, scan_json_text_into, scan_value_into, Follow};
pub(crate) use simd::find_stop;
#[cfg(feature = "stop-search-switch")]
pub use simd::{set_stop_search, stop_search, StopSearch};
pub use stringify::{stringify, to_json_string, write_number, write_str, write_str_content};
pub use text::write_text;
pub use validate::{validate, Kind};
