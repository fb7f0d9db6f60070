//! String scanning: where plain string content stops (eight bytes at a
//! time), escape decoding with JavaScript's handling of lone surrogates, and
//! the one-pass scan + decode of argument fragments into a call's buffer.

use std::fmt::Write as _;

/// Scans JSON string content starting after the opening quote. Returns the
/// index of the closing quote and whether any escape occurred; `None` when
/// the content is not a valid JSON string.
pub fn scan_string(s: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        let stop = i + find_stop(&s[i..])?;
        match s[stop] {
            b'"' => return Some((stop, escaped)),
            b'\\' => {
                escaped = true;
                match s.get(stop + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = stop + 2,
                    b'u' => {
                        let hex = s.get(stop + 2..stop + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i = stop + 6;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
}

/// The first byte that ends a run of plain string content: `"`, `\\` or a
/// control character a JSON string may not hold raw. Eight bytes at a time
/// (SWAR: a byte is flagged when it is zero after XOR with `"` or `\\`, or
/// below 0x20; the lowest flag is always exact, as the borrow of a
/// subtraction only runs upwards), then a table lookup a byte for the tail.
#[inline]
pub(crate) fn find_stop(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let mut words = s.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let flags = (zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w))
            & HIGH;
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&c| STOP[usize::from(c)])
        .map(|p| at + p)
}

/// Bytes that end a run of plain string content.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Scans a JSON number at `i`; returns its end.
pub(super) fn scan_number(s: &[u8], mut i: usize) -> Option<usize> {
    if s.get(i) == Some(&b'-') {
        i += 1;
    }
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while matches!(s.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !matches!(s.get(i), Some(b'0'..=b'9')) {
            return None;
        }
        while matches!(s.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !matches!(s.get(i), Some(b'0'..=b'9')) {
            return None;
        }
        while matches!(s.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    Some(i)
}

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

/// Decodes the escape whose backslash is `b[at]` into `out` and returns
/// where the content goes on; `None` when it is not a valid JSON escape. A
/// surrogate pair of escapes becomes its character; a lone surrogate
/// becomes U+FFFD, or stays an escape with `keep_lone`.
fn decode_escape(b: &[u8], at: usize, out: &mut String, keep_lone: bool) -> Option<usize> {
    let c = match *b.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hi = hex4(b.get(at + 2..at + 6)?)?;
            let next = at + 6;
            if (0xD800..0xDC00).contains(&hi) && b.get(next..next + 2) == Some(b"\\u") {
                if let Some(lo) = b.get(next + 2..next + 6).and_then(hex4) {
                    if (0xDC00..0xE000).contains(&lo) {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        return Some(next + 6);
                    }
                }
            }
            match char::from_u32(hi) {
                Some(c) => out.push(c),
                None if keep_lone => {
                    let _ = write!(out, "\\u{hi:04x}");
                }
                None => out.push('\u{FFFD}'),
            }
            return Some(next);
        }
        _ => return None,
    };
    out.push(c);
    Some(at + 2)
}

/// Decodes validated string content (escapes included) into `out`. A lone
/// surrogate escape becomes U+FFFD, or stays an escape with `keep_lone`.
pub(super) fn decode_into(raw: &str, out: &mut String, keep_lone: bool) {
    let b = raw.as_bytes();
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&raw[i..i + rel]);
        // Validated content: every escape decodes.
        i = decode_escape(b, i + rel, out, keep_lone).unwrap_or(b.len());
    }
    out.push_str(&raw[i.min(b.len())..]);
}

/// [`scan_string`] and [`JStr::append_json_text_to`] in one pass: scans the
/// string content of `s` from `i` (after the opening quote) and appends its
/// value to `out`, lone surrogates kept as escapes. Returns the index of the
/// closing quote; `None`, with `out` unchanged, when the content is not a
/// valid JSON string.
pub fn scan_json_text_into(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let mark = out.len();
    let end = scan_into(s, i, out);
    if end.is_none() {
        out.truncate(mark);
    }
    end
}

fn scan_into(s: &str, mut i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    loop {
        let stop = i + find_stop(b.get(i..)?)?;
        // `stop` is an ASCII byte, so both ends are character boundaries.
        out.push_str(&s[i..stop]);
        match b[stop] {
            b'"' => return Some(stop),
            b'\\' => i = decode_escape(b, stop, out, true)?,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The word-at-a-time search finds exactly the first stop byte, at
        /// every alignment and with several candidates in one word.
        #[test]
        fn find_stop_is_the_first_stop_byte(
            bytes in prop::collection::vec(prop_oneof![
                6 => 0x20u8..0x7f,
                1 => Just(b'"'),
                1 => Just(b'\\'),
                1 => 0u8..0x20,
                1 => 0x80u8..=0xff,
            ], 0..40),
        ) {
            for from in 0..=bytes.len() {
                let want = bytes[from..].iter().position(|&c| STOP[usize::from(c)]);
                prop_assert_eq!(find_stop(&bytes[from..]), want);
            }
        }

        /// The one-pass scan + decode agrees with scan_string followed by
        /// decoding the scanned content (what `JStr::append_json_text_to`
        /// does), on valid and invalid content alike.
        #[test]
        fn scan_json_text_into_is_scan_then_append(
            pieces in prop::collection::vec(prop_oneof![
                Just("a"), Just("é"), Just("😀"), Just("\\\""), Just("\\\\"), Just("\\/"),
                Just("\\n"), Just("\\t"), Just("\\b"), Just("\\u0041"), Just("\\u00E9"),
                Just("\\ud83d"), Just("\\uDE00"), Just("\\ud83d\\ude00"), Just("\\u12"),
                Just("\\x"), Just("\\"), Just("\""), Just("\u{1}"), Just("tail"),
            ], 0..12),
        ) {
            let s: String = pieces.concat();
            let mut got = String::from("prefix");
            let end = scan_json_text_into(&s, 0, &mut got);
            let mut want = String::from("prefix");
            let scanned = scan_string(s.as_bytes(), 0);
            if let Some((end, _)) = scanned {
                decode_into(&s[..end], &mut want, true);
            }
            prop_assert_eq!(end, scanned.map(|(end, _)| end));
            prop_assert_eq!(got, want);
        }
    }
}
