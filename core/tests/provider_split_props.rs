//! Split invariance of every row of `PROVIDERS`, through the seam: a body of
//! the row's fixture folder, and a random body made of its bodies' lines,
//! pushed in any random split (one byte at a time included) give exactly
//! what the whole body gives, under any of the row's releases.

mod common;
mod providers_common;

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;
use providers_common::{canonical, fixtures, run_bytes, Ending, Fixture};

/// The fixtures, read once for every case.
fn all() -> &'static [Fixture] {
    static ALL: OnceLock<Vec<Fixture>> = OnceLock::new();
    ALL.get_or_init(fixtures)
}

/// The pieces of `bytes` cut at `cuts` (indexes into it, any order).
fn pieces<'a>(bytes: &'a [u8], cuts: &[Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
    at.push(0);
    at.push(bytes.len());
    at.sort_unstable();
    at.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_corpus_body_in_any_split_gives_what_it_gives_whole(
        row: Index,
        which: Index,
        release: Index,
        cuts in prop::collection::vec(any::<Index>(), 0..40),
    ) {
        let f = &all()[row.index(all().len())];
        let s = &f.streams[which.index(f.streams.len())];
        let profile = f.releases[release.index(f.releases.len())].profile;
        let whole = run_bytes(&mut *f.converter(profile), &[&s.body], s.ending);
        let split = run_bytes(&mut *f.converter(profile), &pieces(&s.body, &cuts), s.ending);
        prop_assert_eq!(canonical(&split, &f.recorded), canonical(&whole, &f.recorded), "{} {}", f.provider.name, s.name);
    }

    #[test]
    fn a_random_body_of_corpus_lines_in_any_split_gives_what_it_gives_whole(
        row: Index,
        release: Index,
        picks in prop::collection::vec(any::<Index>(), 1..30),
        cuts in prop::collection::vec(any::<Index>(), 0..60),
    ) {
        // The row's lines, shuffled into a new body: frames cut apart, data
        // lines without their event, CRLF and blank lines mixed in.
        let f = &all()[row.index(all().len())];
        let profile = f.releases[release.index(f.releases.len())].profile;
        let lines: Vec<&[u8]> = f
            .streams
            .iter()
            .flat_map(|s| s.body.split_inclusive(|&c| c == b'\n'))
            .collect();
        let bytes: Vec<u8> = picks.iter().flat_map(|i| lines[i.index(lines.len())].to_vec()).collect();
        let whole = canonical(&run_bytes(&mut *f.converter(profile), &[&bytes], Ending::End), &f.recorded);
        let one_at_a_time: Vec<&[u8]> = bytes.chunks(1).collect();
        let each = run_bytes(&mut *f.converter(profile), &one_at_a_time, Ending::End);
        prop_assert_eq!(&canonical(&each, &f.recorded), &whole, "{}", f.provider.name);
        let split = run_bytes(&mut *f.converter(profile), &pieces(&bytes, &cuts), Ending::End);
        prop_assert_eq!(canonical(&split, &f.recorded), whole, "{}", f.provider.name);
    }
}
