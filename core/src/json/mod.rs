//! JSON with JavaScript's semantics, without `serde_json::Value`.
//!
//! One job a file, each for the hot path:
//! - [`dom`]: [`parse`], a borrowed, lenient DOM for provider events. Strings
//!   stay escaped slices of the input until somebody asks for their value,
//!   and property lookup follows `JSON.parse` (the last duplicate key wins),
//!   so a converter reads events the way the TypeScript reference reads
//!   objects.
//! - [`scan`]: string scanning: the word-at-a-time stop search, escape
//!   decoding, and the one-pass scan + decode of argument fragments.
//! - [`validate`](mod@validate): is this text something `JSON.parse` accepts,
//!   and what is its top-level kind? Iterative (no recursion limit, like V8),
//!   used on accumulated tool arguments, whose text is then handed to JS
//!   verbatim.
//! - [`stringify`](mod@stringify): `JSON.stringify` output, byte for byte
//!   (integer-like keys first, shortest round-trip numbers, minimal escapes).
//! - [`js_string`]: [`JsString`], a JS string owned on the Rust side with its
//!   lone UTF-16 surrogates, held as the text `JSON.stringify` writes for it.
//! - [`owned`]: [`OwnedValue`], an owned value of those strings, built by the
//!   core (the ACP frames) or read from JS, written as `JSON.stringify`
//!   writes it. The core has no second JSON stack: no `serde_json`.
//!
//! JavaScript's string semantics that are not JSON (`String(v)`, `trim`,
//! UTF-16 lengths) live in [`crate::js_text`].
#![warn(missing_docs)]

pub mod dom;
pub mod js_string;
pub mod owned;
pub mod scan;
mod stand_in;
pub mod stringify;
pub mod text;
pub mod validate;

pub use dom::{get, parse, parse_number, JStr, Value};
pub use js_string::JsString;
pub use owned::OwnedValue;
pub(crate) use scan::find_stop;
pub use scan::{
    scan_json_bytes_following, scan_json_text_into, scan_string, scan_value_into, Follow,
};
pub use stringify::{stringify, to_json_string, write_number, write_str, write_str_content};
pub use text::write_text;
pub use validate::{validate, Kind};
