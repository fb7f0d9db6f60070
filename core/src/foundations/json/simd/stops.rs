//! What every instruction set's stop search shares (`super`): the block and
//! window sizes, the byte-at-a-time rule, and the interface each implements.
//! A leaf, so that the searches and the module that picks one do not import
//! each other.

/// Bytes the stop search looks at in one step.
pub(crate) const BLOCK: usize = 16;

/// Bytes whose stops one mask holds ([`stop_mask`]): the window of the
/// string scan and of the decoding walk.
pub(crate) const WINDOW: usize = 64;

/// A byte ends a run of plain string content: `"`, `\\` or a control
/// character. The byte-at-a-time form every search is held to.
#[inline(always)]
pub(super) fn is_stop(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// One instruction set's stop search. Each implementation answers exactly
/// as [`is_stop`] a byte at a time does.
pub(super) trait Stops {
    /// How [`StopSearch::name`] calls it.
    #[cfg(any(test, feature = "stop-search-switch"))]
    const NAME: &'static str;

    /// Where the first stop byte lies in `block`; `BLOCK` when there is none.
    fn first_stop_in_block(block: &[u8; BLOCK]) -> usize;

    /// Where the first stop byte at or after `from` (below `BLOCK`) lies in
    /// `block`; `BLOCK` when there is none. The tail of a search is the
    /// search's last whole block read again, its first `from` bytes already
    /// searched.
    fn first_stop_from(block: &[u8; BLOCK], from: usize) -> usize;

    /// Bit `j` set when byte `j` of `w` is a stop byte.
    fn stop_mask(w: &[u8; WINDOW]) -> u64;

    /// The first stop byte of `s`: a block at a time, then the tail as the
    /// last block read again, overlapping what was searched. (Copying the
    /// tail into a padded block and loading that stalls on store forwarding,
    /// the hot spot of the OpenAI parser's depth scan of ~50-byte
    /// fragments.) Only a string shorter than a block goes a byte at a time.
    #[inline(always)]
    fn find_stop(s: &[u8]) -> Option<usize> {
        let mut blocks = s.chunks_exact(BLOCK);
        let mut at = 0;
        for block in &mut blocks {
            let mut b = [0; BLOCK];
            b.copy_from_slice(block);
            let k = Self::first_stop_in_block(&b);
            if k < BLOCK {
                return Some(at + k);
            }
            at += BLOCK;
        }
        let tail = blocks.remainder();
        if tail.is_empty() {
            return None;
        }
        if let Some(last) = s.last_chunk::<BLOCK>() {
            let k = Self::first_stop_from(last, BLOCK - tail.len());
            return (k < BLOCK).then(|| s.len() - BLOCK + k);
        }
        tail.iter().position(|&c| is_stop(c)).map(|k| at + k)
    }
}
