//! The anthropic converter over raw SSE bytes: never panics, keeps the
//! finished-state contract, and gives the same responses and errors for any
//! split of the bytes as for the whole body.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_fuzz::{anthropic, pieces, run_bytes, seed_and_body};

fuzz_target!(|data: &[u8]| {
    let (seed, body) = seed_and_body(data);
    let whole = run_bytes(&mut anthropic(), &[body]);
    let split = run_bytes(&mut anthropic(), &pieces(seed, body));
    assert_eq!(whole, split);
});
