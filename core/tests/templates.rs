//! The OpenAI template path (`openai/template/`: argument-only and
//! content-only chunks) against the long way. Giving every chunk its own
//! amount of trailing whitespace keeps its text from ever fitting an earlier
//! chunk's template (the bytes after the varying string differ) without
//! changing what it parses to, so the same stream converts once with the
//! template path and once without it; responses, preparations and errors
//! must be identical. Over every OpenAI fixture stream and over generated
//! streams built to hit the template path in every converter state (held
//! parts, nameless calls, thinking-tag candidates, limits, lone surrogates
//! split across chunks, each response-parsing switch and profile, …).

mod common;

use std::collections::HashMap;

use common::{check_taken, mask};
use proptest::prelude::*;
use serde_json::{json, Value};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream, ResponseParsing};
use toolcall_stream_core::convert::path_counters::{self, Path};
use toolcall_stream_core::foundations::limits::Limits;
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, Profile};

/// What a run gave, masked; and how many chunks took the template path.
#[derive(Debug, Default)]
struct Run {
    lines: Vec<Value>,
    templated: u64,
}

fn record(lines: &mut Vec<Value>, ids: &mut HashMap<String, usize>, r: &Response) {
    let mut text = String::new();
    r.write_item(&mut text);
    let v = common::parse_output(&text);
    lines.push(mask(&v, ids));
}

/// The chunks' texts, each with `pad(i)` trailing spaces, through
/// `push_chunk_text` (`bytes` false) or as one SSE body through `push_bytes`
/// (with `drop_empty` as given).
fn run(chunks: &[String], limits: Limits, bytes: bool, pad: impl Fn(usize) -> usize) -> Run {
    let options = OpenAIOptions {
        limits,
        ..Default::default()
    };
    run_with(chunks, &options, bytes, pad)
}

fn run_with(
    chunks: &[String],
    options: &OpenAIOptions,
    bytes: bool,
    pad: impl Fn(usize) -> usize,
) -> Run {
    run_in_reads(chunks, options, bytes, usize::MAX, pad)
}

/// [`run_with`], the SSE body pushed in reads of `read` bytes (cut anywhere:
/// inside a chunk's string, its template text, a character).
fn run_in_reads(
    chunks: &[impl AsRef<[u8]>],
    options: &OpenAIOptions,
    bytes: bool,
    read: usize,
    pad: impl Fn(usize) -> usize,
) -> Run {
    let mut s = OpenAIStream::new(options.clone());
    let mut ids = HashMap::new();
    let mut lines = Vec::new();
    let padded: Vec<Vec<u8>> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| [c.as_ref(), " ".repeat(pad(i)).as_bytes()].concat())
        .collect();
    // Records a step's responses and error; false once the stream failed.
    let mut step = |out: &mut Vec<Response>, r: Result<(), Error>| {
        for r in out.drain(..) {
            record(&mut lines, &mut ids, &r);
        }
        match r {
            Ok(()) => true,
            Err(e) => {
                lines.push(json!({"error": e.code.as_str(), "fatal": e.fatal}));
                !e.fatal
            }
        }
    };
    let mut out = Vec::new();
    let mut open = true;
    if bytes {
        let mut body = Vec::new();
        for c in &padded {
            body.extend_from_slice(b"data: ");
            body.extend_from_slice(c);
            body.extend_from_slice(b"\n\n");
        }
        body.extend_from_slice(b"data: [DONE]\n\n");
        'reads: for read in body.chunks(read) {
            // A non-fatal error leaves the rest buffered: an empty push goes on.
            let mut input = read;
            loop {
                let r = s.push_bytes(input, &mut out);
                let failed = r.is_err();
                open = step(&mut out, r);
                if !open {
                    break 'reads;
                }
                if !failed {
                    break;
                }
                input = &[];
            }
        }
    } else {
        for c in &padded {
            let text = std::str::from_utf8(c).expect("chunk texts are UTF-8");
            let r = s.push_chunk_text(text).map(|r| out.push(r));
            open = step(&mut out, r);
            if !open {
                break;
            }
        }
    }
    if open {
        let r = s.end(&mut out);
        step(&mut out, r);
    }
    Run {
        lines,
        templated: s.template_chunks(),
    }
}

/// Template path on (no padding) and off (unique padding): same outcome, both
/// input paths. Returns how many chunks took the template path.
fn check(chunks: &[String], limits: Limits) -> Result<u64, TestCaseError> {
    let options = OpenAIOptions {
        limits,
        ..Default::default()
    };
    check_with(chunks, &options)
}

/// [`check`] with every option given (`drop_empty` is tried both ways).
fn check_with(chunks: &[String], options: &OpenAIOptions) -> Result<u64, TestCaseError> {
    let mut templated = 0;
    let kept_all = OpenAIOptions {
        drop_empty: false,
        ..options.clone()
    };
    for bytes in [false, true] {
        let with = run_with(chunks, &kept_all, bytes, |_| 0);
        let without = run_with(chunks, &kept_all, bytes, |i| i + 1);
        prop_assert_eq!(without.templated, 0, "unique padding never fits a template");
        prop_assert_eq!(&with.lines, &without.lines, "bytes: {}", bytes);
        templated = templated.max(with.templated);
        // Runs of argument chunks cut off by the end of a read go on in the
        // next one. (What the SSE decoder holds between reads counts toward
        // the buffered limit, so a tight one may fail at another chunk.)
        let buffered_unlimited =
            options.limits.max_buffered_bytes == Limits::default().max_buffered_bytes;
        if bytes && buffered_unlimited {
            for read in [7, 61, 256] {
                let split = run_in_reads(chunks, &kept_all, true, read, |_| 0);
                prop_assert_eq!(&split.lines, &without.lines, "reads of {} bytes", read);
            }
        }
        if bytes {
            // `drop_empty` leaves out exactly what Qwen's pipeline drops,
            // whether the template path builds nothing or the long way filters.
            let kept: Vec<Value> = with.lines.into_iter().filter(kept_by_pipeline).collect();
            let dropping = OpenAIOptions {
                drop_empty: true,
                ..options.clone()
            };
            for pad in [|_| 0, |i| i + 1] as [fn(usize) -> usize; 2] {
                let dropped = run_with(chunks, &dropping, true, pad);
                prop_assert_eq!(&dropped.lines, &kept, "drop_empty");
            }
        }
    }
    Ok(templated)
}

/// Qwen Code `pipeline.ts`, `processStreamWithLogging`'s empty filter, on a
/// recorded line (errors are kept).
fn kept_by_pipeline(line: &Value) -> bool {
    let Some(r) = line.get("r") else {
        return true;
    };
    let candidate = &r["candidates"][0];
    candidate["content"]["parts"]
        .as_array()
        .is_some_and(|p| !p.is_empty())
        || candidate.get("finishReason").is_some()
        || r.get("usageMetadata").is_some()
        || line.get("p").is_some()
}

fn openai_fixture_streams() -> Vec<(String, Vec<String>)> {
    common::fixture_streams()
        .into_iter()
        .filter(|(name, _)| name.starts_with("openai-"))
        .map(|(name, items)| (name, items.iter().map(Value::to_string).collect()))
        .collect()
}

#[test]
fn every_openai_fixture_stream_converts_the_same_with_and_without_the_template_path() {
    let streams = openai_fixture_streams();
    assert!(streams.len() > 30, "the fixture corpus is there");
    path_counters::reset();
    let mut templated = 0;
    for (name, chunks) in &streams {
        templated += check(chunks, Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // The corpus streams are short: few of their chunks repeat a template.
    assert!(
        templated >= 5,
        "the corpus takes the template path ({templated} chunks)"
    );
    // Counted by the core too, and the byte path with it (about 90 chunks
    // and 30 events).
    check_taken(Path::Template, 45).unwrap();
    check_taken(Path::Byte, 15).unwrap();
}

// ---------- generated streams ----------

/// A piece of argument or message text: ASCII, multi-byte UTF-8, JSON
/// syntax, escapes, thinking tags, and the two halves of a surrogate pair
/// as separate escapes (`@HI@` / `@LO@`, put into the JSON text raw).
fn piece() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => Just("a"),
            1 => Just("é"),
            1 => Just("😀"),
            2 => Just("\""),
            1 => Just("\\"),
            2 => Just("\n"),
            1 => Just(" "),
            2 => Just("{"),
            2 => Just("}"),
            1 => Just("\"k\":"),
            1 => Just("<think>"),
            1 => Just("</think>"),
            1 => Just("@HI@"),
            1 => Just("@LO@"),
        ],
        0..10,
    )
    .prop_map(|v| v.concat())
}

#[derive(Clone, Debug)]
enum Step {
    Content(String),
    Reasoning(String),
    /// A call's opening delta: id and name (either may be missing).
    Open {
        index: u8,
        id: Option<&'static str>,
        name: Option<&'static str>,
    },
    /// A run of tool-call deltas for one index: argument-only (the template
    /// path's case), or with the call's id and name on every delta (some
    /// providers), or with text beside them (never a template).
    Arguments {
        index: Option<u8>,
        id: Option<&'static str>,
        name: Option<&'static str>,
        content: Option<String>,
        reasoning: Option<String>,
        pieces: Vec<String>,
    },
    Finish(&'static str),
    Usage,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => piece().prop_map(Step::Content),
        2 => piece().prop_map(Step::Reasoning),
        3 => (
            0..3u8,
            prop::option::weighted(0.85, prop_oneof![Just("call_a"), Just("call_b"), Just("")]),
            prop::option::weighted(0.85, prop_oneof![Just("write_file"), Just("shell"), Just("")]),
        )
            .prop_map(|(index, id, name)| Step::Open { index, id, name }),
        8 => (
            prop::option::weighted(0.9, 0..3u8),
            prop::option::weighted(0.2, prop_oneof![Just("call_a"), Just("call_b")]),
            prop::option::weighted(0.2, prop_oneof![Just("write_file"), Just("shell")]),
            prop::option::weighted(0.15, piece()),
            prop::option::weighted(0.15, piece()),
            prop::collection::vec(piece(), 1..8),
        )
            .prop_map(|(index, id, name, content, reasoning, pieces)| Step::Arguments {
                index,
                id,
                name,
                content,
                reasoning,
                pieces,
            }),
        1 => prop_oneof![Just("tool_calls"), Just("stop"), Just("length")].prop_map(Step::Finish),
        1 => Just(Step::Usage),
    ]
}

/// How the provider writes its chunks (constant within a stream, as the
/// template path expects, except `created` may be missing or zero).
#[derive(Clone, Debug)]
struct Style {
    created: Option<i64>,
    /// On every chunk: absent, `null`, or a usage object (some providers).
    usage: Option<Value>,
    /// On every argument delta: absent, `null` or `""` (DashScope).
    content: Option<Value>,
    call_type: bool,
    empty_id: bool,
}

fn style() -> impl Strategy<Value = Style> {
    (
        prop_oneof![Just(Some(1_741_570_283)), Just(Some(0)), Just(None)],
        prop_oneof![
            2 => Just(None),
            2 => Just(Some(Value::Null)),
            1 => Just(Some(json!({"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}))),
        ],
        prop_oneof![Just(None), Just(Some(Value::Null)), Just(Some(json!("")))],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(created, usage, content, call_type, empty_id)| Style {
            created,
            usage,
            content,
            call_type,
            empty_id,
        })
}

fn chunk_text(style: &Style, delta: Value, finish: Option<&str>) -> String {
    let mut chunk = json!({"id": "chatcmpl-t", "object": "chat.completion.chunk"});
    if let Some(c) = style.created {
        chunk["created"] = json!(c);
    }
    chunk["model"] = json!("m");
    chunk["choices"] =
        json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]);
    if let Some(usage) = &style.usage {
        chunk["usage"] = usage.clone();
    }
    chunk
        .to_string()
        .replace("@HI@", "\\ud83d")
        .replace("@LO@", "\\ude00")
}

fn stream() -> impl Strategy<Value = Vec<String>> {
    (style(), prop::collection::vec(step(), 0..12)).prop_map(|(style, steps)| {
        let mut chunks = Vec::new();
        for step in steps {
            match step {
                Step::Content(t) => chunks.push(chunk_text(&style, json!({ "content": t }), None)),
                Step::Reasoning(t) => {
                    chunks.push(chunk_text(&style, json!({ "reasoning_content": t }), None))
                }
                Step::Open { index, id, name } => {
                    let mut call = json!({"index": index});
                    if let Some(id) = id {
                        call["id"] = json!(id);
                    }
                    if style.call_type {
                        call["type"] = json!("function");
                    }
                    call["function"] = json!({"arguments": ""});
                    if let Some(n) = name {
                        call["function"]["name"] = json!(n);
                    }
                    chunks.push(chunk_text(&style, json!({ "tool_calls": [call] }), None));
                }
                Step::Arguments {
                    index,
                    id,
                    name,
                    content,
                    reasoning,
                    pieces,
                } => {
                    for p in pieces {
                        let mut call = json!({});
                        if let Some(i) = index {
                            call["index"] = json!(i);
                        }
                        match id {
                            Some(id) => call["id"] = json!(id),
                            None if style.empty_id => call["id"] = json!(""),
                            None => {}
                        }
                        call["function"] = json!({ "arguments": p });
                        if let Some(n) = name {
                            call["function"]["name"] = json!(n);
                        }
                        let mut delta = json!({});
                        match &content {
                            Some(c) => delta["content"] = json!(c),
                            None => {
                                if let Some(c) = &style.content {
                                    delta["content"] = c.clone();
                                }
                            }
                        }
                        if let Some(r) = &reasoning {
                            delta["reasoning_content"] = json!(r);
                        }
                        delta["tool_calls"] = json!([call]);
                        chunks.push(chunk_text(&style, delta, None));
                    }
                }
                Step::Finish(f) => chunks.push(chunk_text(&style, json!({}), Some(f))),
                Step::Usage => chunks.push(
                    json!({"id": "chatcmpl-t", "choices": [], "usage":
                        {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
                    .to_string(),
                ),
            }
        }
        chunks
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_streams_convert_the_same_with_and_without_the_template_path(chunks in stream()) {
        check(&chunks, Limits::default())?;
    }

    /// Limits fail at the same chunk on both paths.
    #[test]
    fn limits_fail_at_the_same_chunk_with_and_without_the_template_path(
        chunks in stream(),
        max_call_bytes in 1..120usize,
        max_buffered_bytes in prop_oneof![200..2000usize, Just(Limits::default().max_buffered_bytes)],
    ) {
        let limits = Limits { max_call_bytes, max_buffered_bytes, ..Limits::default() };
        check(&chunks, limits)?;
    }
}

fn parsing() -> impl Strategy<Value = (ResponseParsing, Profile)> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(Profile::Qwen021), Just(Profile::Qwen024)],
    )
        .prop_map(|(content_only, tagged, after_reasoning, profile)| {
            let parsing = ResponseParsing {
                content_only_tag_leaks: content_only,
                tagged_thinking: tagged,
                tagged_thinking_after_reasoning: after_reasoning,
            };
            (parsing, profile)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every response-parsing switch and profile: the template path for content is
    /// taken only while the normaliser alone decides a content-only chunk.
    #[test]
    fn generated_streams_convert_the_same_with_every_response_parsing(
        chunks in stream(),
        (parsing, profile) in parsing(),
    ) {
        let options = OpenAIOptions { parsing, profile, ..Default::default() };
        check_with(&chunks, &options)?;
    }
}

/// A provider's real serialisation of streamed text: every content chunk
/// after the first of its kind is converted without building a tree, while
/// the converter is ready for plain text; thinking tags, escapes, a split
/// surrogate pair and empty deltas convert as the long way does.
#[test]
fn an_openai_text_stream_takes_the_template_path_after_its_first_content_chunk() {
    let head = r#"{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1741570283,"model":"qwen-plus","choices":[{"index":0,"delta":"#;
    let chunk =
        |delta: &str, finish: &str| format!(r#"{head}{delta},"finish_reason":{finish}}}]}}"#);
    let texts = [
        "Hello",
        ", wor",
        "ld.\n",
        "Use \"quotes\" and \\ back",
        "slashes <think>",
        " x</think>",
        "\u{e9}\u{1F600}",
        "",
        "\t",
        "@HI@",
        "@LO@ done",
    ];
    let mut chunks = vec![chunk(r#"{"role":"assistant","content":""}"#, "null")];
    for t in texts {
        let delta = json!({ "content": t }).to_string();
        chunks.push(
            chunk(&delta, "null")
                .replace("@HI@", "\\ud83d")
                .replace("@LO@", "\\ude00"),
        );
    }
    chunks.push(chunk("{}", r#""stop""#));
    check(&chunks, Limits::default()).unwrap();
    let run = run(&chunks, Limits::default(), true, |_| 0);
    // The role chunk has a `role` key, so the first plain content chunk
    // converts the long way and is kept; all the others fit it.
    assert_eq!(run.templated, texts.len() as u64 - 1);
    let text: String = run
        .lines
        .iter()
        .filter_map(|l| l["r"]["candidates"][0]["content"]["parts"][0]["text"].as_str())
        .collect();
    assert!(
        text.starts_with(
            "Hello, world.\nUse \"quotes\" and \\ backslashes <think> x</think>\u{e9}\u{1F600}\t"
        ),
        "{text:?}"
    );
    // With the content-only leak guard on (DashScope), nothing is plain text
    // until visible content was seen, and both paths still agree.
    let guarded = OpenAIOptions {
        parsing: ResponseParsing {
            content_only_tag_leaks: true,
            ..ResponseParsing::default()
        },
        ..Default::default()
    };
    check_with(&chunks, &guarded).unwrap();
}

/// Visible content first seen on the template path for content counts as the long
/// way counts it: a thinking tag after later reasoning is then text, not a
/// tag candidate (the generated streams reach this order only rarely).
#[test]
fn visible_content_first_seen_on_the_template_path_is_remembered() {
    let style = Style {
        created: Some(1),
        usage: None,
        content: None,
        call_type: false,
        empty_id: false,
    };
    let chunks = vec![
        chunk_text(&style, json!({ "content": " " }), None),
        chunk_text(&style, json!({ "content": "x" }), None),
        chunk_text(&style, json!({ "reasoning_content": "r" }), None),
        chunk_text(&style, json!({ "content": "<think>y" }), None),
        chunk_text(&style, json!({}), Some("stop")),
    ];
    // `x` and, once visible content was seen, `<think>y` take the template path.
    assert_eq!(check(&chunks, Limits::default()).unwrap(), 2);
}

/// The generated streams do reach the template path, in quiet and held states.
#[test]
fn generated_streams_take_the_template_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = stream();
    let (mut streams, mut templated) = (0, 0);
    for _ in 0..200 {
        let chunks = strategy.new_tree(&mut runner).unwrap().current();
        let n = check(&chunks, Limits::default()).unwrap();
        streams += usize::from(n > 0);
        templated += n;
    }
    assert!(
        streams > 50 && templated > 300,
        "{streams} streams, {templated} chunks"
    );
}

/// A provider's real serialisation: every argument chunk after the first of
/// its kind is converted without building a tree.
#[test]
fn an_openai_write_file_stream_takes_the_template_path_after_its_first_argument_chunk() {
    let head = r#"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o","system_fingerprint":"fp_1","choices":[{"index":0,"delta":"#;
    let chunk = |delta: &str, finish: &str| {
        format!(r#"{head}{delta},"logprobs":null,"finish_reason":{finish}}}]}}"#)
    };
    let mut chunks = vec![
        chunk(r#"{"role":"assistant","content":null}"#, "null"),
        chunk(
            r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write_file","arguments":""}}]}"#,
            "null",
        ),
    ];
    let args = r#"{"file_path":"a.ts","content":"line \"one\"\nline 2 😀"}"#;
    let pieces: Vec<String> = args
        .chars()
        .collect::<Vec<_>>()
        .chunks(5)
        .map(|c| c.iter().collect())
        .collect();
    for p in &pieces {
        let delta = json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]});
        chunks.push(chunk(&delta.to_string(), "null"));
    }
    chunks.push(chunk("{}", r#""tool_calls""#));
    check(&chunks, Limits::default()).unwrap();
    let run = run(&chunks, Limits::default(), true, |_| 0);
    assert_eq!(run.templated, pieces.len() as u64 - 1);
    let last = run.lines.last().unwrap();
    assert_eq!(
        last["r"]["candidates"][0]["content"]["parts"][0]["functionCall"]["args"],
        serde_json::from_str::<Value>(args).unwrap()
    );
}

/// The harness reads a lone surrogate escape as its text, a pair as the
/// character it encodes, and leaves an escaped backslash alone.
#[test]
fn the_harness_reads_lone_surrogates_as_text() {
    let v = common::parse_output(r#"{"a":"\ud83d x \ud83d\ude00 \\ud800 \udc00"}"#);
    assert_eq!(v["a"], "\\ud83d x \u{1F600} \\ud800 \\udc00");
}

/// Argument chunks of one template whose strings hold invalid UTF-8 (a
/// stray continuation byte, a cut sequence, an encoded surrogate, an
/// overlong form) among valid multi-byte text, ASCII and escapes. A run of
/// such chunks is compared with its template and its strings decoded
/// without the push being validated first: an invalid string must leave
/// the run, and its line be decoded as the SDKs decode it (U+FFFD), exactly
/// as on the long way, in every read size.
fn utf8_piece() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            6 => Just(b"a".to_vec()),
            2 => Just("é".as_bytes().to_vec()),
            1 => Just("\u{1F600}".as_bytes().to_vec()),
            2 => Just(b"\\\"".to_vec()),
            1 => Just(b"\\n".to_vec()),
            1 => Just(b"\xff".to_vec()),
            1 => Just(b"\xc3".to_vec()),
            1 => Just(b"\xed\xa0\x80".to_vec()),
            1 => Just(b"\xc0\xaf".to_vec()),
            1 => Just(b"a run of plain text longer than a block".to_vec()),
        ],
        0..12,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn argument_runs_decode_invalid_utf8_as_the_long_way(
        pieces in prop::collection::vec(utf8_piece(), 1..40),
        read in prop_oneof![Just(usize::MAX), 5..400usize],
    ) {
        let head = r#"{"id":"chatcmpl-u","object":"chat.completion.chunk","created":1741570283,"model":"m","choices":[{"index":0,"delta":"#;
        let chunk = |delta: &[u8], finish: &str| -> Vec<u8> {
            [head.as_bytes(), delta, b",\"logprobs\":null,\"finish_reason\":", finish.as_bytes(), b"}]}"].concat()
        };
        let mut chunks = vec![chunk(
            br#"{"tool_calls":[{"index":0,"id":"call_u","type":"function","function":{"name":"write_file","arguments":"{\"content\":\""}}]}"#,
            "null",
        )];
        for p in &pieces {
            let delta = [br#"{"tool_calls":[{"index":0,"function":{"arguments":""#.as_slice(), p, br#""}}]}"#].concat();
            chunks.push(chunk(&delta, "null"));
        }
        chunks.push(chunk(br#"{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}"#, "null"));
        chunks.push(chunk(b"{}", "\"tool_calls\""));
        let options = OpenAIOptions::default();
        let long_way = run_in_reads(&chunks, &options, true, usize::MAX, |i| i + 1);
        prop_assert_eq!(long_way.templated, 0);
        let templated = run_in_reads(&chunks, &options, true, read, |_| 0);
        prop_assert_eq!(&templated.lines, &long_way.lines);
        let dropping = OpenAIOptions { drop_empty: true, ..OpenAIOptions::default() };
        let dropped = run_in_reads(&chunks, &dropping, true, read, |_| 0);
        let kept: Vec<Value> = long_way.lines.into_iter().filter(kept_by_pipeline).collect();
        prop_assert_eq!(&dropped.lines, &kept);
    }
}
