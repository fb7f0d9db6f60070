//! Split invariance of the OpenAI Responses stream: the corpus's bodies and
//! random bodies of its events and raw lines, pushed in any random split
//! (one byte at a time included), give exactly what the whole body gives.

mod common;
mod responses_common;

use proptest::prelude::*;
use proptest::sample::Index;
use responses_common::{body, run_bytes, streams, Corpus};
use toolcall_stream_core::Profile;

const CORPUS: Corpus = Corpus {
    dir: "openai-responses",
    releases: &[],
};

/// The pieces of `bytes` cut at `cuts` (indexes into it, any order).
fn pieces<'a>(bytes: &'a [u8], cuts: &[Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
    at.push(0);
    at.push(bytes.len());
    at.sort_unstable();
    at.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

/// Every body of the corpus, and the lines they are made of.
fn bodies() -> Vec<(Vec<u8>, bool)> {
    streams(&CORPUS)
        .iter()
        .map(|(_, items)| body(items))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_corpus_body_in_any_split_gives_what_it_gives_whole(
        which: Index,
        cuts in prop::collection::vec(any::<Index>(), 0..40),
        old in any::<bool>(),
    ) {
        let all = bodies();
        let (bytes, cut) = &all[which.index(all.len())];
        let profile = if old { Profile::Qwen0233 } else { Profile::Qwen024 };
        let whole = run_bytes(profile, &[bytes], *cut);
        prop_assert_eq!(run_bytes(profile, &pieces(bytes, &cuts), *cut), whole);
    }

    #[test]
    fn a_random_body_of_corpus_lines_in_any_split_gives_what_it_gives_whole(
        picks in prop::collection::vec(any::<Index>(), 1..30),
        cuts in prop::collection::vec(any::<Index>(), 0..60),
    ) {
        // The corpus's lines, shuffled into a new body: frames cut apart,
        // data lines without their event, CRLF and blank lines mixed in.
        let lines: Vec<Vec<u8>> = bodies()
            .into_iter()
            .flat_map(|(b, _)| b.split_inclusive(|&c| c == b'\n').map(<[u8]>::to_vec).collect::<Vec<_>>())
            .collect();
        let bytes: Vec<u8> = picks.iter().flat_map(|i| lines[i.index(lines.len())].clone()).collect();
        let whole = run_bytes(Profile::Qwen024, &[&bytes], false);
        let one_at_a_time: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(&run_bytes(Profile::Qwen024, &one_at_a_time, false), &whole);
        prop_assert_eq!(run_bytes(Profile::Qwen024, &pieces(&bytes, &cuts), false), whole);
    }
}
