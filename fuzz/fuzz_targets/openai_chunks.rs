//! The OpenAI converter over chunks (one JSON text per line): never panics,
//! exactly one response per accepted chunk, every output is valid JSON, no
//! call id is prepared twice, and a fatal error finishes it; under every
//! profile and response-parsing option (chosen by the input's length).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_core::ErrorCode;
use toolcall_stream_fuzz::{check_responses, openai_with};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut c = openai_with(data.len() as u64);
    let mut out = Vec::new();
    for line in text.split('\n') {
        match c.push_chunk_text(line) {
            Ok(r) => out.push(r),
            Err(e) => {
                assert_eq!(e.fatal, c.is_finished());
                if e.fatal {
                    let again = c.push_chunk_text("{}").unwrap_err();
                    assert_eq!(again.code, ErrorCode::Finished);
                    break;
                }
            }
        }
    }
    if !c.is_finished() {
        let _ = c.end(&mut out);
    }
    assert!(c.is_finished());
    check_responses(&out, true);
});
