//! The stop search with SSE2, part of the x86_64 baseline (no runtime
//! detection).

use super::stops::{Stops, BLOCK, WINDOW};

/// SSE2: 16 bytes a register.
pub(super) struct Sse2;

impl Stops for Sse2 {
    #[cfg(any(test, feature = "stop-search-switch"))]
    const NAME: &'static str = "sse2";

    #[inline(always)]
    fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
        (block_stops(block) | 1 << BLOCK).trailing_zeros() as usize
    }

    #[inline(always)]
    fn first_stop_from(block: &[u8; BLOCK], from: usize) -> usize {
        (block_stops(block) >> from | 1 << (BLOCK - from)).trailing_zeros() as usize + from
    }

    /// A block at a time.
    #[inline(always)]
    fn stop_mask(w: &[u8; WINDOW]) -> u64 {
        w.chunks_exact(BLOCK)
            .enumerate()
            .fold(0, |mask, (j, block)| {
                mask | u64::from(block_stops(block)) << (j * BLOCK)
            })
    }
}

/// Bit `j` set when byte `j` of `block` is a stop byte: three byte compares
/// and a movemask.
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
