//! The open calls' argument progress (`argument_progress` of both
//! converters): after every input, each prepared call that is still open
//! reports exactly the argument bytes received so far and the `\n` escapes
//! in them, on every way a fragment can take (the long way, the byte path,
//! the template path), and a call leaves the list once it closes.

use proptest::prelude::*;
use serde_json::json;
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::convert::path_counters::{self, Path};
use toolcall_stream_core::model::argument_progress::ArgumentProgress;

/// The line breaks a reader of `text` (JSON text) sees: `\n` escapes.
fn newline_escapes(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes.get(i + 1) == Some(&b'n') {
                n += 1;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    n
}

fn progress(call_id: &str, tool_name: &str, received: &str) -> ArgumentProgress {
    ArgumentProgress {
        call_id: call_id.into(),
        call_id_json: None,
        tool_name: tool_name.into(),
        argument_bytes: received.len(),
        argument_lines: newline_escapes(received),
    }
}

fn sse(event: Option<&str>, data: &serde_json::Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

fn anthropic_events(fragments: &[String]) -> (String, Vec<String>, String) {
    let head = sse(
        Some("message_start"),
        &json!({"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}),
    ) + &sse(
        Some("content_block_start"),
        &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}),
    );
    let deltas = fragments
        .iter()
        .map(|f| {
            sse(
                Some("content_block_delta"),
                &json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":f}}),
            )
        })
        .collect();
    let tail = sse(
        Some("content_block_stop"),
        &json!({"type":"content_block_stop","index":0}),
    );
    (head, deltas, tail)
}

fn openai_events(fragments: &[String]) -> (String, Vec<String>, String) {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
    let head = sse(
        None,
        &chunk(
            json!({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write_file","arguments":""}}]}),
            json!(null),
        ),
    );
    let deltas = fragments
        .iter()
        .map(|f| {
            sse(
                None,
                &chunk(
                    json!({"tool_calls":[{"index":0,"function":{"arguments":f}}]}),
                    json!(null),
                ),
            )
        })
        .collect();
    let tail = sse(None, &chunk(json!({}), json!("tool_calls")));
    (head, deltas, tail)
}

/// Arguments of a `write_file` call cut into fragments: text with line
/// breaks, escaped backslashes before an `n`, quotes and non-ASCII, cut
/// anywhere (inside an escape too).
fn fragments() -> impl Strategy<Value = Vec<String>> {
    (
        proptest::collection::vec(
            prop_oneof![
                "[a-z ]{0,12}",
                Just("\n".to_owned()),
                Just("\\n".to_owned()),
                Just("\"é✓".to_owned())
            ],
            0..24,
        ),
        proptest::collection::vec(0usize..64, 0..12),
    )
        .prop_map(|(pieces, cuts)| {
            let content: String = pieces.concat();
            let args = json!({"path": "a.txt", "content": content}).to_string();
            let chars: Vec<char> = args.chars().collect();
            let mut at: Vec<usize> = cuts.into_iter().map(|c| c % (chars.len() + 1)).collect();
            at.push(0);
            at.push(chars.len());
            at.sort_unstable();
            at.dedup();
            at.windows(2)
                .map(|w| chars[w[0]..w[1]].iter().collect())
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn anthropic_reports_every_received_byte_and_line(fragments in fragments(), batched in any::<bool>()) {
        let (head, deltas, tail) = anthropic_events(&fragments);
        let mut stream = AnthropicStream::new(AnthropicOptions::default());
        let mut out = Vec::new();
        stream.push_bytes(head.as_bytes(), &mut out).unwrap();
        prop_assert_eq!(stream.argument_progress(), vec![progress("toolu_1", "write_file", "")]);
        let mut received = String::new();
        if batched {
            // Runs of deltas in one read: the byte path takes them whole.
            path_counters::reset();
            stream.push_bytes(deltas.concat().as_bytes(), &mut out).unwrap();
            received = fragments.concat();
            if deltas.len() > 1 {
                prop_assert!(path_counters::count(Path::Byte) > 0, "the byte path ran");
            }
            prop_assert_eq!(stream.argument_progress(), vec![progress("toolu_1", "write_file", &received)]);
        } else {
            for (delta, fragment) in deltas.iter().zip(&fragments) {
                stream.push_bytes(delta.as_bytes(), &mut out).unwrap();
                received.push_str(fragment);
                prop_assert_eq!(stream.argument_progress(), vec![progress("toolu_1", "write_file", &received)]);
            }
        }
        stream.push_bytes(tail.as_bytes(), &mut out).unwrap();
        prop_assert_eq!(stream.argument_progress(), vec![], "a closed call is not listed");
    }

    #[test]
    fn openai_reports_every_received_byte_and_line(fragments in fragments(), batched in any::<bool>()) {
        let (head, deltas, tail) = openai_events(&fragments);
        let mut stream = OpenAIStream::new(OpenAIOptions::default());
        let mut out = Vec::new();
        stream.push_bytes(head.as_bytes(), &mut out).unwrap();
        prop_assert_eq!(stream.argument_progress(), vec![progress("call_1", "write_file", "")]);
        let mut received = String::new();
        path_counters::reset();
        if batched {
            stream.push_bytes(deltas.concat().as_bytes(), &mut out).unwrap();
            received = fragments.concat();
            prop_assert_eq!(stream.argument_progress(), vec![progress("call_1", "write_file", &received)]);
        } else {
            for (delta, fragment) in deltas.iter().zip(&fragments) {
                stream.push_bytes(delta.as_bytes(), &mut out).unwrap();
                received.push_str(fragment);
                prop_assert_eq!(stream.argument_progress(), vec![progress("call_1", "write_file", &received)]);
            }
        }
        if fragments.len() > 2 {
            prop_assert!(
                path_counters::count(Path::Byte) + path_counters::count(Path::Template) > 0,
                "a hot path ran"
            );
        }
        stream.push_bytes(tail.as_bytes(), &mut out).unwrap();
        prop_assert_eq!(stream.argument_progress(), vec![], "a call handed out at the finish is not listed");
    }
}

#[test]
fn a_call_without_a_preparation_reports_nothing() {
    // An Anthropic tool_use block with an empty name yields no preparation.
    let mut stream = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    let body = sse(
        Some("content_block_start"),
        &json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"","input":{}}}),
    );
    stream.push_bytes(body.as_bytes(), &mut out).unwrap();
    assert_eq!(stream.argument_progress(), vec![]);
    // An OpenAI call whose name has not arrived yet neither.
    let mut stream = OpenAIStream::new(OpenAIOptions::default());
    let body = sse(
        None,
        &json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"arguments":"{\"a\":"}}]},"finish_reason":null}]}),
    );
    stream.push_bytes(body.as_bytes(), &mut out).unwrap();
    assert_eq!(stream.argument_progress(), vec![]);
    let late_name = sse(
        None,
        &json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"write_file","arguments":"\"x\\ny\"}"}}]},"finish_reason":null}]}),
    );
    stream.push_bytes(late_name.as_bytes(), &mut out).unwrap();
    assert_eq!(
        stream.argument_progress(),
        vec![progress("call_1", "write_file", "{\"a\":\"x\\ny\"}")],
        "once its name arrives, the call counts every byte, those before the name too"
    );
}

#[test]
fn two_calls_progress_side_by_side() {
    let mut stream = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    let mut body = String::new();
    for (index, id) in [(0, "toolu_a"), (1, "toolu_b")] {
        body += &sse(
            Some("content_block_start"),
            &json!({"type":"content_block_start","index":index,"content_block":{"type":"tool_use","id":id,"name":"write_file","input":{}}}),
        );
    }
    for (index, fragment) in [(0, "{\"c\":\"1\\n"), (1, "{\"c\":\""), (0, "2\"}")] {
        body += &sse(
            Some("content_block_delta"),
            &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":fragment}}),
        );
    }
    stream.push_bytes(body.as_bytes(), &mut out).unwrap();
    assert_eq!(
        stream.argument_progress(),
        vec![
            progress("toolu_a", "write_file", "{\"c\":\"1\\n2\"}"),
            progress("toolu_b", "write_file", "{\"c\":\""),
        ]
    );
}
