//! The stop search with NEON, part of the aarch64 baseline (no runtime
//! detection), on little-endian targets.
//!
//! NEON has no movemask. A block's first stop comes from the narrowing
//! shift that memchr uses (`movemask` of its `uint8x16_t` in
//! https://github.com/BurntSushi/memchr/blob/master/src/vector.rs):
//! `vshrn_n_u16(…, 4)` keeps four bits of every byte's 0x00/0xff compare
//! result, so a block becomes one `u64` with four bits a byte, and the first
//! stop is its trailing zeros over four. One instruction and one move to a
//! general register, where a bit per byte would take an AND with lane
//! weights and three pairwise adds.
//!
//! A window's mask must have one bit a byte (the walks above shift it by
//! byte counts), so there the four blocks are reduced together as simdjson
//! does (`simd8x64::to_bitmask` in `include/simdjson/arm64/simd.h`): each
//! compare result ANDed with its lane's bit (1, 2, … 0x80, twice), and
//! three rounds of pairwise adds (`vpaddq_u8`) fold 64 lanes into the 8
//! bytes of the mask, in byte order. Four blocks share the reduction: four
//! ANDs, four adds and one move for the window.

use std::arch::aarch64::{
    uint8x16_t, vandq_u8, vceqq_u8, vcltq_u8, vdupq_n_u8, vget_lane_u64, vgetq_lane_u64, vld1q_u8,
    vorrq_u8, vpaddq_u8, vreinterpret_u64_u8, vreinterpretq_u16_u8, vreinterpretq_u64_u8,
    vshrn_n_u16,
};

use super::stops::{Stops, BLOCK, WINDOW};

/// NEON: 16 bytes a register.
pub(super) struct Neon;

impl Stops for Neon {
    #[cfg(any(test, feature = "stop-search-switch"))]
    const NAME: &'static str = "neon";

    #[inline(always)]
    fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
        // Four bits a byte: no stop leaves 64 trailing zeros, so BLOCK.
        (nibbles(stops(load(block))).trailing_zeros() / 4) as usize
    }

    #[inline(always)]
    fn first_stop_from(block: &[u8; BLOCK], from: usize) -> usize {
        let ahead = nibbles(stops(load(block))) & u64::MAX << (4 * from);
        (ahead.trailing_zeros() / 4) as usize
    }

    #[inline(always)]
    fn stop_mask(w: &[u8; WINDOW]) -> u64 {
        const LANE_BITS: [u8; BLOCK] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        let bits = load(&LANE_BITS);
        let block = |k: usize| {
            let mut b = [0; BLOCK];
            b.copy_from_slice(&w[k * BLOCK..(k + 1) * BLOCK]);
            // SAFETY: NEON is enabled (the module's cfg); register
            // arithmetic only.
            unsafe { vandq_u8(stops(load(&b)), bits) }
        };
        // `vpaddq_u8(a, b)` adds neighbouring lanes: a's pairs make lanes
        // 0–7, b's lanes 8–15. After three rounds lane `k` (below 8) is the
        // sum of the weighted lanes of bytes 8`k`..8`k` + 8 of the window:
        // byte `k` of the mask, in order.
        // SAFETY: NEON is enabled (the module's cfg); register arithmetic
        // only.
        unsafe {
            let low = vpaddq_u8(block(0), block(1));
            let high = vpaddq_u8(block(2), block(3));
            let quads = vpaddq_u8(low, high);
            let octets = vpaddq_u8(quads, quads);
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(octets))
        }
    }
}

/// The 16 bytes of `block` in a register.
#[inline(always)]
fn load(block: &[u8; BLOCK]) -> uint8x16_t {
    // SAFETY: NEON is enabled (the module's cfg); the load reads the 16
    // bytes of `block`, with no alignment required.
    unsafe { vld1q_u8(block.as_ptr()) }
}

/// 0xff in each lane of `v` that is a stop byte, 0 in every other: three
/// compares, unsigned.
#[inline(always)]
fn stops(v: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is enabled (the module's cfg); register arithmetic only.
    unsafe {
        let quote = vceqq_u8(v, vdupq_n_u8(b'"'));
        let backslash = vceqq_u8(v, vdupq_n_u8(b'\\'));
        let control = vcltq_u8(v, vdupq_n_u8(0x20));
        vorrq_u8(vorrq_u8(quote, backslash), control)
    }
}

/// Four bits a byte of the 0x00/0xff lanes of `m`, byte `j` at bits
/// 4`j`..4`j` + 4: each 16-bit lane shifted right by four and narrowed to
/// its low byte keeps the high nibble of its low byte and the low nibble of
/// its high byte.
#[inline(always)]
fn nibbles(m: uint8x16_t) -> u64 {
    // SAFETY: NEON is enabled (the module's cfg); register arithmetic only.
    unsafe {
        vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(
            m,
        ))))
    }
}
