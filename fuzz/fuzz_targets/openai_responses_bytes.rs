//! The OpenAI Responses converter over raw SSE bytes: never panics, keeps
//! the finished-state contract, gives the same responses and errors for
//! any split of the bytes as for the whole body, under either profile and
//! with or without preparations (chosen by the seed's high bits).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_fuzz::{openai_responses_with, pieces, run_bytes, seed_and_body};

fuzz_target!(|data: &[u8]| {
    let (seed, body) = seed_and_body(data);
    let options = seed >> 12;
    let whole = run_bytes(&mut openai_responses_with(options), &[body]);
    let split = run_bytes(&mut openai_responses_with(options), &pieces(seed, body));
    assert_eq!(whole, split);
});
