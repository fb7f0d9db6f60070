//! The stop search: where a run of plain JSON string content ends (`"`,
//! `\\` or a control character a JSON string may not hold raw), a block of
//! 16 bytes or a window of 64 at a time. Laid out as httparse lays out its
//! SIMD module (https://github.com/seanmonstar/httparse/tree/master/src/simd):
//! one file an instruction set, this one choosing at build time, none of
//! them detected at run time.
//! - `sse2.rs`: x86_64, where SSE2 is part of the baseline: three byte
//!   compares and a movemask a block.
//! - `neon.rs`: little-endian aarch64 with NEON (every aarch64 target a
//!   Node.js addon is built for): three byte compares and a narrowing shift
//!   a block.
//! - `swar.rs`: every other target, eight bytes a word; its tests run on
//!   every machine.
//! - `scalar.rs` (tests and the switches below only): a byte at a time, the
//!   yardstick the others are held to.
//!
//! `memchr` is not used: its searches are for one to three given bytes,
//! and a stop is any of 34 (`"`, `\\` and 0x00–0x1f).
//!
//! Two switches compare them on one machine, and the addon's builds set
//! neither: the `stop-search-switch` feature (core's own tests), with which
//! `set_stop_search` picks the search on the calling thread at the cost of
//! a branch a call; and `--cfg stop_search="swar"` (or `"scalar"`) in
//! `RUSTFLAGS`, which builds the converters on that search with nothing in
//! between, for timing (`benchmark/stop-search.mjs`).

#[cfg(all(
    target_arch = "aarch64",
    target_feature = "neon",
    target_endian = "little"
))]
#[cfg_attr(any(stop_search = "scalar", stop_search = "swar"), allow(dead_code))]
mod neon;
#[cfg(any(test, feature = "stop-search-switch", stop_search = "scalar"))]
mod scalar;
#[cfg(target_arch = "x86_64")]
#[cfg_attr(any(stop_search = "scalar", stop_search = "swar"), allow(dead_code))]
mod sse2;
mod stops;

#[cfg(test)]
use stops::is_stop;
use stops::Stops;
pub(super) use stops::{BLOCK, WINDOW};
#[cfg(any(
    test,
    feature = "stop-search-switch",
    stop_search = "swar",
    not(any(
        target_arch = "x86_64",
        all(
            target_arch = "aarch64",
            target_feature = "neon",
            target_endian = "little"
        )
    ))
))]
mod swar;

/// The stop search the converters use: the target's own. A build with
/// `--cfg stop_search="swar"` (or `"scalar"`) in `RUSTFLAGS` uses that one
/// instead, so two binaries time two searches with nothing else between
/// them (`benchmark/stop-search.mjs`); the addon's builds never set it.
#[cfg(stop_search = "scalar")]
type Native = scalar::Scalar;
#[cfg(stop_search = "swar")]
type Native = swar::Swar;
#[cfg(all(
    not(any(stop_search = "scalar", stop_search = "swar")),
    target_arch = "x86_64"
))]
type Native = sse2::Sse2;
#[cfg(all(
    not(any(stop_search = "scalar", stop_search = "swar")),
    target_arch = "aarch64",
    target_feature = "neon",
    target_endian = "little"
))]
type Native = neon::Neon;
#[cfg(all(
    not(any(stop_search = "scalar", stop_search = "swar")),
    not(any(
        target_arch = "x86_64",
        all(
            target_arch = "aarch64",
            target_feature = "neon",
            target_endian = "little"
        )
    ))
))]
type Native = swar::Swar;

/// A stop search this build holds, for the tests that run the converters
/// on each.
#[cfg(any(test, feature = "stop-search-switch"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopSearch {
    /// A byte at a time.
    Scalar,
    /// Eight bytes a word in general-purpose registers.
    Swar,
    /// SSE2 (x86_64).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// NEON (little-endian aarch64).
    #[cfg(all(
        target_arch = "aarch64",
        target_feature = "neon",
        target_endian = "little"
    ))]
    Neon,
}

#[cfg(any(test, feature = "stop-search-switch"))]
impl StopSearch {
    /// Every stop search this build holds, the target's own last.
    pub const ALL: &'static [StopSearch] = &[
        StopSearch::Scalar,
        StopSearch::Swar,
        #[cfg(target_arch = "x86_64")]
        StopSearch::Sse2,
        #[cfg(all(
            target_arch = "aarch64",
            target_feature = "neon",
            target_endian = "little"
        ))]
        StopSearch::Neon,
    ];

    /// The one the converters use when none is set: the target's own (or
    /// the one a `stop_search` cfg forced).
    pub fn native() -> StopSearch {
        StopSearch::ALL
            .iter()
            .copied()
            .find(|s| s.name() == Native::NAME)
            .unwrap_or(StopSearch::Swar)
    }

    /// `scalar`, `swar`, `sse2` or `neon`.
    pub fn name(self) -> &'static str {
        match self {
            StopSearch::Scalar => scalar::Scalar::NAME,
            StopSearch::Swar => swar::Swar::NAME,
            #[cfg(target_arch = "x86_64")]
            StopSearch::Sse2 => sse2::Sse2::NAME,
            #[cfg(all(
                target_arch = "aarch64",
                target_feature = "neon",
                target_endian = "little"
            ))]
            StopSearch::Neon => neon::Neon::NAME,
        }
    }
}

#[cfg(feature = "stop-search-switch")]
mod switch {
    use super::StopSearch;
    use std::cell::Cell;

    thread_local! {
        static SELECTED: Cell<Option<StopSearch>> = const { Cell::new(None) };
    }

    pub(super) fn selected() -> Option<StopSearch> {
        SELECTED.with(Cell::get)
    }

    pub(super) fn select(search: Option<StopSearch>) {
        SELECTED.with(|s| s.set(search));
    }
}

/// Makes the converters on this thread use `search` (`None`: the target's
/// own). Only with the `stop-search-switch` feature.
#[cfg(feature = "stop-search-switch")]
pub fn set_stop_search(search: Option<StopSearch>) {
    switch::select(search);
}

/// The stop search the converters on this thread use.
#[cfg(feature = "stop-search-switch")]
pub fn stop_search() -> StopSearch {
    switch::selected().unwrap_or_else(StopSearch::native)
}

/// The crate's entry points: the target's search, or with the
/// `stop-search-switch` feature the one this thread selected (one branch on
/// a thread-local a call, which a build without the feature does not pay).
macro_rules! entry_points {
    ($($(#[$doc:meta])* fn $f:ident($a:ident: $t:ty) -> $r:ty;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $f($a: $t) -> $r {
            #[cfg(feature = "stop-search-switch")]
            let found = match switch::selected() {
                None => Native::$f($a),
                Some(StopSearch::Scalar) => scalar::Scalar::$f($a),
                Some(StopSearch::Swar) => swar::Swar::$f($a),
                #[cfg(target_arch = "x86_64")]
                Some(StopSearch::Sse2) => sse2::Sse2::$f($a),
                #[cfg(all(target_arch = "aarch64", target_feature = "neon", target_endian = "little"))]
                Some(StopSearch::Neon) => neon::Neon::$f($a),
            };
            #[cfg(not(feature = "stop-search-switch"))]
            let found = Native::$f($a);
            found
        }
    )*};
}

entry_points! {
    /// The first byte that ends a run of plain string content: `"`, `\\` or
    /// a control character a JSON string may not hold raw.
    fn find_stop(s: &[u8]) -> Option<usize>;
    /// Where the first stop byte lies in `block`; `BLOCK` when there is none.
    fn first_stop_in_block(block: &[u8; BLOCK]) -> usize;
    /// Bit `j` set when byte `j` of `w` is a stop byte.
    fn stop_mask(w: &[u8; WINDOW]) -> u64;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain byte loops every search is held to.
    fn first_stop(s: &[u8]) -> Option<usize> {
        s.iter().position(|&c| is_stop(c))
    }

    fn mask_of(w: &[u8]) -> u64 {
        w.iter()
            .enumerate()
            .fold(0, |m, (j, &c)| m | u64::from(is_stop(c)) << j)
    }

    /// Every entry point of `S` on `bytes` from every start (so every
    /// alignment and every tail length) against the byte loops.
    fn agrees<S: Stops>(bytes: &[u8]) -> Result<(), TestCaseError> {
        for from in 0..=bytes.len() {
            let s = &bytes[from..];
            let want = first_stop(s);
            prop_assert_eq!(S::find_stop(s), want, "{} find_stop from {}", S::NAME, from);
            if let Some(block) = s.first_chunk::<BLOCK>() {
                let want = want.unwrap_or(BLOCK).min(BLOCK);
                prop_assert_eq!(S::first_stop_in_block(block), want, "{} block", S::NAME);
                for skip in 0..BLOCK {
                    let want = first_stop(&block[skip..]).map_or(BLOCK, |k| skip + k);
                    prop_assert_eq!(
                        S::first_stop_from(block, skip),
                        want,
                        "{} from {}",
                        S::NAME,
                        skip
                    );
                }
            }
            if let Some(window) = s.first_chunk::<WINDOW>() {
                prop_assert_eq!(S::stop_mask(window), mask_of(window), "{} mask", S::NAME);
            }
        }
        Ok(())
    }

    /// Every search this target compiles, the native one among them.
    fn all_agree(bytes: &[u8]) -> Result<(), TestCaseError> {
        agrees::<scalar::Scalar>(bytes)?;
        agrees::<swar::Swar>(bytes)?;
        #[cfg(target_arch = "x86_64")]
        agrees::<sse2::Sse2>(bytes)?;
        #[cfg(all(
            target_arch = "aarch64",
            target_feature = "neon",
            target_endian = "little"
        ))]
        agrees::<neon::Neon>(bytes)?;
        Ok(())
    }

    /// `S` on one stop candidate `c` at `at` in `bytes`: the search from the
    /// start, from the candidate, and ending on it (every tail length as
    /// `at` moves); the block holding it and the one ending on it, from
    /// every start within the block; the window holding it.
    fn agrees_around<S: Stops>(bytes: &[u8], at: usize) -> Result<(), String> {
        let check = |what: &str, got: Option<usize>, want: Option<usize>| {
            (got == want)
                .then_some(())
                .ok_or(format!("{} {what}: {got:?}, not {want:?}", S::NAME))
        };
        check("find_stop", S::find_stop(bytes), first_stop(bytes))?;
        check(
            "from it",
            S::find_stop(&bytes[at..]),
            first_stop(&bytes[at..]),
        )?;
        check(
            "up to it",
            S::find_stop(&bytes[..=at]),
            first_stop(&bytes[..=at]),
        )?;
        for start in [at - at % BLOCK, (at + 1).saturating_sub(BLOCK)] {
            if let Some(block) = bytes[start..].first_chunk::<BLOCK>() {
                let want = first_stop(block).or(Some(BLOCK));
                check("block", Some(S::first_stop_in_block(block)), want)?;
                for skip in 0..BLOCK {
                    let want = first_stop(&block[skip..]).map_or(BLOCK, |k| skip + k);
                    check(
                        "block from",
                        Some(S::first_stop_from(block, skip)),
                        Some(want),
                    )?;
                }
            }
        }
        let window = &bytes[at - at % WINDOW..];
        if let Some(w) = window.first_chunk::<WINDOW>() {
            let (got, want) = (S::stop_mask(w), mask_of(w));
            (got == want)
                .then_some(())
                .ok_or(format!("{} mask: {got:#x}, not {want:#x}", S::NAME))?;
        }
        Ok(())
    }

    /// Each byte value alone at each position of a run of plain content,
    /// on every search this target compiles. The fills sit on both sides of
    /// the borrows and carries the word tricks care about.
    #[test]
    fn every_byte_value_at_every_position() {
        for fill in [b'a', 0x7f, 0xff] {
            for c in 0..=255u8 {
                for at in 0..WINDOW + BLOCK + 3 {
                    let mut bytes = vec![fill; WINDOW + BLOCK + 3];
                    bytes[at] = c;
                    let all =
                        agrees_around::<scalar::Scalar>(&bytes, at)
                            .and(agrees_around::<swar::Swar>(&bytes, at));
                    #[cfg(target_arch = "x86_64")]
                    let all = all.and(agrees_around::<sse2::Sse2>(&bytes, at));
                    #[cfg(all(
                        target_arch = "aarch64",
                        target_feature = "neon",
                        target_endian = "little"
                    ))]
                    let all = all.and(agrees_around::<neon::Neon>(&bytes, at));
                    if let Err(e) = all {
                        panic!("byte {c:#04x} at {at} among {fill:#04x}: {e}");
                    }
                }
            }
        }
    }

    /// The switch's names are the searches' own, and the target's own is
    /// the one the converters run: NEON on aarch64, SSE2 on x86_64.
    #[test]
    #[cfg(not(any(stop_search = "scalar", stop_search = "swar")))]
    fn the_native_search_is_the_targets_instruction_set() {
        let names: Vec<&str> = StopSearch::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names[..2], ["scalar", "swar"]);
        assert_eq!(StopSearch::native(), *StopSearch::ALL.last().unwrap());
        #[cfg(target_arch = "x86_64")]
        assert_eq!(Native::NAME, "sse2");
        #[cfg(target_arch = "aarch64")]
        assert_eq!(Native::NAME, "neon");
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        assert_eq!(Native::NAME, "swar");
    }

    proptest! {
        /// Every search finds exactly the first stop byte, and a window's
        /// mask exactly its stop bytes, from every start of random text with
        /// several candidates in one word.
        #[test]
        fn every_search_is_the_byte_loop(
            bytes in prop::collection::vec(prop_oneof![
                6 => 0x20u8..0x7f,
                1 => Just(b'"'),
                1 => Just(b'\\'),
                1 => 0u8..0x20,
                1 => 0x80u8..=0xff,
            ], 0..100),
        ) {
            all_agree(&bytes)?;
        }

        /// The same on sparse stops: long runs of plain bytes, where the
        /// window and block loops run to their ends.
        #[test]
        fn every_search_is_the_byte_loop_on_sparse_stops(
            bytes in prop::collection::vec(prop_oneof![
                60 => any::<u8>().prop_filter("plain", |&c| !is_stop(c)),
                1 => any::<u8>(),
            ], 0..200),
        ) {
            all_agree(&bytes)?;
        }
    }
}
