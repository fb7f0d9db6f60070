//! The argument progress of bytes held before a converter
//! (`argument_progress_with_held` of both converters; the Qwen preload
//! holds back what the SDK's decoder has not handed on yet,
//! lib/qwen/sdk-frames.mjs): at every split of a body into bytes pushed and
//! bytes held, each prepared call counts exactly what it would count with
//! the held bytes pushed (every complete frame; a frame still arriving
//! counts once complete), several open calls each by its own index, with
//! `\n` line breaks and escapes split across the two; and reading it
//! changes nothing the converter yields afterwards.

use serde_json::json;
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::model::argument_progress::ArgumentProgress;
use toolcall_stream_core::model::gemini::Response;

/// An SSE frame, its lines ended by `eol` (`\n`, `\r` or `\r\n`).
fn frame(event: Option<&str>, data: &serde_json::Value, eol: &str) -> String {
    match event {
        Some(name) => format!("event: {name}{eol}data: {data}{eol}{eol}"),
        None => format!("data: {data}{eol}{eol}"),
    }
}

/// Fragments of two calls' arguments, interleaved: line breaks, an escaped
/// backslash before an `n`, an escape cut between two fragments, non-ASCII.
const FRAGMENTS: [(u64, &str); 9] = [
    (0, "{\"path\":\"a.txt\",\"content\":\"one\\n"),
    (1, "{\"path\":\"b.txt\","),
    (0, "two\\\\n not a line\\"),
    (1, "\"content\":\"é✓\\n"),
    (0, "nthree\\n"),
    (1, "x\\"),
    (1, "ny\""),
    (0, "four\"}"),
    (1, "}"),
];

fn anthropic_body(eol: &str) -> String {
    let mut body = frame(
        Some("message_start"),
        &json!({"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}),
        eol,
    );
    for (index, id) in [(0, "toolu_a"), (1, "toolu_b")] {
        body += &frame(
            Some("content_block_start"),
            &json!({"type":"content_block_start","index":index,"content_block":{"type":"tool_use","id":id,"name":"write_file","input":{}}}),
            eol,
        );
    }
    for (i, (index, fragment)) in FRAGMENTS.iter().enumerate() {
        body += &frame(
            Some("content_block_delta"),
            &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":fragment}}),
            eol,
        );
        if i == 3 {
            body += &frame(Some("ping"), &json!({"type":"ping"}), eol);
        }
        if i == 7 {
            // Call 0 closes while call 1 goes on.
            body += &frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":0}),
                eol,
            );
        }
    }
    body
}

fn openai_body(eol: &str) -> String {
    let chunk = |delta: serde_json::Value| json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":delta,"finish_reason":null}]});
    let mut body = String::new();
    for (index, id) in [(0, "call_a"), (1, "call_b")] {
        body += &frame(
            None,
            &chunk(
                json!({"tool_calls":[{"index":index,"id":id,"type":"function","function":{"name":"write_file","arguments":""}}]}),
            ),
            eol,
        );
    }
    for (index, fragment) in FRAGMENTS {
        body += &frame(
            None,
            &chunk(json!({"tool_calls":[{"index":index,"function":{"arguments":fragment}}]})),
            eol,
        );
    }
    body
}

/// The text a call would have had once its block closed: all its fragments.
fn whole(index: u64) -> String {
    FRAGMENTS
        .iter()
        .filter(|(i, _)| *i == index)
        .map(|(_, f)| *f)
        .collect()
}

fn newline_escapes(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            n += u64::from(bytes.get(i + 1) == Some(&b'n'));
            i += 2;
        } else {
            i += 1;
        }
    }
    n
}

trait Stream {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Response>);
    fn progress(&mut self) -> Vec<ArgumentProgress>;
    fn progress_with_held(&mut self, held: &[u8]) -> Vec<ArgumentProgress>;
}

impl Stream for AnthropicStream {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Response>) {
        self.push_bytes(bytes, out).unwrap();
    }
    fn progress(&mut self) -> Vec<ArgumentProgress> {
        self.argument_progress()
    }
    fn progress_with_held(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        self.argument_progress_with_held(held)
    }
}

impl Stream for OpenAIStream {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Response>) {
        self.push_bytes(bytes, out).unwrap();
    }
    fn progress(&mut self) -> Vec<ArgumentProgress> {
        self.argument_progress()
    }
    fn progress_with_held(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        self.argument_progress_with_held(held)
    }
}

fn written(out: &[Response]) -> Vec<String> {
    out.iter()
        .map(|r| {
            let mut text = String::new();
            r.write_response(&mut text);
            // The clock is no part of what is compared.
            match text.find("\"createTime\":") {
                Some(at) => {
                    let end = at + text[at..].find(',').unwrap_or(text.len() - at);
                    format!("{}{}", &text[..at], &text[end..])
                }
                None => text,
            }
        })
        .collect()
}

/// At every split `s` of `body` into pushed and held, with the held bytes
/// ending at each frame's end, a byte before it, or the body's end: what
/// the pushed stream reports with `body[s..t]` held is, call by call, what
/// a stream fed `body[..t]` reports (or, for a call that closed within the
/// held bytes, its whole text); the stream itself is unchanged by the
/// reading.
fn check_every_split<S: Stream>(new: impl Fn() -> S, body: &str, eol: &str, ids: [&str; 2]) {
    let blank = format!("{eol}{eol}");
    let ends: Vec<usize> = body
        .match_indices(&blank)
        .flat_map(|(at, _)| [at + blank.len() - 1, at + blank.len()])
        .chain([body.len()])
        .collect();
    let body = body.as_bytes();
    let mut full = new();
    let mut full_out = Vec::new();
    full.push(body, &mut full_out);
    let full_out = written(&full_out);
    let reference: Vec<Vec<ArgumentProgress>> = ends
        .iter()
        .map(|&t| {
            let mut reference = new();
            reference.push(&body[..t], &mut Vec::new());
            reference.progress()
        })
        .collect();
    for s in 0..=body.len() {
        let mut pushed = new();
        let mut out = Vec::new();
        pushed.push(&body[..s], &mut out);
        let own = pushed.progress();
        for (&t, reference) in ends.iter().zip(&reference).filter(|(&t, _)| t >= s) {
            let got = pushed.progress_with_held(&body[s..t]);
            let expected: Vec<ArgumentProgress> = own
                .iter()
                .map(|call| {
                    reference
                        .iter()
                        .find(|r| r.call_id == call.call_id)
                        .cloned()
                        .unwrap_or_else(|| {
                            let index = ids.iter().position(|id| *id == call.call_id).unwrap();
                            let text = whole(index as u64);
                            ArgumentProgress {
                                argument_bytes: text.len(),
                                argument_lines: newline_escapes(&text),
                                ..call.clone()
                            }
                        })
                })
                .collect();
            assert_eq!(got, expected, "pushed {s}, held up to {t} ({eol:?})");
        }
        assert_eq!(
            pushed.progress(),
            own,
            "reading with held bytes changes nothing (split {s})"
        );
        pushed.push(&body[s..], &mut out);
        assert_eq!(
            written(&out),
            full_out,
            "the output is unchanged (split {s})"
        );
    }
}

#[test]
fn anthropic_held_bytes_count_as_if_pushed_at_every_split() {
    for eol in ["\n", "\r", "\r\n"] {
        check_every_split(
            || AnthropicStream::new(AnthropicOptions::default()),
            &anthropic_body(eol),
            eol,
            ["toolu_a", "toolu_b"],
        );
    }
}

#[test]
fn openai_held_bytes_count_as_if_pushed_at_every_split() {
    for eol in ["\n", "\r", "\r\n"] {
        check_every_split(
            || OpenAIStream::new(OpenAIOptions::default()),
            &openai_body(eol),
            eol,
            ["call_a", "call_b"],
        );
    }
}

#[test]
fn a_held_carriage_return_releases_its_frame_to_the_count() {
    // LineDecoder holds a chunk's trailing `\r`: the frame before it is
    // pushed without its blank line, and counts with the `\r` held.
    let body = anthropic_body("\r");
    let last = body.trim_end_matches('\r').len() + 1;
    let mut stream = AnthropicStream::new(AnthropicOptions::default());
    stream
        .push_bytes(&body.as_bytes()[..last], &mut Vec::new())
        .unwrap();
    let without = stream.argument_progress();
    let with = stream.argument_progress_with_held(b"\r");
    assert_eq!(without[0].call_id, "toolu_b");
    assert_eq!(with[0].argument_bytes, whole(1).len());
    assert_eq!(with[0].argument_lines, newline_escapes(&whole(1)));
    assert!(without[0].argument_bytes < with[0].argument_bytes);
}

#[test]
fn held_bytes_of_a_finished_or_failing_stream_count_nothing_past_the_failure() {
    let body = anthropic_body("\n");
    let cut = body.find("event: content_block_delta").unwrap();
    let mut stream = AnthropicStream::new(AnthropicOptions::default());
    stream
        .push_bytes(&body.as_bytes()[..cut], &mut Vec::new())
        .unwrap();
    let counted = stream.argument_progress_with_held(&body.as_bytes()[cut..]);
    assert!(counted.iter().all(|p| p.argument_bytes > 0), "{counted:?}");
    // An in-band error first: the SDK throws there, nothing after it counts.
    let held = format!(
        "event: error\ndata: {}\n\n{}",
        json!({"type":"error","error":{"type":"overloaded_error","message":"busy"}}),
        &body[cut..]
    );
    let progress = stream.argument_progress_with_held(held.as_bytes());
    assert!(
        progress.iter().all(|p| p.argument_bytes == 0),
        "{progress:?}"
    );
    // A frame that is not JSON: the same.
    let held = format!(
        "event: content_block_delta\ndata: {{oops\n\n{}",
        &body[cut..]
    );
    let progress = stream.argument_progress_with_held(held.as_bytes());
    assert!(
        progress.iter().all(|p| p.argument_bytes == 0),
        "{progress:?}"
    );
    stream.end(&mut Vec::new()).unwrap();
    assert_eq!(
        stream.argument_progress_with_held(&body.as_bytes()[cut..]),
        vec![]
    );
}
