//! Bounded resources: per-call argument bytes, total buffered bytes and the
//! repair nesting depth are configurable; past a limit the stream fails with
//! `LIMIT_EXCEEDED` (fatal: the converter is finished), and what was
//! converted before the error is kept. Hostile nesting never overflows the
//! stack: the repair does not recurse, so its depth has no limit unless the
//! caller sets one.

use serde_json::json;
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, ErrorCode, Limits, Profile};

fn limits(call: usize, buffered: usize, depth: usize) -> Limits {
    Limits {
        max_call_bytes: call,
        max_buffered_bytes: buffered,
        max_repair_depth: depth,
    }
}

fn anthropic(l: Limits) -> AnthropicStream {
    AnthropicStream::new(AnthropicOptions {
        profile: Default::default(),
        limits: l,
    })
}

fn openai(l: Limits) -> OpenAIStream {
    OpenAIStream::new(OpenAIOptions {
        limits: l,
        ..Default::default()
    })
}

fn tool_start(index: usize, id: &str) -> String {
    json!({"type": "content_block_start", "index": index,
        "content_block": {"type": "tool_use", "id": id, "name": "write_file", "input": {}}})
    .to_string()
}

fn args_delta(index: usize, fragment: &str) -> String {
    json!({"type": "content_block_delta", "index": index,
        "delta": {"type": "input_json_delta", "partial_json": fragment}})
    .to_string()
}

fn assert_limit(e: Error) {
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(e.fatal, "a limit ends the stream");
}

#[test]
fn the_defaults_are_generous() {
    let d = Limits::default();
    assert_eq!(d.max_call_bytes, 64 << 20);
    assert!(d.max_buffered_bytes >= d.max_call_bytes);
    assert_eq!(d.max_repair_depth, usize::MAX);
}

#[test]
fn anthropic_arguments_past_max_call_bytes() {
    let mut s = anthropic(limits(100, 1 << 20, 512));
    let mut out = Vec::new();
    s.push_event_text(&tool_start(0, "toolu_1"), &mut out)
        .unwrap();
    s.push_event_text(
        &args_delta(0, &format!("{{\"c\":\"{}", "x".repeat(80))),
        &mut out,
    )
    .unwrap();
    let e = s
        .push_event_text(&args_delta(0, &"y".repeat(30)), &mut out)
        .unwrap_err();
    assert_limit(e);
    assert!(s.is_finished());
    assert_eq!(out.len(), 1, "the preparation before the limit is kept");
    assert_eq!(out[0].preparations[0].call_id, "toolu_1");
    let again = s
        .push_event_text(&args_delta(0, "z"), &mut out)
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::Finished);
}

#[test]
fn anthropic_open_calls_together_past_max_buffered_bytes() {
    let mut s = anthropic(limits(100, 150, 512));
    let mut out = Vec::new();
    for i in 0..2 {
        s.push_event_text(&tool_start(i, &format!("toolu_{i}")), &mut out)
            .unwrap();
    }
    s.push_event_text(&args_delta(0, &"a".repeat(80)), &mut out)
        .unwrap();
    // Each call is under 100 bytes; together they are past 150.
    assert_limit(
        s.push_event_text(&args_delta(1, &"b".repeat(80)), &mut out)
            .unwrap_err(),
    );
}

#[test]
fn a_closed_block_frees_its_bytes() {
    let mut s = anthropic(limits(100, 150, 512));
    let mut out = Vec::new();
    for i in 0..5 {
        s.push_event_text(&tool_start(i, &format!("toolu_{i}")), &mut out)
            .unwrap();
        s.push_event_text(
            &args_delta(i, &format!("{{\"a\":\"{}\"}}", "x".repeat(80))),
            &mut out,
        )
        .unwrap();
        s.push_event_text(
            &json!({"type": "content_block_stop", "index": i}).to_string(),
            &mut out,
        )
        .unwrap();
    }
    assert_eq!(out.iter().filter(|r| r.preparations.len() == 1).count(), 5);
}

#[test]
fn an_sse_line_past_max_buffered_bytes_reports_its_offset() {
    let mut s = anthropic(limits(1 << 20, 64, 512));
    let mut out = Vec::new();
    let e = s
        .push_bytes(format!("data: {}", "x".repeat(100)).as_bytes(), &mut out)
        .unwrap_err();
    assert_limit(e.clone());
    assert!(e.offset.is_some());
    let mut o = openai(limits(1 << 20, 64, 512));
    // Split into small pieces, the line still grows past the limit.
    let mut last = Ok(());
    for _ in 0..20 {
        last = o.push_bytes(b"data: xxxxxxxx", &mut out);
        if last.is_err() {
            break;
        }
    }
    assert_limit(last.unwrap_err());
}

fn openai_call(index: u32, id: Option<&str>, args: &str) -> String {
    let mut call = json!({"index": index, "type": "function", "function": {"name": "write_file", "arguments": args}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    json!({"id": "c", "created": 1, "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": null}]})
        .to_string()
}

#[test]
fn openai_arguments_past_max_call_bytes() {
    let mut s = openai(limits(100, 1 << 20, 512));
    let first = s
        .push_chunk_text(&openai_call(
            0,
            Some("call_1"),
            &format!("{{\"c\":\"{}", "x".repeat(80)),
        ))
        .unwrap();
    assert_eq!(first.preparations.len(), 1);
    assert_limit(
        s.push_chunk_text(&openai_call(0, None, &"y".repeat(30)))
            .unwrap_err(),
    );
    assert!(s.is_finished());
}

#[test]
fn openai_parallel_calls_past_max_buffered_bytes() {
    let mut s = openai(limits(100, 150, 512));
    s.push_chunk_text(&openai_call(
        0,
        Some("call_1"),
        &format!("{{\"c\":\"{}", "x".repeat(80)),
    ))
    .unwrap();
    assert_limit(
        s.push_chunk_text(&openai_call(
            1,
            Some("call_2"),
            &format!("{{\"c\":\"{}", "x".repeat(80)),
        ))
        .unwrap_err(),
    );
}

#[test]
fn openai_limits_apply_on_the_byte_stream_and_keep_earlier_responses() {
    let mut s = openai(limits(100, 1 << 20, 512));
    let body = format!(
        "data: {}\n\ndata: {}\n\n",
        openai_call(0, Some("call_1"), "{\"c\":\""),
        openai_call(0, None, &"y".repeat(200))
    );
    let mut out = Vec::new();
    assert_limit(s.push_bytes(body.as_bytes(), &mut out).unwrap_err());
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].preparations[0].call_id, "call_1");
}

fn finish_anthropic_with(args: &str, depth: usize) -> (Vec<Response>, Result<(), Error>) {
    let mut s = anthropic(limits(1 << 20, 1 << 22, depth));
    let mut out = Vec::new();
    s.push_event_text(&tool_start(0, "toolu_1"), &mut out)
        .unwrap();
    s.push_event_text(&args_delta(0, args), &mut out).unwrap();
    let r = s.push_event_text(
        &json!({"type": "content_block_stop", "index": 0}).to_string(),
        &mut out,
    );
    (out, r)
}

/// The arguments of the one call in `out`.
fn call_args(out: &[Response]) -> String {
    let calls: Vec<String> = out
        .iter()
        .flat_map(|r| r.parts())
        .filter_map(|p| match p {
            toolcall_stream_core::model::gemini::Part::FunctionCall { args, .. } => {
                Some(args.to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 1);
    calls[0].clone()
}

#[test]
fn repair_of_arguments_nested_past_max_repair_depth_is_a_limit_error() {
    // Broken (unclosed) and shallow: repaired as the reference does.
    let (out, r) = finish_anthropic_with(&format!("{{\"a\":{}", "[".repeat(5)), 8);
    r.unwrap();
    assert_eq!(out.len(), 2, "the preparation, then the repaired call");
    // Broken and deeper than the caller's limit.
    let (_, r) = finish_anthropic_with(&format!("{{\"a\":{}", "[".repeat(20)), 8);
    assert_limit(r.unwrap_err());
    // Valid JSON needs no repair: its depth is not limited.
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(2000), "]".repeat(2000));
    let (out, r) = finish_anthropic_with(&deep, 8);
    r.unwrap();
    assert_eq!(out.len(), 2);
}

#[test]
fn with_no_depth_limit_deep_broken_arguments_end_as_the_references_do() {
    // Repaired past the old 512 and 2048 levels, as the reference repairs them.
    let text = "[".repeat(5000);
    let (out, r) = finish_anthropic_with(&text, usize::MAX);
    r.unwrap();
    assert_eq!(
        call_args(&out),
        format!("{}{}", "[".repeat(5000), "]".repeat(5000))
    );
    // 100,000 levels: the reference's jsonrepair overflows the JS stack and
    // safeJsonParse returns `{}`; here without recursion, in no time.
    let (out, r) = finish_anthropic_with(&"[".repeat(100_000), usize::MAX);
    r.unwrap();
    assert_eq!(call_args(&out), "{}");
}

#[test]
fn openai_repair_depth_applies_at_finish() {
    let mut s = openai(limits(1 << 20, 1 << 22, 8));
    s.push_chunk_text(&openai_call(
        0,
        Some("call_1"),
        &format!("{{\"a\":{}1,", "[".repeat(20)),
    ))
    .unwrap();
    let finish = json!({"id": "c", "created": 1, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    assert_limit(s.push_chunk_text(&finish.to_string()).unwrap_err());
}

#[test]
fn events_nested_a_million_levels_parse_without_recursion() {
    // Unterminated: invalid JSON, as the SDKs' `JSON.parse` finds it.
    for text in [
        "[".repeat(1_000_000),
        format!(
            "{{\"type\":\"message_start\",\"message\":{}",
            "{\"a\":".repeat(200_000)
        ),
    ] {
        let mut s = anthropic(Limits::default());
        let e = s.push_event_text(&text, &mut Vec::new()).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson, "{}", e.message);
        let mut o = openai(Limits::default());
        let e = o.push_chunk_text(&text).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson, "{}", e.message);
    }
    // Well formed: the deep field is parsed, ignored and dropped, on a
    // thread with a small stack.
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
            let mut s = anthropic(Limits::default());
            let mut out = Vec::new();
            s.push_event_text(
                &format!("{{\"type\":\"message_start\",\"message\":{{\"id\":\"m\",\"x\":{deep}}}}}"),
                &mut out,
            )
            .unwrap();
            let mut o = openai(Limits::default());
            o.push_chunk_text(&format!(
                "{{\"id\":\"c\",\"x\":{deep},\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"hi\"}}}}]}}"
            ))
            .unwrap();
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_tool_use_input_deeper_than_json_stringify_takes_is_the_references_range_error() {
    let start = |levels: usize| {
        format!(
            "{{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{{\"x\":{}{}}}}}}}",
            "[".repeat(levels - 1),
            "]".repeat(levels - 1)
        )
    };
    for (levels, fails) in [(4111, false), (4112, true), (1_000_000, true)] {
        let mut s = anthropic(Limits::default());
        let r = s.push_event_text(&start(levels), &mut Vec::new());
        match r {
            Err(e) if fails => {
                assert_eq!(e.code, ErrorCode::InvalidEvent);
                let host = e.host_error.expect("the reference's error");
                assert_eq!(
                    (host.name, host.message.as_str()),
                    ("RangeError", "Maximum call stack size exceeded")
                );
            }
            r => assert_eq!(r.is_ok(), !fails, "{levels} levels"),
        }
    }
}

/// Arguments the JS layer held until the stop: the same limits and budget
/// as arguments handed over, and only for a tool_use block holding none.
#[test]
fn anthropic_held_arguments_budget_and_limits() {
    let mut s = anthropic(limits(100, 150, 512));
    let mut out = Vec::new();
    s.push_event_text(&tool_start(0, "toolu_1"), &mut out)
        .unwrap();
    assert_eq!(s.args_budget("0"), Some(100));
    assert_eq!(s.args_budget("7"), None, "no block, no budget");
    s.push_event_text(&args_delta(0, "{\"a\":"), &mut out)
        .unwrap();
    assert_eq!(s.args_budget("0"), Some(95));
    out.clear();
    // Arguments already handed over: not a held block.
    assert!(!s.stop_with_held_args("0", 3, &mut out).unwrap());
    assert!(out.is_empty());
    s.push_event_text(&args_delta(0, "1}"), &mut out).unwrap();
    s.push_event_text(
        &json!({"type": "content_block_stop", "index": 0}).to_string(),
        &mut out,
    )
    .unwrap();
    // A fresh block: held arguments close it with `{}` in their place.
    s.push_event_text(&tool_start(1, "toolu_2"), &mut out)
        .unwrap();
    out.clear();
    assert!(s.stop_with_held_args("1", 100, &mut out).unwrap());
    let [r] = out.as_slice() else {
        panic!("one chunk")
    };
    assert_eq!(
        r.parts(),
        [toolcall_stream_core::model::gemini::Part::FunctionCall {
            id: Some("\"toolu_2\"".into()),
            name: Some("\"write_file\"".into()),
            args: std::rc::Rc::new("{}".to_owned()),
            lifted: None,
        }]
    );
    assert!(!s.stop_with_held_args("1", 1, &mut out).unwrap(), "closed");
    // One byte past the call limit fails as an append would.
    s.push_event_text(&tool_start(2, "toolu_3"), &mut out)
        .unwrap();
    assert_limit(s.stop_with_held_args("2", 101, &mut out).unwrap_err());
    assert!(s.is_finished());
}

#[test]
fn anthropic_held_arguments_past_max_buffered_bytes() {
    let mut s = anthropic(limits(100, 150, 512));
    let mut out = Vec::new();
    s.push_event_text(&tool_start(0, "toolu_1"), &mut out)
        .unwrap();
    s.push_event_text(&args_delta(0, &"x".repeat(90)), &mut out)
        .unwrap();
    s.push_event_text(&tool_start(1, "toolu_2"), &mut out)
        .unwrap();
    assert_eq!(s.args_budget("1"), Some(60), "what the other block left");
    assert_limit(s.stop_with_held_args("1", 61, &mut out).unwrap_err());
}

/// The Anthropic byte stream as the API sends it (taken without line
/// framing) fails at the event that crosses the limit, keeping what came
/// before, exactly as the same bytes framed line by line (one byte a push).
#[test]
fn anthropic_limits_apply_on_the_byte_stream_at_the_crossing_event() {
    let mut body = format!(
        "event: content_block_start\ndata: {}\n\n",
        tool_start(0, "toolu_1")
    );
    for _ in 0..10 {
        body.push_str(&format!(
            "event: content_block_delta\ndata: {}\n\n",
            args_delta(0, &"z".repeat(30))
        ));
    }
    let run = |pieces: Vec<&[u8]>| {
        let mut s = anthropic(limits(100, 1 << 20, 512));
        let mut out = Vec::new();
        let mut pushed = 0;
        for p in pieces {
            if let Err(e) = s.push_bytes(p, &mut out) {
                assert_limit(e);
                assert!(s.is_finished());
                return (out.len(), pushed + p.len());
            }
            pushed += p.len();
        }
        panic!("the limit was not reached");
    };
    let whole = run(vec![body.as_bytes()]);
    assert_eq!(whole.0, 1, "the preparation chunk is kept");
    let one_byte = run(body.as_bytes().chunks(1).collect());
    assert_eq!(one_byte.0, whole.0);
    // Byte by byte, the failing push is the blank line ending the 4th delta
    // (4 × 30 bytes > 100).
    let fourth_end = body
        .match_indices("\n\n")
        .nth(4)
        .map(|(i, _)| i + 2)
        .unwrap();
    assert_eq!(one_byte.1, fourth_end);
}

/// Under `qwen-0.24` a closed call is held until the stop reason, and its
/// arguments still count against `max_buffered_bytes`: two held calls cross
/// a limit that one at a time (qwen-0.21 hands each over at its stop) never
/// reaches. Once the stop reason releases them, the budget is free again.
#[test]
fn anthropic_held_calls_count_as_buffered_under_qwen_0_24() {
    let call = |i: usize| {
        [
            tool_start(i, &format!("toolu_{i}")),
            args_delta(i, &format!("{{\"c\":\"{}\"}}", "x".repeat(80))),
            json!({"type": "content_block_stop", "index": i}).to_string(),
        ]
    };
    let stop = json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}).to_string();
    for profile in [Profile::Qwen021, Profile::Qwen024] {
        let mut s = AnthropicStream::new(AnthropicOptions {
            profile,
            limits: limits(100, 150, 512),
        });
        let mut out = Vec::new();
        let events: Vec<String> = call(0).into_iter().chain(call(1)).collect();
        let result: Result<(), Error> = events
            .iter()
            .try_for_each(|e| s.push_event_text(e, &mut out));
        if profile == Profile::Qwen024 {
            assert_limit(result.unwrap_err());
            continue;
        }
        result.unwrap();
        s.push_event_text(&stop, &mut out).unwrap();
    }
    // Released by the stop reason: the next call has the whole budget.
    let mut s = AnthropicStream::new(AnthropicOptions {
        profile: Profile::Qwen024,
        limits: limits(100, 150, 512),
    });
    let mut out = Vec::new();
    for e in call(0)
        .iter()
        .chain([&stop])
        .chain(call(1).iter())
        .chain([&stop])
    {
        s.push_event_text(e, &mut out).unwrap();
    }
    let calls = out
        .iter()
        .filter(|r| r.candidate.as_ref().is_some_and(|c| !c.parts.is_empty()))
        .count();
    assert_eq!(calls, 2, "both calls yielded");
}
