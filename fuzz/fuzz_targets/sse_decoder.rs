//! The SSE decoder: never panics, and any split of the bytes dispatches the
//! same events and fails with the same error at the same offset.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_core::foundations::sse::SseDecoder;
use toolcall_stream_core::Error;
use toolcall_stream_fuzz::{pieces, seed_and_body};

/// Each dispatched event as (event name, data).
type Events = Vec<(Option<String>, String)>;
/// The error that stopped the decoder, as (code, byte offset).
type Failure = Option<(String, Option<u32>)>;

fn run(pieces: &[&[u8]]) -> (Events, Failure) {
    let mut d = SseDecoder::new(1 << 24);
    let mut events = Vec::new();
    let fail = |e: Error| Some((e.code.as_str().to_owned(), e.offset));
    for p in pieces {
        let r = d.push(p, |e| {
            events.push((e.event.map(str::to_owned), e.data.to_owned()));
            Ok(())
        });
        if let Err(e) = r {
            return (events, fail(e));
        }
    }
    let r = d.finish(|e| {
        events.push((e.event.map(str::to_owned), e.data.to_owned()));
        Ok(())
    });
    (events, r.err().and_then(fail))
}

fuzz_target!(|data: &[u8]| {
    let (seed, body) = seed_and_body(data);
    let whole = run(&[body]);
    let split = run(&pieces(seed, body));
    assert_eq!(whole, split);
    let bytes: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(whole, run(&bytes));
});
