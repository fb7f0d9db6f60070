//! The portable stop search (SWAR, SIMD within a register), for targets
//! without SSE2 or NEON. Its tests run on every machine.
//!
//! Each byte of a word is classified exactly, with no borrow or carry
//! crossing into its neighbour: the seven low bits of every byte are added
//! to a constant below 0x80, so no sum leaves its byte, and the top bit is
//! taken from the byte itself (the exact form of "determine if a word has a
//! zero byte" in Sean Anderson's Bit Twiddling Hacks, which the same sum
//! with 0x60 turns into "is below 0x20"). Exact flags make a whole window's
//! mask, not only its first stop; a multiply gathers a word's eight flags
//! into one byte, as a movemask would.

use super::stops::{Stops, BLOCK, WINDOW};

const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;
const QUOTES: u64 = ONES * b'"' as u64;
const BACKSLASHES: u64 = ONES * b'\\' as u64;
/// Added to seven low bits, sets the top bit from 0x20 up.
const FROM_SPACE: u64 = ONES * (0x80 - 0x20);

/// Eight bytes a word in general-purpose registers.
pub(super) struct Swar;

impl Stops for Swar {
    #[cfg(any(test, feature = "stop-search-switch"))]
    const NAME: &'static str = "swar";

    #[inline(always)]
    fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
        let (lo, hi) = words(block);
        let lo = word_stops(lo);
        if lo != 0 {
            return (lo.trailing_zeros() / 8) as usize;
        }
        (8 + word_stops(hi).trailing_zeros() / 8) as usize
    }

    #[inline(always)]
    fn first_stop_from(block: &[u8; BLOCK], from: usize) -> usize {
        let (lo, hi) = words(block);
        let mask = (gather(word_stops(lo)) | gather(word_stops(hi)) << 8) >> from;
        (mask | 1 << (BLOCK - from)).trailing_zeros() as usize + from
    }

    #[inline(always)]
    fn stop_mask(w: &[u8; WINDOW]) -> u64 {
        let mut mask = 0;
        for (k, word) in w.chunks_exact(8).enumerate() {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(word);
            mask |= gather(word_stops(u64::from_le_bytes(bytes))) << (8 * k);
        }
        mask
    }
}

/// The two little-endian words of `block`.
#[inline(always)]
fn words(block: &[u8; BLOCK]) -> (u64, u64) {
    let mut lo = [0; 8];
    let mut hi = [0; 8];
    lo.copy_from_slice(&block[..8]);
    hi.copy_from_slice(&block[8..]);
    (u64::from_le_bytes(lo), u64::from_le_bytes(hi))
}

/// 0x80 in each byte of `w` that is a stop byte, 0 in every other.
#[inline(always)]
fn word_stops(w: u64) -> u64 {
    let low = w & LOW7;
    // Top bit set when the low seven bits are not those of `"`, of `\\`,
    // and make 0x20 or more; `| w` below then adds the bytes at or above
    // 0x80, which match none of the three.
    let not_quote = (low ^ QUOTES) + LOW7;
    let not_backslash = (low ^ BACKSLASHES) + LOW7;
    let not_control = low + FROM_SPACE;
    !((not_quote & not_backslash & not_control) | w) & HIGH
}

/// Bit `j` set when byte `j` of `flags` (0x80 or 0 each) is 0x80. Shifted
/// down to bit 8`j`, the flag meets the multiplier's bit 7(`k` + 1) in a
/// partial product at bit 8`j` + 7`k` + 7, which is 56 + `j` for
/// `k` = 7 − `j`; no two partial products share a bit, so nothing carries
/// into the top byte.
#[inline(always)]
fn gather(flags: u64) -> u64 {
    (flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}
