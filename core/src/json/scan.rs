//! String scanning: where plain string content stops (eight bytes at a
//! time), escape decoding with JavaScript's handling of lone surrogates, and
//! the one-pass scan + decode of argument fragments into a call's buffer.

use std::io::Write as _;

/// Scans JSON string content starting after the opening quote. Returns the
/// index of the closing quote and whether any escape occurred; `None` when
/// the content is not a valid JSON string.
pub fn scan_string(s: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    // The stops of 64 bytes at once while a window fits, walked by shifting
    // the window's mask (see `scan_into_windows`); then the padded tail.
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

/// Bytes the stop search looks at in one step.
const BLOCK: usize = 16;

/// Where the first byte that ends a run of plain string content (`"`, `\\`
/// or a control character a JSON string may not hold raw) lies in `block`;
/// `BLOCK` when there is none. SSE2 on x86_64 (part of its baseline, so no
/// runtime detection): three byte compares and a movemask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
    (block_stops(block) | 1 << BLOCK).trailing_zeros() as usize
}

/// Bit `j` set when byte `j` of `block` is a stop byte. SSE2 (part of the
/// x86_64 baseline, so no runtime detection): three byte compares and a
/// movemask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_stops(block: &[u8]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert!(block.len() >= BLOCK);
    // SAFETY: SSE2 is always available on x86_64; the unaligned load reads
    // the first 16 bytes of `block`, which has at least that many.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // Unsigned `v <= 0x1f`: max(v, 0x1f) == 0x1f.
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32 & 0xffff
    }
}

/// The portable version: [`first_stop_swar`], eight bytes at a time (SWAR: a byte is flagged when
/// it is zero after XOR with `"` or `\\`, or below 0x20; the lowest flag is
/// always exact, as the borrow of a subtraction only runs upwards).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
    first_stop_swar(block)
}

/// [`first_stop_in_block`] without SIMD, for targets other than x86_64
/// (compiled everywhere, so its tests run on every machine).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn first_stop_swar(block: &[u8; BLOCK]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    for (n, word) in block.chunks_exact(8).enumerate() {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let flags = (zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w))
            & HIGH;
        if flags != 0 {
            return n * 8 + (flags.trailing_zeros() / 8) as usize;
        }
    }
    BLOCK
}

/// The first byte that ends a run of plain string content: `"`, `\\` or a
/// control character a JSON string may not hold raw. A block at a time
/// ([`first_stop_in_block`]); the tail is the last block read again (x86_64)
/// or a byte at a time.
#[inline]
pub(crate) fn find_stop(s: &[u8]) -> Option<usize> {
    let mut blocks = s.chunks_exact(BLOCK);
    let mut at = 0;
    for block in &mut blocks {
        let mut b = [0; BLOCK];
        b.copy_from_slice(block);
        let k = first_stop_in_block(&b);
        if k < BLOCK {
            return Some(at + k);
        }
        at += BLOCK;
    }
    let tail = blocks.remainder();
    if tail.is_empty() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if s.len() >= BLOCK {
        // The last BLOCK bytes, overlapping what was searched: only the
        // tail's bits count. (Copying the tail into a padded block and
        // loading that stalls on store forwarding, the hot spot of the
        // OpenAI parser's depth scan of ~50-byte fragments.)
        let mask = block_stops(&s[s.len() - BLOCK..]) >> (BLOCK - tail.len());
        return (mask != 0).then(|| at + mask.trailing_zeros() as usize);
    }
    tail.iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
        .map(|k| at + k)
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
                        if lone == Lone::Private && super::stand_in::is_reserved(c) {
                            push(out, super::stand_in::ESCAPE);
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
                (None, Lone::Private) => push(out, super::stand_in::stand_in(hi)),
                (None, Lone::Refuse) => return None,
            }
            Some(next)
        }
        _ => None,
    }
}

/// The byte a two-character escape (`\\n`, `\\"`, …) stands for, by its
/// second character; 0 for `u` and for what is not an escape.
static SIMPLE_ESCAPE: [u8; 256] = {
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

/// Decodes the one escape of validated content `raw` whose backslash is at
/// `at` into `out`; returns where the content goes on.
pub(super) fn decode_one(raw: &str, at: usize, out: &mut String, lone: Lone) -> usize {
    let b = raw.as_bytes();
    // SAFETY: one whole decoded character (or ASCII escape) is appended.
    let v = unsafe { out.as_mut_vec() };
    decode_escape(b, at, v, lone).unwrap_or(b.len())
}

/// [`scan_string`] and [`super::JStr::append_json_text_to`] in one pass: scans the
/// string content of `s` from `i` (after the opening quote) and appends its
/// value to `out`, lone surrogates kept as escapes. Returns the index of the
/// closing quote; `None`, with `out` unchanged, when the content is not a
/// valid JSON string.
pub fn scan_json_text_into(s: &str, i: usize, out: &mut String) -> Option<usize> {
    scan_decode_into(s, i, out, Lone::Escape, &mut ())
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
}

/// Following nothing: the plain decoders.
impl Follow for () {
    #[inline(always)]
    fn plain(&mut self, _: &[u8]) {}
    #[inline(always)]
    fn decoded(&mut self, _: &[u8]) {}
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

/// Window the stop search covers at once in [`scan_into_windows`].
const WINDOW: usize = 64;

/// Bit `j` set when byte `j` of `w` is a stop byte. SSE2 on x86_64.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stop_mask(w: &[u8; WINDOW]) -> u64 {
    w.chunks_exact(BLOCK)
        .enumerate()
        .fold(0, |mask, (j, block)| {
            mask | u64::from(block_stops(block)) << (j * BLOCK)
        })
}

/// The portable version of [`stop_mask`]: a byte at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn stop_mask(w: &[u8; WINDOW]) -> u64 {
    w.iter().enumerate().fold(0, |m, (j, &c)| {
        m | (u64::from(c < 0x20 || c == b'"' || c == b'\\') << j)
    })
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
                }
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
            ], 0..80),
        ) {
            for from in 0..=bytes.len() {
                let want = bytes[from..].iter().position(|&c| STOP[usize::from(c)]);
                prop_assert_eq!(find_stop(&bytes[from..]), want);
                if let Some(block) = bytes.get(from..from + BLOCK) {
                    let mut b = [0; BLOCK];
                    b.copy_from_slice(block);
                    let want = want.unwrap_or(BLOCK).min(BLOCK);
                    prop_assert_eq!(first_stop_in_block(&b), want);
                    prop_assert_eq!(first_stop_swar(&b), want);
                }
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
                Just("a longer run of plain text"),
            ], 0..40),
        ) {
            let s: String = pieces.concat();
            let mut got = String::from("prefix");
            let end = scan_json_text_into(&s, 0, &mut got);
            let mut want = String::from("prefix");
            let scanned = scan_string(s.as_bytes(), 0);
            if let Some((end, _)) = scanned {
                decode_into(&s[..end], &mut want, Lone::Escape);
            }
            prop_assert_eq!(end, scanned.map(|(end, _)| end));
            prop_assert_eq!(&got, &want);
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
