//! JSON repair of tool arguments (`safe_json_parse`, the jsonrepair port):
//! never panics and never overflows the stack, whatever the depth limit;
//! what comes out is JSON that `JSON.parse` takes; the only error is the
//! depth limit. The first byte picks the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_core::foundations::json::{validate, LoneEscapes};
use toolcall_stream_core::foundations::repair::safe_json_parse;
use toolcall_stream_core::ErrorCode;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let depth = match first {
        0 => usize::MAX,
        n => usize::from(n),
    };
    match safe_json_parse(text, &LoneEscapes::new(), depth) {
        Ok(Some((out, kind))) => assert_eq!(validate(&out), Some(kind)),
        Ok(None) => {}
        Err(e) => assert_eq!(e.code, ErrorCode::LimitExceeded),
    }
});
