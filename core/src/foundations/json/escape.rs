//! Escape decoding with JavaScript's handling of lone surrogates: one
//! escape, or all the escapes of validated string content.

use std::io::Write as _;

use super::stand_in;

/// The length of the escape [`Lone::Escape`] keeps a lone surrogate as.
pub(super) const LONE_ESCAPE_LEN: usize = 6;

/// The value of four hex digits; `None` unless all four are hex digits.
fn hex4(b: &[u8]) -> Option<u32> {
    let b: &[u8; 4] = b.try_into().ok()?;
    b.iter().try_fold(0u32, |acc, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        Some(acc * 16 + u32::from(d))
    })
}

/// What decoding does with a lone UTF-16 surrogate escape (`"\ud800"`),
/// which a JS string holds and a Rust string cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lone {
    /// U+FFFD, as a value read on the Rust side.
    Replace,
    /// Kept as its lowercase `\uXXXX` escape: JSON text being accumulated,
    /// where a pair split across two fragments rejoins when JS parses it.
    Escape,
    /// The decoding fails: the exact value is wanted or nothing.
    Refuse,
    /// Held in the text form of [`super::text`]: a lone surrogate as its
    /// private-use stand-in, a decoded character that is itself one of the
    /// reserved characters behind the form's escape.
    Private,
}

/// Decodes the escape whose backslash is `b[at]` into `out` and returns
/// where the content goes on; `None` when it is not a valid JSON escape, or
/// is a lone surrogate and `lone` is [`Lone::Refuse`]. A surrogate pair of
/// escapes becomes its character.
pub(super) fn decode_escape(b: &[u8], at: usize, out: &mut Vec<u8>, lone: Lone) -> Option<usize> {
    let push = |out: &mut Vec<u8>, c: char| {
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    };
    let e = *b.get(at + 1)?;
    let simple = SIMPLE_ESCAPE[usize::from(e)];
    if simple != 0 {
        out.push(simple);
        return Some(at + 2);
    }
    match e {
        b'u' => {
            let hi = hex4(b.get(at + 2..at + 6)?)?;
            let next = at + 6;
            if (0xD800..0xDC00).contains(&hi) && b.get(next..next + 2) == Some(b"\\u") {
                if let Some(lo) = b.get(next + 2..next + 6).and_then(hex4) {
                    if (0xDC00..0xE000).contains(&lo) {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        let c = char::from_u32(c).unwrap_or('\u{FFFD}');
                        if lone == Lone::Private && stand_in::is_reserved(c) {
                            push(out, stand_in::ESCAPE);
                        }
                        push(out, c);
                        return Some(next + 6);
                    }
                }
            }
            match (char::from_u32(hi), lone) {
                (Some(c), _) => push(out, c),
                (None, Lone::Escape) => {
                    let _ = write!(out, "\\u{hi:04x}");
                }
                (None, Lone::Replace) => push(out, '\u{FFFD}'),
                (None, Lone::Private) => push(out, stand_in::stand_in(hi)),
                (None, Lone::Refuse) => return None,
            }
            Some(next)
        }
        _ => None,
    }
}

/// The byte a two-character escape (`\\n`, `\\"`, …) stands for, by its
/// second character; 0 for `u` and for what is not an escape.
pub(super) static SIMPLE_ESCAPE: [u8; 256] = {
    let mut t = [0; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0c;
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
    t
};

/// Decodes validated string content (escapes included) into `out`, a lone
/// surrogate escape as `lone` says (not [`Lone::Refuse`]).
pub(super) fn decode_into(raw: &str, out: &mut String, lone: Lone) {
    let b = raw.as_bytes();
    // SAFETY: only whole runs of `raw` that end before an ASCII backslash
    // (or at its end) and whole decoded characters are appended.
    let v = unsafe { out.as_mut_vec() };
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'\\', &b[i..]) {
        v.extend_from_slice(&b[i..i + rel]);
        // Validated content: every escape decodes.
        i = decode_escape(b, i + rel, v, lone).unwrap_or(b.len());
    }
    v.extend_from_slice(&b[i.min(b.len())..]);
}

/// What one escape decoded to is a lone surrogate kept as its escape
/// ([`Lone::Escape`]): no other escape decodes to a backslash and five
/// more bytes.
#[inline(always)]
pub(super) fn is_lone_escape(decoded: &[u8]) -> bool {
    decoded.len() == LONE_ESCAPE_LEN && decoded[0] == b'\\'
}

/// Decodes the one escape of validated content `raw` whose backslash is at
/// `at` into `out`; returns where the content goes on.
pub(super) fn decode_one(raw: &str, at: usize, out: &mut String, lone: Lone) -> usize {
    let b = raw.as_bytes();
    // SAFETY: one whole decoded character (or ASCII escape) is appended.
    let v = unsafe { out.as_mut_vec() };
    decode_escape(b, at, v, lone).unwrap_or(b.len())
}
