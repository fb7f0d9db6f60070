//! The OpenAI Responses corpus (`__test__/fixtures/openai-responses`, the
//! outputs of Qwen Code's own Responses generator) through the core, under
//! each profile against the outputs of its release: as SSE bytes whole, as
//! SSE bytes split at every byte boundary, and, for streams of plain events,
//! one event at a time. Every response is compared as parsed JSON with
//! `createTime` masked; an error by Qwen's `name: message` (and, for the
//! stream errors, its `type` and `code`).
//!
//! Table-driven: a provider whose corpus follows the same layout adds a row
//! to [`CORPORA`].

mod common;
mod responses_common;

use responses_common::{body, expected, run_bytes, run_events, streams, Corpus, Out};
use toolcall_stream_core::Profile;

/// Each corpus and the releases whose outputs it holds, with the profile
/// that follows each.
const CORPORA: &[Corpus] = &[Corpus {
    dir: "openai-responses",
    releases: &[
        (Profile::Qwen0233, "expected-0.23.3"),
        (Profile::Qwen024, "expected-0.24.4"),
    ],
}];

#[test]
fn every_stream_matches_each_release_as_bytes_whole_and_split_anywhere() {
    for corpus in CORPORA {
        let all = streams(corpus);
        assert!(all.len() >= 40, "the corpus is there");
        for (name, items) in &all {
            let (bytes, cut) = body(items);
            for &(profile, dir) in corpus.releases {
                let want = expected(corpus, dir, name, cut);
                let how = format!("{name} under {}", profile.as_str());
                let whole = run_bytes(profile, &[&bytes], cut);
                Out::assert_matches(&whole, &want, &format!("{how}, whole"));
                // Every boundary of a small body, 512 spread over a large one.
                let step = if bytes.len() > 4096 {
                    bytes.len() / 512
                } else {
                    1
                };
                for at in (0..=bytes.len()).step_by(step) {
                    let split = run_bytes(profile, &[&bytes[..at], &bytes[at..]], cut);
                    assert_eq!(split, whole, "{how}, split at {at}");
                }
            }
        }
    }
}

#[test]
fn a_stream_of_events_matches_each_release_one_event_at_a_time() {
    let mut runs = 0;
    for corpus in CORPORA {
        for (name, items) in streams(corpus) {
            if items
                .iter()
                .any(|e| e.get("__raw__").is_some() || e.get("__cut__").is_some())
            {
                continue;
            }
            for &(profile, dir) in corpus.releases {
                let want = expected(corpus, dir, &name, false);
                let got = run_events(profile, &items);
                Out::assert_matches(
                    &got,
                    &want,
                    &format!("{name} under {}, events", profile.as_str()),
                );
                runs += 1;
            }
        }
    }
    assert!(runs >= 60, "{runs} runs");
}
