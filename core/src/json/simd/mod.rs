//! The stop search: where a run of plain JSON string content ends (`"`,
//! `\\` or a control character a JSON string may not hold raw), a block of
//! 16 bytes or a window of 64 at a time. Laid out as httparse
//! lays out its SIMD module: one file an instruction set, this one choosing.
//! - [`sse2`]: x86_64 (SSE2 is part of its baseline, so no runtime
//!   detection): three byte compares and a movemask a block.
//! - [`swar`]: every other target, eight bytes a word; compiled everywhere,
//!   so its tests run on every machine.

#[cfg(target_arch = "x86_64")]
mod sse2;
mod swar;

#[cfg(target_arch = "x86_64")]
pub(super) use sse2::{first_stop_in_block, stop_mask};
#[cfg(not(target_arch = "x86_64"))]
pub(super) use swar::{first_stop_in_block, stop_mask};

/// Bytes the stop search looks at in one step.
pub(super) const BLOCK: usize = 16;

/// Bytes whose stops one mask holds ([`stop_mask`]): the window of the
/// string scan and of the decoding walk.
pub(super) const WINDOW: usize = 64;

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
        let mask = sse2::block_stops(&s[s.len() - BLOCK..]) >> (BLOCK - tail.len());
        return (mask != 0).then(|| at + mask.trailing_zeros() as usize);
    }
    tail.iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
        .map(|k| at + k)
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

    proptest! {
        /// The block search finds exactly the first stop byte, and a
        /// window's mask exactly its stop bytes, at every alignment and with
        /// several candidates in one word, on both instruction sets.
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
                    prop_assert_eq!(swar::first_stop_in_block(&b), want);
                }
                if let Some(window) = bytes.get(from..from + WINDOW) {
                    let mut w = [0; WINDOW];
                    w.copy_from_slice(window);
                    let want = window.iter().enumerate().fold(0u64, |m, (j, &c)| {
                        m | u64::from(STOP[usize::from(c)]) << j
                    });
                    prop_assert_eq!(stop_mask(&w), want);
                    prop_assert_eq!(swar::stop_mask(&w), want);
                }
            }
        }
    }
}
