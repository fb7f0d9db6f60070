//! The Anthropic converter over SDK events (one JSON text per line): never
//! panics, every output is valid JSON, and a fatal error finishes it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_core::ErrorCode;
use toolcall_stream_fuzz::{anthropic, check_responses};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut c = anthropic();
    let mut out = Vec::new();
    for line in text.split('\n') {
        if let Err(e) = c.push_event_text(line, &mut out) {
            assert_eq!(e.fatal, c.is_finished());
            if e.fatal {
                let again = c.push_event_text("{}", &mut out).unwrap_err();
                assert_eq!(again.code, ErrorCode::Finished);
                break;
            }
        }
    }
    if !c.is_finished() {
        let _ = c.end(&mut out);
    }
    assert!(c.is_finished());
    check_responses(&out, false);
});
