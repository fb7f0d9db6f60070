//! The keys of a batch's object items (`crate::wire`), and how an item's key
//! is written. The JS side reads them from `lib/generated/wire-constants.js`,
//! written from these by `core/examples/wire_constants.rs`.

/// A header item.
pub const HEADER: &str = "h";
/// A full item's response.
pub const RESPONSE: &str = "r";
/// A full item's tool-call preparations.
pub const PREPARATIONS: &str = "p";
/// A full item's sanitisation note (the OpenAI pipeline's).
pub const SANITIZED: &str = "s";
/// A full item's usage provenance.
pub const USAGE_PROVENANCE: &str = "u";
/// A full item's reasoning part indexes.
pub const REASONING_PARTS: &str = "t";
/// A full item's parts that hold a message's metadata: `[[part index,
/// message serial], …]` (`crate::convert::openai_responses::message_item`).
pub const MESSAGE_PARTS: &str = "n";
/// A full item's lifted arguments.
pub const LIFTED: &str = "x";
/// The error item.
pub const ERROR: &str = "error";

/// Opens an object item with its first key: `{"key":`. A provider's own
/// items (its object path's header, `crate::convert::object_path`) open
/// with their key too: none is one of these.
#[inline]
pub fn open_item(out: &mut String, key: &str) {
    out.push_str("{\"");
    out.push_str(key);
    out.push_str("\":");
}

/// Starts a further key of an item: `,"key":`.
#[inline]
pub(crate) fn next_key(out: &mut String, key: &str) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":");
}
