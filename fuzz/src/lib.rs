//! Shared drivers of the fuzz targets: split the input into pieces, run a
//! converter to the end, and describe the outcome in a form that must not
//! depend on how the bytes were split (clock and generated ids masked).

use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream, ResponseParsing};
use toolcall_stream_core::convert::provider::StreamConverter;
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, ErrorCode, Profile};

pub mod providers;

/// The first two bytes seed the split points of the rest, so a corpus entry
/// is `<2 seed bytes><SSE body>`.
pub fn seed_and_body(data: &[u8]) -> (u64, &[u8]) {
    match data {
        [a, b, rest @ ..] => (u64::from(*a) << 8 | u64::from(*b), rest),
        _ => (0, data),
    }
}

/// Splits `body` at pseudo-random points drawn from `seed` (up to 16 cuts,
/// any position: inside lines, `\r\n` and multi-byte characters).
pub fn pieces(seed: u64, body: &[u8]) -> Vec<&[u8]> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    if body.is_empty() {
        return vec![body];
    }
    let n = (seed % 17) as usize;
    let mut cuts: Vec<usize> = (0..n).map(|_| (next() as usize) % body.len()).collect();
    cuts.sort_unstable();
    let mut out = Vec::with_capacity(n + 1);
    let mut at = 0;
    for c in cuts {
        out.push(&body[at..c]);
        at = c;
    }
    out.push(&body[at..]);
    out
}

/// One response without its clock value, generated ids masked.
pub fn describe(r: &Response) -> String {
    let mut r = r.clone();
    r.create_time = "".into();
    let mut s = String::new();
    r.write_item(&mut s);
    mask_generated_ids(&s)
}

/// `call_<digits>_<base36>` ids come from the clock and a random source.
fn mask_generated_ids(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\"call_") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 6..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let after = &tail[digits..];
        let suffix = after
            .strip_prefix('_')
            .map(|a| {
                a.bytes()
                    .take_while(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
                    .count()
            })
            .unwrap_or(0);
        if digits > 0 && suffix == 7 && after.as_bytes().get(8) == Some(&b'"') {
            out.push_str("\"<generated>\"");
            rest = &after[9..];
        } else {
            out.push_str("\"call_");
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn error_line(e: &Error) -> String {
    format!(
        "error {} offset={:?} fatal={}",
        e.code.as_str(),
        e.offset,
        e.fatal
    )
}

/// Feeds every piece and ends. A non-fatal error (bad JSON in one event)
/// leaves the rest of the input buffered: an empty push continues with it.
/// Checks the finished-state contract on the way.
pub fn run_bytes(c: &mut dyn StreamConverter, pieces: &[&[u8]]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut out = Vec::new();
    let record = |out: &mut Vec<Response>, lines: &mut Vec<String>| {
        lines.extend(out.drain(..).map(|r| describe(&r)));
    };
    for piece in pieces {
        let mut input: &[u8] = piece;
        loop {
            let result = c.push_bytes(input, &mut out);
            record(&mut out, &mut lines);
            match result {
                Ok(()) => break,
                Err(e) => {
                    lines.push(error_line(&e));
                    assert_eq!(e.fatal, c.finished(), "fatal errors finish the converter");
                    if e.fatal {
                        let again = c.push_bytes(b"data: {}\n\n", &mut out).unwrap_err();
                        assert_eq!(again.code, ErrorCode::Finished);
                        assert!(out.is_empty());
                        return lines;
                    }
                    input = &[];
                }
            }
        }
    }
    let result = c.end(&mut out);
    record(&mut out, &mut lines);
    // end() finishes the converter whatever happens.
    if let Err(e) = result {
        lines.push(error_line(&e));
    }
    assert!(c.finished(), "end() finishes the converter");
    assert_eq!(
        c.end(&mut out).map_err(|e| e.code),
        Err(ErrorCode::Finished)
    );
    lines
}

pub fn anthropic() -> AnthropicStream {
    AnthropicStream::new(AnthropicOptions::default())
}

pub fn openai() -> OpenAIStream {
    OpenAIStream::new(OpenAIOptions::default())
}

/// An OpenAI converter under the profile and response parsing that four
/// bits of `bits` choose (the provider options of
/// `getResponseParsingOptions`, off in `openai()`).
pub fn openai_with(bits: u64) -> OpenAIStream {
    OpenAIStream::new(OpenAIOptions {
        profile: if bits & 1 == 0 {
            Profile::Qwen021
        } else {
            Profile::Qwen024
        },
        parsing: ResponseParsing {
            content_only_tag_leaks: bits & 2 != 0,
            tagged_thinking: bits & 4 != 0,
            tagged_thinking_after_reasoning: bits & 8 != 0,
        },
        ..OpenAIOptions::default()
    })
}

/// Every response's JSON parses (as `JSON.parse` would: a lone surrogate
/// escape, which tool arguments keep on purpose, is valid) and every
/// preparation names a non-empty id
/// and tool. With `unique`, no call id is prepared twice (the OpenAI
/// `preparedToolCallIds` set, docs/behaviour.md §3.2.3).
pub fn check_responses(responses: &[Response], unique: bool) {
    let mut seen = std::collections::HashSet::new();
    for r in responses {
        let mut s = String::new();
        r.write_item(&mut s);
        if let Err(e) = toolcall_stream_core::foundations::json::parse(&s) {
            panic!("invalid output JSON {}: {s}", e.message);
        }
        for p in &r.preparations {
            assert!(!p.call_id.is_empty() && !p.tool_name.is_empty());
            assert!(
                seen.insert(p.call_id.clone()) || !unique,
                "{} prepared twice",
                p.call_id
            );
        }
    }
}
