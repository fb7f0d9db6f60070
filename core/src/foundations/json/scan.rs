//! Scanning primitives: where a JSON string's content ends (checking its
//! escapes without decoding them) and where a number ends.

use super::escape::SIMPLE_ESCAPE;
use super::simd::{find_stop, stop_mask, WINDOW};

/// Scans JSON string content starting after the opening quote. Returns the
/// index of the closing quote and whether any escape occurred; `None` when
/// the content is not a valid JSON string.
pub fn scan_string(s: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    // The stops of 64 bytes at once while a window fits, walked by shifting
    // the window's mask (as `super::scan_decode` walks); then the padded tail.
    let mut window: Option<(usize, u64)> = None;
    loop {
        let stop = match window {
            Some((base, mask)) if i < base + WINDOW => {
                let ahead = mask >> (i - base);
                if ahead == 0 {
                    i = base + WINDOW;
                    window = None;
                    continue;
                }
                i + ahead.trailing_zeros() as usize
            }
            _ => match s.get(i..i + WINDOW) {
                Some(bytes) => {
                    let mut w = [0; WINDOW];
                    w.copy_from_slice(bytes);
                    window = Some((i, stop_mask(&w)));
                    continue;
                }
                None => i + find_stop(s.get(i..)?)?,
            },
        };
        match s[stop] {
            b'"' => return Some((stop, escaped)),
            b'\\' => {
                escaped = true;
                let e = *s.get(stop + 1)?;
                if SIMPLE_ESCAPE[usize::from(e)] != 0 {
                    i = stop + 2;
                } else if e == b'u' {
                    let hex = s.get(stop + 2..stop + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i = stop + 6;
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `scan_string` a byte at a time, as the grammar reads.
    fn scan_string_naive(s: &[u8], mut i: usize) -> Option<(usize, bool)> {
        let mut escaped = false;
        loop {
            match *s.get(i)? {
                b'"' => return Some((i, escaped)),
                b'\\' => {
                    escaped = true;
                    match *s.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' if s.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => i += 6,
                        _ => return None,
                    }
                }
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
    }

    proptest! {
        /// The window walk of `scan_string` is the grammar, from every start.
        #[test]
        fn scan_string_is_the_grammar(
            pieces in prop::collection::vec(prop_oneof![
                Just("a"), Just("é"), Just("\\\""), Just("\\\\"), Just("\\n"), Just("\\u00E9"),
                Just("\\u12"), Just("\\x"), Just("\\"), Just("\""), Just("\u{1}"),
                Just("a longer run of plain text"),
            ], 0..40),
        ) {
            let s: String = pieces.concat();
            for from in 0..=s.len() {
                prop_assert_eq!(scan_string(s.as_bytes(), from), scan_string_naive(s.as_bytes(), from));
            }
        }
    }
}
