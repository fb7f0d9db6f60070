//! Where accumulated argument text holds a lone UTF-16 surrogate.
//!
//! Tool-call arguments arrive as JSON string fragments and accumulate as
//! JSON text that the converters hand to JS verbatim. The reference joins
//! the fragments' JS strings, so a fragment's lone surrogate escape
//! (`"\udcb3"`) is one UTF-16 unit of its arguments. The accumulated text
//! keeps that unit as its 6-byte `\uXXXX` escape: inside a string literal
//! `JSON.parse` reads it back as the unit, and a pair split between two
//! fragments rejoins. A fragment's literal backslash followed by `udcb3`
//! (`"\\udcb3"`) is the same six bytes. The two differ only where the
//! arguments are not JSON and are repaired: `jsonrepair` reads the unit as
//! one character and the literal as a backslash and letters
//! (packages/core/src/utils/safeJsonParse.ts). So the decoders note where
//! they wrote the former, and the repair reads the text as the reference's
//! string ([`super::text::from_argument_text`]).

use super::escape::{decode_escape, is_lone_escape, Lone, LONE_ESCAPE_LEN};

/// The most bytes argument text keeps for one UTF-16 unit of the JS string
/// it came from: a lone surrogate as its 6-byte escape (UTF-8 takes at most
/// 3 bytes a unit). Text of `budget / MAX_BYTES_PER_UNIT` units cannot take
/// more than `budget` bytes.
pub const MAX_BYTES_PER_UNIT: usize = LONE_ESCAPE_LEN;

/// The byte offsets, ascending, at which a piece of argument text holds a
/// lone surrogate as its `\uXXXX` escape (the backslash's offset).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoneEscapes(Vec<usize>);

impl LoneEscapes {
    /// Text without lone surrogates.
    pub const fn new() -> LoneEscapes {
        LoneEscapes(Vec::new())
    }

    /// The text holds none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The offsets.
    pub fn offsets(&self) -> &[usize] {
        &self.0
    }

    /// A lone surrogate's escape was written at `at`, past every earlier one.
    pub fn note(&mut self, at: usize) {
        debug_assert!(self
            .0
            .last()
            .is_none_or(|&last| last + LONE_ESCAPE_LEN <= at));
        self.0.push(at);
    }

    /// The text was cut to `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        let keep = self.0.partition_point(|&at| at < len);
        self.0.truncate(keep);
    }

    /// `other`'s text was appended at byte `base`.
    pub fn append(&mut self, other: &LoneEscapes, base: usize) {
        self.0.extend(other.0.iter().map(|&at| base + at));
    }
}

/// Decodes validated string content into argument text `out` as
/// `super::escape::decode_into` does with [`Lone::Escape`], noting in
/// `lone` where each lone surrogate's escape is written.
pub(super) fn decode_into_noting(raw: &str, out: &mut String, lone: &mut LoneEscapes) {
    let b = raw.as_bytes();
    // SAFETY: as in `decode_into`.
    let v = unsafe { out.as_mut_vec() };
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'\\', &b[i..]) {
        v.extend_from_slice(&b[i..i + rel]);
        let at = v.len();
        i = decode_escape(b, i + rel, v, Lone::Escape).unwrap_or(b.len());
        if is_lone_escape(&v[at..]) {
            lone.note(at);
        }
    }
    v.extend_from_slice(&b[i.min(b.len())..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::text::{from_argument_text, to_json_text};

    fn noted(at: &[usize]) -> LoneEscapes {
        let mut lone = LoneEscapes::new();
        for &a in at {
            lone.note(a);
        }
        lone
    }

    #[test]
    fn noted_escapes_become_units_and_the_rest_stays_text() {
        // `{"a": \udcb3}` with the escape a unit, then a literal `\udcb3`.
        let text = r#"{"a": \udcb3, "b": \udcb3}"#;
        let lone = noted(&[6]);
        let form = from_argument_text(text, &lone);
        assert_eq!(form, "{\"a\": \u{F04B3}, \"b\": \\udcb3}");
        // Back to JSON text: the unit is its escape again.
        assert_eq!(to_json_text(&form), text);
    }

    #[test]
    fn a_pair_from_two_fragments_is_its_character() {
        let text = r#""\ud835\udc00\ud835""#;
        let lone = noted(&[1, 7, 13]);
        assert_eq!(from_argument_text(text, &lone), "\"\u{1D400}\u{F0035}\"");
        // A real character of the reserved range keeps its escape.
        let real = "\"\u{F0001}\\ud800\"";
        let lone = noted(&[5]);
        let form = from_argument_text(real, &lone);
        assert_eq!(to_json_text(&form), real);
    }

    #[test]
    fn truncation_and_appending_keep_offsets_in_step() {
        let mut lone = noted(&[0, 10, 20]);
        lone.truncate(20);
        assert_eq!(lone.offsets(), &[0, 10]);
        lone.truncate(10);
        assert_eq!(lone.offsets(), &[0]);
        lone.append(&noted(&[0, 6]), 30);
        assert_eq!(lone.offsets(), &[0, 30, 36]);
    }
}
