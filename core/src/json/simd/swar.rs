//! The portable stop search, for targets other than x86_64. Compiled
//! everywhere, so its tests run on every machine.

/// Bytes of a block of the stop search (`super::BLOCK`, which the array
/// types tie to this): two words.
const BLOCK: usize = 16;
/// Bytes whose stops one `u64` mask holds (`super::WINDOW`).
const WINDOW: usize = 64;

/// Where the first stop byte lies in `block`; `BLOCK` when there is none.
/// Eight bytes at a time (SWAR: a byte is flagged when it is zero after XOR
/// with `"` or `\\`, or below 0x20; the lowest flag is always exact, as the
/// borrow of a subtraction only runs upwards).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
pub(crate) fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
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

/// Bit `j` set when byte `j` of `w` is a stop byte, a byte at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
pub(crate) fn stop_mask(w: &[u8; WINDOW]) -> u64 {
    w.iter().enumerate().fold(0, |m, (j, &c)| {
        m | (u64::from(c < 0x20 || c == b'"' || c == b'\\') << j)
    })
}
