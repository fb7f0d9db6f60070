//! The stop search with SSE2, part of the x86_64 baseline (no runtime
//! detection).

/// Bytes of one SSE2 register: a block of the stop search (`super::BLOCK`,
/// which the array types tie to this).
const BLOCK: usize = 16;
/// Bytes whose stops one `u64` mask holds (`super::WINDOW`).
const WINDOW: usize = 64;

/// Where the first byte that ends a run of plain string content (`"`, `\\`
/// or a control character a JSON string may not hold raw) lies in `block`;
/// `BLOCK` when there is none.
#[inline(always)]
pub(crate) fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
    (block_stops(block) | 1 << BLOCK).trailing_zeros() as usize
}

/// Bit `j` set when byte `j` of `block` is a stop byte: three byte compares
/// and a movemask.
#[inline(always)]
pub(super) fn block_stops(block: &[u8]) -> u32 {
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

/// Bit `j` set when byte `j` of `w` is a stop byte, a block at a time.
#[inline(always)]
pub(crate) fn stop_mask(w: &[u8; WINDOW]) -> u64 {
    w.chunks_exact(BLOCK)
        .enumerate()
        .fold(0, |mask, (j, block)| {
            mask | u64::from(block_stops(block)) << (j * BLOCK)
        })
}
