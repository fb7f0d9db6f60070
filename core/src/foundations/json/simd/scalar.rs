//! The stop search a byte at a time: the yardstick the others are held to
//! and the slowest choice of the `stop-search-switch` feature. Never the
//! converters' own.

use super::stops::{is_stop, Stops, BLOCK, WINDOW};

/// A byte at a time.
pub(super) struct Scalar;

impl Stops for Scalar {
    #[cfg(any(test, feature = "stop-search-switch"))]
    const NAME: &'static str = "scalar";

    fn first_stop_in_block(block: &[u8; BLOCK]) -> usize {
        block.iter().position(|&c| is_stop(c)).unwrap_or(BLOCK)
    }

    fn first_stop_from(block: &[u8; BLOCK], from: usize) -> usize {
        block[from..]
            .iter()
            .position(|&c| is_stop(c))
            .map_or(BLOCK, |k| from + k)
    }

    fn stop_mask(w: &[u8; WINDOW]) -> u64 {
        w.iter()
            .enumerate()
            .fold(0, |m, (j, &c)| m | u64::from(is_stop(c)) << j)
    }

    fn find_stop(s: &[u8]) -> Option<usize> {
        s.iter().position(|&c| is_stop(c))
    }
}
