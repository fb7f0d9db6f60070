//! How often the byte path, the template path and the field path were taken, for the
//! core's own tests: the differential tests (conformance, split invariance,
//! templates) compare each path against the long way, and prove with these
//! counts that the path was taken at all. Compiled in only with the
//! `path-counters` feature, which core's tests turn on (core/Cargo.toml);
//! without it every function here is an empty `#[inline(always)]` and
//! `disabled` a constant `false`, so the converters pay nothing.
//!
//! The counts and the switches are per thread (each test runs on its own).
//! A switch turns a path's predicate off, so the path never fires and the
//! long way converts everything: outputs must not change, and a test's
//! count check must then fail (`core/tests/path_counters.rs`).

/// A conversion path other than the long way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Hot SSE events handed over whole, without line framing
    /// (`SseSink::raw_events`), and Anthropic's raw `content_block_delta`
    /// handling (`anthropic::byte_path`).
    Byte,
    /// OpenAI argument- and content-only chunks converted from a known
    /// chunk's bytes (`openai::template`).
    Template,
    /// OpenAI Responses frames converted the short way: a frame whole in a
    /// read handed on without the line reader's copies
    /// (`openai_responses::lines`), a hot event read field by field rather
    /// than into a tree, an event converted to nothing left unparsed
    /// (`openai_responses::frames`).
    Fields,
}

#[cfg(feature = "path-counters")]
mod on {
    use super::Path;
    use std::cell::Cell;

    thread_local! {
        static TAKEN: Cell<[u64; 3]> = const { Cell::new([0; 3]) };
        static OFF: Cell<[bool; 3]> = const { Cell::new([false; 3]) };
    }

    fn slot(path: Path) -> usize {
        match path {
            Path::Byte => 0,
            Path::Template => 1,
            Path::Fields => 2,
        }
    }

    pub fn taken(path: Path) {
        TAKEN.with(|t| {
            let mut counts = t.get();
            counts[slot(path)] += 1;
            t.set(counts);
        });
    }

    pub fn disabled(path: Path) -> bool {
        OFF.with(|o| o.get()[slot(path)])
    }

    pub fn count(path: Path) -> u64 {
        TAKEN.with(|t| t.get()[slot(path)])
    }

    pub fn reset() {
        TAKEN.with(|t| t.set([0; 3]));
    }

    pub fn set_disabled(path: Path, off: bool) {
        OFF.with(|o| {
            let mut switches = o.get();
            switches[slot(path)] = off;
            o.set(switches);
        });
    }
}

/// `path` was taken once (an event or a chunk).
#[inline(always)]
pub(crate) fn taken(path: Path) {
    #[cfg(feature = "path-counters")]
    on::taken(path);
    #[cfg(not(feature = "path-counters"))]
    let _ = path;
}

/// `path`'s predicate is switched off on this thread: it must not fire.
#[inline(always)]
pub(crate) fn disabled(path: Path) -> bool {
    #[cfg(feature = "path-counters")]
    return on::disabled(path);
    #[cfg(not(feature = "path-counters"))]
    {
        let _ = path;
        false
    }
}

/// How often `path` was taken on this thread since the last [`reset`].
#[cfg(feature = "path-counters")]
pub fn count(path: Path) -> u64 {
    on::count(path)
}

/// Sets this thread's counts to zero.
#[cfg(feature = "path-counters")]
pub fn reset() {
    on::reset()
}

/// Switches `path`'s predicate off (`true`) or back on, on this thread.
#[cfg(feature = "path-counters")]
pub fn set_disabled(path: Path, off: bool) {
    on::set_disabled(path, off)
}
