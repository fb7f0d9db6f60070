//! The one-pass scan + decode: a JSON string's content checked and its
//! value appended to a buffer in the same walk (argument fragments into a
//! call's buffer, values read exactly), with a [`Follow`] shown what is
//! appended.

use super::escape::{decode_escape, is_lone_escape, Lone, SIMPLE_ESCAPE};
use super::lone_escapes::LoneEscapes;
use super::simd::{find_stop, first_stop_in_block, stop_mask, BLOCK, WINDOW};

/// [`super::scan_string`] and [`super::JStr::append_json_text_to`] in one pass: scans the
/// string content of `s` from `i` (after the opening quote) and appends its
/// value to `out`, lone surrogates kept as escapes and noted in `lone`
/// (their offsets in `out`). Returns the index of the closing quote;
/// `None`, with `out` and `lone` unchanged, when the content is not a valid
/// JSON string.
pub fn scan_json_text_into(
    s: &str,
    i: usize,
    out: &mut String,
    lone: &mut LoneEscapes,
) -> Option<usize> {
    let end = scan_decode_into(s, i, out, Lone::Escape, lone);
    if end.is_none() {
        lone.truncate(out.len());
    }
    end
}

/// [`scan_json_text_into`] over bytes not known to be UTF-8, showing
/// `follow` the text it appends as it appends it (the OpenAI tool-call
/// parser walks the arguments it accumulates in the same pass,
/// `ToolCallParser::append_string`). `None`, with `out` unchanged, also
/// when the string's raw text is not valid UTF-8 (escapes decode to whole
/// characters; only the runs copied as they are need the check, made when
/// a window of the walk holds a byte above ASCII); `follow` may then have
/// seen part of the text.
pub fn scan_json_bytes_following<F: Follow>(
    b: &[u8],
    i: usize,
    out: &mut String,
    follow: &mut F,
) -> Option<usize> {
    // SAFETY: `out` may hold invalid UTF-8 only between here and the check
    // below, which cuts it back to `mark` (a character boundary) unless the
    // raw text of the string, whose runs were appended, is valid.
    let v = unsafe { out.as_mut_vec() };
    let mark = v.len();
    match scan_into_windows::<F, true>(b, i, v, Lone::Escape, follow) {
        Some((end, high)) if !high || simdutf8::basic::from_utf8(&b[i..end]).is_ok() => Some(end),
        _ => {
            v.truncate(mark);
            None
        }
    }
}

/// What a decoding pass shows of the text it appends, in order.
pub trait Follow {
    /// Content copied as it is: it holds no `"`, `\\` or control
    /// character (those are where a run stops).
    fn plain(&mut self, run: &[u8]);
    /// The bytes one escape decoded to.
    fn decoded(&mut self, bytes: &[u8]);
    /// The escape just decoded was a lone surrogate, kept as its escape
    /// at offset `at` of the output.
    #[inline(always)]
    fn lone_escape(&mut self, _at: usize) {}
}

/// Following nothing: the plain decoders.
impl Follow for () {
    #[inline(always)]
    fn plain(&mut self, _: &[u8]) {}
    #[inline(always)]
    fn decoded(&mut self, _: &[u8]) {}
}

/// Noting where lone surrogates are kept as escapes.
impl Follow for LoneEscapes {
    #[inline(always)]
    fn plain(&mut self, _: &[u8]) {}
    #[inline(always)]
    fn decoded(&mut self, _: &[u8]) {}
    #[inline(always)]
    fn lone_escape(&mut self, at: usize) {
        self.note(at);
    }
}

/// Two followers, each shown everything.
impl<A: Follow, B: Follow> Follow for (&mut A, &mut B) {
    #[inline(always)]
    fn plain(&mut self, run: &[u8]) {
        self.0.plain(run);
        self.1.plain(run);
    }
    #[inline(always)]
    fn decoded(&mut self, bytes: &[u8]) {
        self.0.decoded(bytes);
        self.1.decoded(bytes);
    }
    #[inline(always)]
    fn lone_escape(&mut self, at: usize) {
        self.0.lone_escape(at);
        self.1.lone_escape(at);
    }
}

/// Scans the string content of `s` from `i` (after the opening quote) and
/// appends the exact value JS gets for it to `out`, in the same pass.
/// Returns the index of the closing quote; `None`, with `out` unchanged,
/// when the content is not a valid JSON string or its value holds a lone
/// surrogate (which a Rust string cannot).
pub fn scan_value_into(s: &str, i: usize, out: &mut String) -> Option<usize> {
    scan_decode_into(s, i, out, Lone::Refuse, &mut ())
}

fn scan_decode_into<F: Follow>(
    s: &str,
    i: usize,
    out: &mut String,
    lone: Lone,
    follow: &mut F,
) -> Option<usize> {
    // SAFETY: `scan_into` leaves `v` valid UTF-8 when it returns `Some`
    // (whole runs of `s` ending before an ASCII stop byte, and whole decoded
    // characters); on `None` it is cut back to `mark`, a character boundary.
    let v = unsafe { out.as_mut_vec() };
    let mark = v.len();
    let end = scan_into_windows::<F, false>(s.as_bytes(), i, v, lone, follow).map(|(end, _)| end);
    if end.is_none() {
        v.truncate(mark);
    }
    end
}

/// [`scan_into`] with the stops of 64 bytes found at once: the next stop is
/// a shift and a count of the window's mask, not a load and compare that
/// waits for the previous stop, so escape-dense text (argument fragments
/// hold JSON text, one escape every few bytes) does not run at the latency
/// of one SIMD compare per escape. Runs are copied as a whole window into
/// spare capacity, reserved once a window. The last 64 bytes go to
/// [`scan_into`].
fn scan_into_windows<F: Follow, const CHECK_HIGH: bool>(
    b: &[u8],
    mut i: usize,
    out: &mut Vec<u8>,
    lone: Lone,
    follow: &mut F,
) -> Option<(usize, bool)> {
    // With CHECK_HIGH: a window of the walk held a byte above ASCII. Every
    // byte the walk copies lies in some window it loads (an escape that
    // runs past one is ASCII).
    let mut high = false;
    while let Some(window) = b.get(i..i + WINDOW) {
        let mut w = [0; WINDOW];
        w.copy_from_slice(window);
        let mask = stop_mask(&w);
        if CHECK_HIGH {
            high |= any_high(&w);
        }
        let base = i;
        let end = base + WINDOW;
        // What the window can add: its bytes (an escape that starts in it
        // may run 11 bytes past it; none decodes longer than it is written)
        // and a whole window copied past the last of them.
        out.reserve(3 * WINDOW);
        while i < end {
            let ahead = mask >> (i - base);
            if ahead == 0 {
                out.extend_from_slice(&b[i..end]);
                follow.plain(&b[i..end]);
                i = end;
                break;
            }
            let stop = i + ahead.trailing_zeros() as usize;
            let run = stop - i;
            if b.len() - i >= WINDOW {
                let len = out.len();
                // SAFETY: the window's `reserve` left room for WINDOW bytes
                // past `len`, and `b` holds WINDOW bytes from `i`; only the
                // `run` bytes before the stop become part of `out`.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        b.as_ptr().add(i),
                        out.as_mut_ptr().add(len),
                        WINDOW,
                    );
                    out.set_len(len + run);
                }
            } else {
                out.extend_from_slice(&b[i..stop]);
            }
            follow.plain(&b[i..stop]);
            match b[stop] {
                b'"' => return Some((stop, high)),
                b'\\' => {
                    let simple = SIMPLE_ESCAPE[usize::from(*b.get(stop + 1)?)];
                    if simple != 0 {
                        let len = out.len();
                        // SAFETY: within the window's `reserve`, as above.
                        unsafe {
                            *out.as_mut_ptr().add(len) = simple;
                            out.set_len(len + 1);
                        }
                        follow.decoded(&[simple]);
                        i = stop + 2;
                    } else {
                        let len = out.len();
                        i = decode_escape(b, stop, out, lone)?;
                        follow.decoded(&out[len..]);
                        if is_lone_escape(&out[len..]) {
                            follow.lone_escape(len);
                        }
                    }
                }
                _ => return None,
            }
        }
    }
    // The tail is not looked at byte by byte here.
    scan_into(b, i, out, lone, follow).map(|end| (end, CHECK_HIGH))
}

/// A byte of `w` is above ASCII.
#[inline(always)]
fn any_high(w: &[u8; WINDOW]) -> bool {
    let mut words = 0;
    for k in 0..WINDOW / 8 {
        let word: [u8; 8] = w[k * 8..k * 8 + 8].try_into().unwrap_or_default();
        words |= u64::from_ne_bytes(word);
    }
    words & 0x8080_8080_8080_8080 != 0
}

/// A block at a time: each block is copied whole into `out`'s spare
/// capacity and `out` keeps the part before its first stop byte, so a run
/// costs no copy call of its own. Between stops `out` may end inside a
/// character (a block can cut one); it never does at a stop.
fn scan_into<F: Follow>(
    b: &[u8],
    mut i: usize,
    out: &mut Vec<u8>,
    lone: Lone,
    follow: &mut F,
) -> Option<usize> {
    loop {
        let k = match b.get(i..i + BLOCK) {
            Some(block) => {
                let mut block_bytes = [0; BLOCK];
                block_bytes.copy_from_slice(block);
                out.reserve(BLOCK);
                let len = out.len();
                // SAFETY: `reserve` made room for BLOCK bytes past `len`;
                // only the `k` bytes before the stop become part of `out`.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        block_bytes.as_ptr(),
                        out.as_mut_ptr().add(len),
                        BLOCK,
                    );
                    let k = first_stop_in_block(&block_bytes);
                    out.set_len(len + k);
                    k
                }
            }
            None => {
                let k = find_stop(b.get(i..)?)?;
                out.extend_from_slice(&b[i..i + k]);
                k
            }
        };
        follow.plain(&b[i..i + k]);
        i += k;
        if k == BLOCK {
            continue;
        }
        match b[i] {
            b'"' => return Some(i),
            b'\\' => {
                // Two-character escapes inline; `\\u` the long way.
                let simple = SIMPLE_ESCAPE[usize::from(*b.get(i + 1)?)];
                if simple != 0 {
                    out.push(simple);
                    follow.decoded(&[simple]);
                    i += 2;
                } else {
                    let len = out.len();
                    i = decode_escape(b, i, out, lone)?;
                    follow.decoded(&out[len..]);
                    if is_lone_escape(&out[len..]) {
                        follow.lone_escape(len);
                    }
                }
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::escape::decode_into;
    use crate::foundations::json::lone_escapes::decode_into_noting;
    use crate::foundations::json::scan::scan_string;
    use proptest::prelude::*;

    proptest! {
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
                Just("a longer run of plain text"),
            ], 0..40),
        ) {
            let s: String = pieces.concat();
            let mut got = String::from("prefix");
            let mut lone = LoneEscapes::new();
            let end = scan_json_text_into(&s, 0, &mut got, &mut lone);
            let mut want = String::from("prefix");
            let mut want_lone = LoneEscapes::new();
            let scanned = scan_string(s.as_bytes(), 0);
            if let Some((end, _)) = scanned {
                decode_into_noting(&s[..end], &mut want, &mut want_lone);
                let mut plain = String::from("prefix");
                decode_into(&s[..end], &mut plain, Lone::Escape);
                prop_assert_eq!(&plain, &want);
            }
            prop_assert_eq!(end, scanned.map(|(end, _)| end));
            prop_assert_eq!(&got, &want);
            // The lone escapes are noted where they were written, and only
            // they: the text with them read as units is the text form
            // decoded directly.
            prop_assert_eq!(&lone, &want_lone);
            if let Some((end, _)) = scanned {
                let mut direct = String::from("prefix");
                decode_into(&s[..end], &mut direct, Lone::Private);
                prop_assert_eq!(crate::foundations::json::text::from_argument_text(&got, &lone), direct);
            } else {
                prop_assert!(lone.is_empty());
            }
            // The window walk and the block walk agree, from every start.
            for from in 0..s.len() {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let ea = scan_into_windows::<(), false>(s.as_bytes(), from, &mut a, Lone::Escape, &mut ())
                    .map(|(end, _)| end);
                let eb = scan_into(s.as_bytes(), from, &mut b, Lone::Escape, &mut ());
                prop_assert_eq!(ea, eb);
                if ea.is_some() {
                    prop_assert_eq!(&a, &b);
                }
            }
        }

        /// `scan_value_into` gives the exact value or nothing: what decoding
        /// with U+FFFD for a lone surrogate gives when that replaced
        /// nothing (keeping lone surrogates as escapes gives the same text),
        /// else `None` with `out` unchanged.
        #[test]
        fn scan_value_into_is_the_exact_value_or_nothing(
            pieces in prop::collection::vec(prop_oneof![
                Just("a"), Just("é"), Just("😀"), Just("\\\\"), Just("\\\\u"), Just("\\n"),
                Just("\\u0041"), Just("\\ud83d"), Just("\\uDE00"), Just("\\ud83d\\ude00"),
                Just("\\uDBFF\\uDFFF"), Just("\\uFFFD"), Just("\\x"), Just("\""),
                Just("a longer run of plain text, more than one window of sixty-four bytes"),
            ], 0..40),
        ) {
            let s: String = pieces.concat();
            let mut got = String::from("prefix");
            let end = scan_value_into(&s, 0, &mut got);
            match scan_string(s.as_bytes(), 0) {
                Some((at, _)) => {
                    let (mut replaced, mut escaped) = (String::new(), String::new());
                    decode_into(&s[..at], &mut replaced, Lone::Replace);
                    decode_into(&s[..at], &mut escaped, Lone::Escape);
                    if replaced == escaped {
                        prop_assert_eq!(end, Some(at));
                        prop_assert_eq!(got, format!("prefix{replaced}"));
                    } else {
                        prop_assert_eq!(end, None);
                        prop_assert_eq!(got, "prefix");
                    }
                }
                None => {
                    prop_assert_eq!(end, None);
                    prop_assert_eq!(got, "prefix");
                }
            }
        }
    }
}
