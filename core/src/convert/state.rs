//! The state word: what a converter tells its JS layer after every call,
//! as one number (an integer below 2^53, so that a JS number holds it
//! exactly). This file owns the bits every provider shares; the bits a
//! provider's object path depends on are declared by that provider
//! (`<provider>/object_path.rs`, its `word` module) and mean nothing to
//! the others.
//!
//! | bits   | field |
//! |--------|-------|
//! | 0      | `finished`: no more input is taken (end, fatal error, free) |
//! | 1–22   | the provider's own bits ([`word::PROVIDER_BITS`]) |
//! | 23–52  | `budget`: UTF-16 units of tool-call arguments that can still be gathered in JS before a limit could fail: the bytes left over [`MAX_BYTES_PER_UNIT`], so that the JS layer compares a string's `length` only; capped at 2^30 − 1 |

use crate::foundations::json::lone_escapes::MAX_BYTES_PER_UNIT;

/// The shared bits and fields of the word. The JS side reads them from
/// `lib/generated/wire-constants.js`, written from these by
/// `core/examples/wire_constants.rs`.
pub mod word {
    /// `finished`.
    pub const FINISHED: u64 = 1;
    /// The bits a provider may use for its object path (between `finished`
    /// and `budget`).
    pub const PROVIDER_BITS: u64 = ((1 << BUDGET_SHIFT) - 1) & !FINISHED;
    /// The lowest bit of `budget`.
    pub const BUDGET_SHIFT: u32 = 23;
}

/// The largest `budget` the word carries, in UTF-16 units.
const BUDGET_CAP: usize = (1 << 30) - 1;

/// A converter's state word, as the JS layer reads it (`lib/wire.js`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateWord(u64);

impl StateWord {
    /// A finished converter: the object path is closed.
    pub const FINISHED: StateWord = StateWord(word::FINISHED);

    /// A live converter without an object path.
    pub const OPEN: StateWord = StateWord(0);

    /// A live converter's word: the provider's `bits` ([`word::PROVIDER_BITS`])
    /// and the `budget` of argument bytes that may still be gathered in JS.
    pub fn open(bits: u64, budget: usize) -> StateWord {
        debug_assert_eq!(
            bits & !word::PROVIDER_BITS,
            0,
            "a provider bit outside its range"
        );
        let units = (budget / MAX_BYTES_PER_UNIT).min(BUDGET_CAP) as u64;
        StateWord((bits & word::PROVIDER_BITS) | units << word::BUDGET_SHIFT)
    }

    /// A finished converter's word that keeps some of the provider's `bits`
    /// (what its JS layer still reads after the end); no budget.
    pub fn finished_with(bits: u64) -> StateWord {
        debug_assert_eq!(
            bits & !word::PROVIDER_BITS,
            0,
            "a provider bit outside its range"
        );
        StateWord(word::FINISHED | (bits & word::PROVIDER_BITS))
    }

    /// `FINISHED` when `finished`, else `OPEN` (a provider without an
    /// object path).
    pub fn of(finished: bool) -> StateWord {
        if finished {
            StateWord::FINISHED
        } else {
            StateWord::OPEN
        }
    }

    /// The word as an integer.
    pub fn bits(self) -> u64 {
        self.0
    }

    /// Bit 0.
    pub fn is_finished(self) -> bool {
        self.0 & word::FINISHED != 0
    }

    /// The word as the JS number that carries it.
    pub fn encode(self) -> f64 {
        self.0 as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_crosses_in_utf16_units_capped() {
        let budget_only = |budget| StateWord::open(0, budget).bits();
        // The bytes over the most one unit can take, rounded down.
        assert_eq!(budget_only(47), 7 << 23);
        assert_eq!(budget_only(48), 8 << 23);
        assert_eq!(budget_only(5), 0);
        let max = StateWord::open(word::PROVIDER_BITS, usize::MAX);
        // Capped where a budget can pass the cap; on a 32-bit target the
        // largest budget is under it.
        let most = if usize::BITS > 32 {
            BUDGET_CAP
        } else {
            usize::MAX / MAX_BYTES_PER_UNIT
        };
        assert_eq!(max.bits() >> 23, most as u64);
        assert!(max.encode() < 2f64.powi(53));
        assert!(!max.is_finished());
        assert_eq!(StateWord::FINISHED.encode(), 1.0);
        assert_eq!(StateWord::finished_with(1 << 21).bits(), 1 | 1 << 21);
        assert_eq!(StateWord::of(true), StateWord::FINISHED);
        assert_eq!(StateWord::of(false).bits(), 0);
    }
}
