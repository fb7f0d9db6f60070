//! The object path as a provider's capability: what a provider offers the
//! JS layer's own conversion of hot SDK objects (`lib/object-path.js`),
//! beside the provider seam (`crate::convert::provider`). A provider with
//! an object path returns itself from `StreamConverter::object_path`; one
//! without declares none, and its state word says only whether it is
//! finished.
//!
//! The gathering calls are provider-shaped by nature: each provider
//! implements those its JS object path makes, and the others refuse with
//! `INVALID_ARGUMENT`. Nothing downcasts to a provider's type.

use crate::convert::state::StateWord;
use crate::foundations::error::{Error, ErrorCode};
use crate::model::gemini::Response;

/// The arguments a held call's stop counts against the limits
/// ([`ObjectPath::stop_held`]).
#[derive(Clone, Copy, Debug)]
pub enum HeldArgs<'a> {
    /// Well-formed text's UTF-8 length (`Buffer.byteLength`).
    Utf8Len(usize),
    /// Text with lone surrogates, as one JSON string literal.
    Encoded(&'a str),
}

/// A content-only delta's normalised text ([`ObjectPath::push_text_delta`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlainText {
    /// The delta's own text from this UTF-16 unit on (0: all of it).
    Suffix(usize),
    /// Text that is not the end of the delta's own: empty for no part.
    Text(String),
}

/// What a provider's object path offers: the state word its predicates
/// read, the header of the responses the JS layer builds, and its
/// gathering calls.
pub trait ObjectPath {
    /// The state word after a call that yielded `yielded`: `finished` and
    /// the provider's own bits (`<provider>/object_path.rs`).
    fn state_word(&mut self, yielded: &[Response]) -> StateWord;

    /// Writes the header item the JS layer builds responses with (the
    /// provider's own item, `crate::wire`) when it changed since the last
    /// one sent, and marks it sent; false when there is none to send. Runs
    /// after [`Self::state_word`].
    fn write_header_item(&mut self, out: &mut String) -> bool;

    /// Fragments gathered in JS for the block `index` (its JS number text),
    /// in order, joined; `json_encoded`: sent as a JSON string literal.
    fn append_gathered(
        &mut self,
        index: &str,
        fragments: &str,
        json_encoded: bool,
    ) -> Result<(), Error> {
        let _ = (index, fragments, json_encoded);
        Err(not_offered("appending gathered block fragments"))
    }

    /// The stop of block `index` whose arguments the JS layer kept: true
    /// when it applied (its responses in `out`), false when the block is
    /// not such a block (nothing changed).
    fn stop_held(
        &mut self,
        index: &str,
        args: HeldArgs<'_>,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        let _ = (index, args, out);
        Err(not_offered("a held call's stop"))
    }

    /// Argument fragments gathered in JS as the JSON text `[index,
    /// arguments, …]`, fed in order.
    fn push_gathered(&mut self, fragments: &str) -> Result<(), Error> {
        let _ = fragments;
        Err(not_offered("gathered argument fragments"))
    }

    /// A content-only delta's content, converted to its normalised text.
    fn push_text_delta(&mut self, content: &str) -> Result<PlainText, Error> {
        let _ = content;
        Err(not_offered("a content-only delta"))
    }
}

/// The error of a call this provider's object path does not take.
pub fn not_offered(what: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArgument,
        format!("this converter's object path does not take {what}"),
    )
}
