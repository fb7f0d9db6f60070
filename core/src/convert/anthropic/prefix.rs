//! Prefix tests for the hot paths, without a call to `memcmp`.
//!
//! The raw event paths test every event against constant prefixes of a few
//! dozen bytes (`event: content_block_delta\ndata: `, the event's head) and
//! every OpenAI chunk against its template's ~200 bytes. `str::starts_with`
//! calls `memcmp` for each: with its call and length dispatch that was a
//! sixth of the Anthropic core's samples. Here the bytes are compared eight
//! at a time as words, OR-ing the differences, so a constant prefix becomes
//! a short run of loads and compares.

/// The 8 bytes of `b` from `at` as a word.
#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_ne_bytes(w)
}

/// Whether `s` starts with `prefix`.
#[inline(always)]
pub fn has_prefix(s: &[u8], prefix: &[u8]) -> bool {
    let n = prefix.len();
    if s.len() < n {
        return false;
    }
    if n < 8 {
        // A byte loop: slice equality would call `memcmp` (bcmp) again.
        return s.iter().zip(prefix).all(|(a, b)| a == b);
    }
    let mut diff = 0;
    let mut at = 0;
    while at + 8 <= n {
        diff |= word(s, at) ^ word(prefix, at);
        at += 8;
    }
    if at < n {
        // The last word overlaps the one before it.
        diff |= word(s, n - 8) ^ word(prefix, n - 8);
    }
    diff == 0
}

/// Whether `a` and `b` hold the same bytes (a block key against an event's
/// index: a digit or two, where `==` on strings calls `memcmp`).
#[inline(always)]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && has_prefix(a.as_bytes(), b.as_bytes())
}

/// `s` without `prefix`, when it starts with it ([`str::strip_prefix`]).
#[inline(always)]
pub fn strip<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    // Cutting after a whole prefix of `s` is on a character boundary.
    has_prefix(s.as_bytes(), prefix.as_bytes()).then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same answer as `starts_with` for every length, in particular
        /// a difference in any byte of a prefix of 8 or more.
        #[test]
        fn has_prefix_is_starts_with(
            s in proptest::collection::vec(0u8..4, 0..40),
            p in proptest::collection::vec(0u8..4, 0..40),
        ) {
            prop_assert_eq!(has_prefix(&s, &p), s.starts_with(&p));
        }

        #[test]
        fn a_prefix_of_itself_with_one_byte_changed(
            s in proptest::collection::vec(any::<u8>(), 1..80),
            at in any::<prop::sample::Index>(),
            to in any::<u8>(),
        ) {
            let mut other = s.clone();
            let i = at.index(s.len());
            other[i] = to;
            prop_assert_eq!(has_prefix(&other, &s), to == s[i]);
        }

        #[test]
        fn same_is_eq(a in "[12]{0,10}", b in "[12]{0,10}") {
            prop_assert_eq!(same(&a, &b), a == b);
        }

        #[test]
        fn strip_is_strip_prefix(s in "[ab\u{e9}]{0,12}", p in "[ab\u{e9}]{0,12}") {
            prop_assert_eq!(strip(&s, &p), s.strip_prefix(p.as_str()));
        }
    }
}
