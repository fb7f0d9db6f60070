//! Split invariance: feeding a stream's SSE bytes in any split (random
//! multi-splits, one byte at a time, inside multi-byte UTF-8 and inside
//! `\r\n`) gives exactly the same responses, preparations and errors as
//! feeding whole events. Over every fixture stream (conformance, extra,
//! quirks, qwen-0.24, and the response-parsing corpus under the options
//! and profile of each release) and over randomly generated streams,
//! Anthropic streams under both profiles, OpenAI streams under random
//! response-parsing options and profiles. `createTime` (the clock) and
//! generated ids are masked.

mod common;
use common::check_taken;

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Value};
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream, ResponseParsing};
use toolcall_stream_core::convert::path_counters::{self, Path};
use toolcall_stream_core::foundations::sse::SseDecoder;
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, Profile};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Provider {
    Anthropic,
    OpenAI,
}

#[derive(Clone, Debug)]
struct Stream {
    name: String,
    provider: Provider,
    /// The converter's profile.
    profile: Profile,
    /// The OpenAI converter's response parsing.
    parsing: ResponseParsing,
    /// The OpenAI pipeline's `error_finish` check is on.
    pipeline: bool,
    items: Vec<Value>,
}

/// Every fixture stream; the Anthropic ones once per profile.
fn fixture_streams() -> Vec<Stream> {
    let mut out: Vec<Stream> = common::fixture_streams()
        .into_iter()
        .flat_map(|(name, items)| {
            let anthropic = name.starts_with("anthropic-");
            let profiles: &[Profile] = if anthropic {
                &[Profile::Qwen021, Profile::Qwen024]
            } else {
                &[Profile::Qwen021]
            };
            profiles.iter().map(move |&profile| Stream {
                provider: if anthropic {
                    Provider::Anthropic
                } else {
                    Provider::OpenAI
                },
                name: format!("{name} ({})", profile.as_str()),
                profile,
                parsing: ResponseParsing::default(),
                pipeline: false,
                items: items.clone(),
            })
        })
        .collect();
    for case in common::parsing_cases() {
        for (profile, parsing, dir) in case.releases {
            out.push(Stream {
                name: format!("parsing/{} ({dir})", case.key),
                provider: Provider::OpenAI,
                profile,
                parsing,
                pipeline: false,
                items: case.items.clone(),
            });
        }
    }
    assert!(out.len() > 80, "the fixture corpus is there");
    out
}

/// The SSE body of a stream, with `\n`, `\r\n` or `\r` line endings.
fn sse(stream: &Stream, ending: &str) -> Vec<u8> {
    let mut body = String::new();
    for item in &stream.items {
        if stream.provider == Provider::Anthropic {
            let ty = item["type"].as_str().unwrap_or("message");
            body.push_str(&format!("event: {ty}\n"));
        }
        body.push_str(&format!("data: {item}\n\n"));
    }
    if stream.provider == Provider::OpenAI {
        body.push_str("data: [DONE]\n\n");
    }
    body.replace('\n', ending).into_bytes()
}

fn mask(v: &Value, ids: &mut HashMap<String, usize>) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "createTime")
                .map(|(k, v)| (k.clone(), mask(v, ids)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| mask(v, ids)).collect()),
        Value::String(s) if s.starts_with("call_") && s.matches('_').count() == 2 => {
            let n = ids.len();
            json!(format!("<generated {}>", ids.entry(s.clone()).or_insert(n)))
        }
        other => other.clone(),
    }
}

/// What a run produced: masked responses (with preparations), then the
/// error that ended it, if any.
#[derive(Debug, Default)]
struct Outcome {
    ids: HashMap<String, usize>,
    lines: Vec<Value>,
}

impl PartialEq for Outcome {
    fn eq(&self, other: &Self) -> bool {
        self.lines == other.lines
    }
}

impl Outcome {
    fn responses(&mut self, rs: &mut Vec<Response>) {
        for r in rs.drain(..) {
            let mut text = String::new();
            r.write_item(&mut text);
            let v = common::parse_output(&text);
            self.lines.push(mask(&v, &mut self.ids));
        }
    }

    fn error(&mut self, e: &Error) {
        self.lines
            .push(json!({"error": e.code.as_str(), "fatal": e.fatal}));
    }
}

/// Index of the first in-band provider error (Anthropic `error` event,
/// OpenAI `{"error": …}` payload): the SDK throws there on the byte stream,
/// while event/chunk input hands it to the converter (deliberate, see
/// quirks.rs). An `error_finish` chunk is converted in every form (the
/// pipeline's check is off here).
fn in_band_error(stream: &Stream) -> Option<usize> {
    stream.items.iter().position(|i| {
        i["type"] == "error"
            || (stream.provider == Provider::OpenAI && i.get("error").is_some_and(|e| !e.is_null()))
    })
}

/// What the bytes of a stream must give: whole events; with an in-band
/// error, whole events up to it and then `STREAM_ERROR`.
fn expected(stream: &Stream) -> Outcome {
    match in_band_error(stream) {
        None => whole_events(stream, true),
        Some(at) => {
            let before = Stream {
                items: stream.items[..at].to_vec(),
                ..stream.clone()
            };
            let mut want = whole_events(&before, false);
            want.lines
                .push(json!({"error": "STREAM_ERROR", "fatal": true}));
            want
        }
    }
}

/// Every item through `push_event_text` / `push_chunk_text`, then `end()`
/// if `end`.
fn whole_events(stream: &Stream, end: bool) -> Outcome {
    let mut o = Outcome::default();
    let mut out = Vec::new();
    match stream.provider {
        Provider::Anthropic => {
            let mut s = anthropic(stream.profile);
            for item in &stream.items {
                let r = s.push_event_text(&item.to_string(), &mut out);
                o.responses(&mut out);
                if let Err(e) = r {
                    o.error(&e);
                    if e.fatal {
                        return o;
                    }
                }
            }
            if end {
                let r = s.end(&mut out);
                o.responses(&mut out);
                if let Err(e) = r {
                    o.error(&e);
                }
            }
        }
        Provider::OpenAI => {
            let mut s = openai(stream);
            for item in &stream.items {
                match s.push_chunk_text(&item.to_string()) {
                    Ok(r) => o.responses(&mut vec![r]),
                    Err(e) => {
                        o.error(&e);
                        if e.fatal {
                            return o;
                        }
                    }
                }
            }
            if end {
                let r = s.end(&mut out);
                o.responses(&mut out);
                if let Err(e) = r {
                    o.error(&e);
                }
            }
        }
    }
    o
}

/// Pushes the pieces in order. After a non-fatal error the rest of the
/// input is still buffered: an empty push continues with it.
fn openai(stream: &Stream) -> OpenAIStream {
    OpenAIStream::new(OpenAIOptions {
        profile: stream.profile,
        parsing: stream.parsing,
        throw_on_error_finish: stream.pipeline,
        ..OpenAIOptions::default()
    })
}

fn anthropic(profile: Profile) -> AnthropicStream {
    AnthropicStream::new(AnthropicOptions {
        profile,
        ..AnthropicOptions::default()
    })
}

fn bytes(stream: &Stream, pieces: &[&[u8]]) -> Outcome {
    fn drive(
        o: &mut Outcome,
        pieces: &[&[u8]],
        mut push: impl FnMut(&[u8], &mut Vec<Response>) -> Result<(), Error>,
        end: impl FnOnce(&mut Vec<Response>) -> Result<(), Error>,
    ) {
        let mut out = Vec::new();
        for p in pieces {
            let mut input: &[u8] = p;
            loop {
                let r = push(input, &mut out);
                o.responses(&mut out);
                match r {
                    Ok(()) => break,
                    Err(e) => {
                        o.error(&e);
                        if e.fatal {
                            return;
                        }
                        input = &[];
                    }
                }
            }
        }
        let r = end(&mut out);
        o.responses(&mut out);
        if let Err(e) = r {
            o.error(&e);
        }
    }
    let mut o = Outcome::default();
    match stream.provider {
        Provider::Anthropic => {
            let mut s = anthropic(stream.profile);
            let s = std::cell::RefCell::new(&mut s);
            drive(
                &mut o,
                pieces,
                |b, out| s.borrow_mut().push_bytes(b, out),
                |out| s.borrow_mut().end(out),
            );
        }
        Provider::OpenAI => {
            let mut s = openai(stream);
            let s = std::cell::RefCell::new(&mut s);
            drive(
                &mut o,
                pieces,
                |b, out| s.borrow_mut().push_bytes(b, out),
                |out| s.borrow_mut().end(out),
            );
        }
    }
    o
}

fn split_at<'a>(body: &'a [u8], cuts: &[Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
    at.sort_unstable();
    let mut pieces = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for c in at {
        pieces.push(&body[from..c]);
        from = c;
    }
    pieces.push(&body[from..]);
    pieces
}

const ENDINGS: [&str; 3] = ["\n", "\r\n", "\r"];

#[test]
fn every_fixture_stream_one_byte_at_a_time_in_every_line_ending() {
    path_counters::reset();
    for stream in fixture_streams() {
        let want = expected(&stream);
        for ending in ENDINGS {
            let body = sse(&stream, ending);
            let one: Vec<&[u8]> = body.chunks(1).collect();
            assert_eq!(
                bytes(&stream, &one),
                want,
                "{} ({ending:?}) byte by byte",
                stream.name
            );
            assert_eq!(
                bytes(&stream, &[&body]),
                want,
                "{} ({ending:?}) whole",
                stream.name
            );
        }
    }
    // The byte path and the template path took a good part of it (about
    // 930 events and 105 chunks), so the comparison tests them.
    check_taken(Path::Byte, 400).unwrap();
    check_taken(Path::Template, 50).unwrap();
}

#[test]
fn every_split_inside_a_multibyte_character_or_a_crlf() {
    for stream in fixture_streams() {
        let want = expected(&stream);
        let body = sse(&stream, "\r\n");
        let inside: Vec<usize> = (1..body.len())
            .filter(|&i| (body[i] & 0xC0 == 0x80) || (body[i - 1] == b'\r' && body[i] == b'\n'))
            .collect();
        for &i in inside.iter().step_by(inside.len() / 64 + 1) {
            assert_eq!(
                bytes(&stream, &[&body[..i], &body[i..]]),
                want,
                "{} split at {i}",
                stream.name
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn fixture_streams_under_random_multi_splits(
        which in any::<Index>(),
        ending in 0..3usize,
        cuts in prop::collection::vec(any::<Index>(), 0..40),
    ) {
        let streams = fixture_streams_cached();
        let stream = which.get(streams);
        let body = sse(stream, ENDINGS[ending]);
        let want = expected(stream);
        prop_assert_eq!(bytes(stream, &split_at(&body, &cuts)), want, "{}", stream.name);
    }
}

fn fixture_streams_cached() -> &'static [Stream] {
    static STREAMS: std::sync::OnceLock<Vec<Stream>> = std::sync::OnceLock::new();
    STREAMS.get_or_init(fixture_streams)
}

// ---------- generated streams ----------

/// Text with ASCII, 2-, 3- and 4-byte UTF-8, quotes, backslashes and line
/// breaks (which must survive as JSON escapes inside `data:`).
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just("é"),
            Just("中"),
            Just("😀"),
            Just("\""),
            Just("\\"),
            Just("\n"),
            Just("\r\n"),
            Just(" "),
            Just("{"),
            Just("}"),
            Just("<think>"),
            Just("</think>"),
            Just("<THINKING>"),
            Just("<th"),
            Just("ink>"),
        ],
        0..12,
    )
    .prop_map(|v| v.concat())
}

/// Splits `s` into fragments at char boundaries.
fn fragments(s: &str, cuts: &[Index]) -> Vec<String> {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    let mut at: Vec<usize> = cuts.iter().map(|c| *c.get(&bounds)).collect();
    at.sort_unstable();
    at.dedup();
    let mut out = Vec::new();
    let mut from = 0;
    for c in at.into_iter().chain([s.len()]) {
        if c > from {
            out.push(s[from..c].to_owned());
            from = c;
        }
    }
    out
}

#[derive(Clone, Debug)]
enum Block {
    Text(String),
    Thinking(String, String),
    Tool {
        id: String,
        name: String,
        args: String,
        cuts: Vec<Index>,
        close: bool,
    },
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        text().prop_map(Block::Text),
        (text(), "[a-z0-9]{0,6}").prop_map(|(t, s)| Block::Thinking(t, s)),
        (
            prop_oneof![Just("toolu_1"), Just("toolu_2"), Just("")],
            prop_oneof![Just("read_file"), Just("shell"), Just("")],
            text(),
            prop::collection::vec(any::<Index>(), 0..6),
            prop::bool::weighted(0.85),
        )
            .prop_map(|(id, name, t, cuts, close)| Block::Tool {
                id: id.into(),
                name: name.into(),
                args: json!({ "v": t }).to_string(),
                cuts,
                close,
            }),
    ]
}

fn anthropic_stream() -> impl Strategy<Value = Stream> {
    (
        prop::collection::vec(block(), 0..5),
        prop::option::of(prop_oneof![
            Just("end_turn"),
            Just("tool_use"),
            Just("max_tokens"),
            Just("refusal")
        ]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(blocks, stop, ping, strict)| {
            let mut items = vec![json!({"type": "message_start", "message": {
                "id": "msg_g", "model": "m", "usage": {"input_tokens": 3, "output_tokens": 1}}})];
            for (i, b) in blocks.into_iter().enumerate() {
                if ping {
                    items.push(json!({"type": "ping"}));
                }
                match b {
                    Block::Text(t) => {
                        items.push(json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}));
                        items.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": t}}));
                        items.push(json!({"type": "content_block_stop", "index": i}));
                    }
                    Block::Thinking(t, sig) => {
                        items.push(json!({"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": ""}}));
                        items.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": t}}));
                        items.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": sig}}));
                        items.push(json!({"type": "content_block_stop", "index": i}));
                    }
                    Block::Tool { id, name, args, cuts, close } => {
                        items.push(json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
                        for f in fragments(&args, &cuts) {
                            items.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": f}}));
                        }
                        if close {
                            items.push(json!({"type": "content_block_stop", "index": i}));
                        }
                    }
                }
            }
            items.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}}));
            items.push(json!({"type": "message_stop"}));
            let profile = if strict { Profile::Qwen024 } else { Profile::Qwen021 };
            Stream { name: "generated anthropic".into(), provider: Provider::Anthropic, profile, parsing: ResponseParsing::default(), pipeline: false, items }
        })
}

#[derive(Clone, Debug)]
enum Delta {
    Content(String),
    Reasoning(String),
    Call {
        index: Option<u8>,
        id: Option<&'static str>,
        name: Option<&'static str>,
        args: String,
    },
}

fn delta() -> impl Strategy<Value = Delta> {
    prop_oneof![
        text().prop_map(Delta::Content),
        text().prop_map(Delta::Reasoning),
        (
            prop::option::of(0..3u8),
            prop::option::of(prop_oneof![Just("call_a"), Just("call_b"), Just("")]),
            prop::option::of(prop_oneof![Just("read_file"), Just("shell"), Just("")]),
            prop_oneof![
                text().prop_map(|t| json!({ "v": t }).to_string()),
                text(),
                Just(String::new())
            ],
        )
            .prop_map(|(index, id, name, args)| Delta::Call {
                index,
                id,
                name,
                args
            }),
    ]
}

fn openai_stream() -> impl Strategy<Value = Stream> {
    (
        prop::collection::vec(delta(), 0..8),
        prop::option::of(prop_oneof![Just("stop"), Just("tool_calls"), Just("length")]),
        any::<bool>(),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        // An `error_finish` chunk somewhere, with the pipeline's check on or off.
        (prop::option::of((any::<Index>(), text())), any::<bool>()),
    )
        .prop_map(|(deltas, finish, usage, (later, content_only_tag_leaks, tagged_thinking, tagged_thinking_after_reasoning), (error_finish, pipeline))| {
            let chunk = |delta: Value, finish: Option<&str>| {
                json!({"id": "chatcmpl-g", "object": "chat.completion.chunk", "created": 1700000000,
                    "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            };
            let mut items = Vec::new();
            for d in deltas {
                items.push(match d {
                    Delta::Content(t) => chunk(json!({ "content": t }), None),
                    Delta::Reasoning(t) => chunk(json!({ "reasoning_content": t }), None),
                    Delta::Call { index, id, name, args } => {
                        let mut call = json!({"type": "function", "function": {"arguments": args}});
                        if let Some(i) = index {
                            call["index"] = json!(i);
                        }
                        if let Some(id) = id {
                            call["id"] = json!(id);
                        }
                        if let Some(n) = name {
                            call["function"]["name"] = json!(n);
                        }
                        chunk(json!({ "tool_calls": [call] }), None)
                    }
                });
            }
            if let Some(f) = finish {
                items.push(chunk(json!({}), Some(f)));
            }
            if usage {
                items.push(json!({"id": "chatcmpl-g", "created": 1700000000, "choices": [],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}));
            }
            if let Some((at, t)) = error_finish {
                let at = at.index(items.len() + 1);
                items.insert(at, chunk(json!({ "content": t }), Some("error_finish")));
            }
            let profile = if later { Profile::Qwen024 } else { Profile::Qwen021 };
            let parsing = ResponseParsing { content_only_tag_leaks, tagged_thinking, tagged_thinking_after_reasoning };
            Stream { name: "generated openai".into(), provider: Provider::OpenAI, profile, parsing, pipeline, items }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn generated_anthropic_streams_are_split_invariant(
        stream in anthropic_stream(),
        ending in 0..3usize,
        cuts in prop::collection::vec(any::<Index>(), 0..48),
    ) {
        let body = sse(&stream, ENDINGS[ending]);
        let want = expected(&stream);
        prop_assert_eq!(&bytes(&stream, &split_at(&body, &cuts)), &want);
        let one: Vec<&[u8]> = body.chunks(1).collect();
        prop_assert_eq!(&bytes(&stream, &one), &want);
    }

    #[test]
    fn generated_openai_streams_are_split_invariant(
        stream in openai_stream(),
        ending in 0..3usize,
        cuts in prop::collection::vec(any::<Index>(), 0..48),
    ) {
        let body = sse(&stream, ENDINGS[ending]);
        let want = expected(&stream);
        prop_assert_eq!(&bytes(&stream, &split_at(&body, &cuts)), &want);
        let one: Vec<&[u8]> = body.chunks(1).collect();
        prop_assert_eq!(&bytes(&stream, &one), &want);
    }

    /// The decoder alone, on arbitrary bytes (invalid UTF-8, lone `\r`,
    /// BOMs, empty pushes): the same events and the same error at the same
    /// offset for any split.
    #[test]
    fn sse_decoder_on_arbitrary_bytes(
        body in prop::collection::vec(prop_oneof![
            4 => any::<u8>(),
            2 => Just(b'\n'),
            2 => Just(b'\r'),
            1 => Just(0xEF), 1 => Just(0xBB), 1 => Just(0xBF),
            2 => Just(b':'),
        ], 0..200),
        cuts in prop::collection::vec(any::<Index>(), 0..24),
    ) {
        let mut prefixed = b"data: x".to_vec();
        prefixed.extend_from_slice(&body);
        for body in [&body[..], &prefixed[..]] {
            let want = decode(&[body]);
            prop_assert_eq!(&decode(&split_at(body, &cuts)), &want);
            let one: Vec<&[u8]> = body.chunks(1).flat_map(|c| [c, &[][..]]).collect();
            prop_assert_eq!(&decode(&one), &want);
        }
    }
}

type Decoded = (Vec<(Option<String>, String)>, Option<(String, Option<u32>)>);

fn decode(pieces: &[&[u8]]) -> Decoded {
    let mut d = SseDecoder::new(1 << 20);
    let mut events = Vec::new();
    for p in pieces {
        if let Err(e) = d.push(p, |e| {
            events.push((e.event.map(str::to_owned), e.data.to_owned()));
            Ok(())
        }) {
            return (events, Some((e.code.as_str().to_owned(), e.offset)));
        }
    }
    let r = d.finish(|e| {
        events.push((e.event.map(str::to_owned), e.data.to_owned()));
        Ok(())
    });
    (
        events,
        r.err().map(|e| (e.code.as_str().to_owned(), e.offset)),
    )
}

/// Found by `cargo fuzz` (sse_decoder): an empty push while a split BOM was
/// still incomplete left a stale scan position, and the next byte panicked
/// with an out-of-range slice.
#[test]
fn a_bom_split_around_an_empty_push() {
    let body = b"\xEF\xBB\xBFdata: a\n\n";
    let want = decode(&[body]);
    assert_eq!(want.0, [(None, "a".to_owned())]);
    let pieces: [&[u8]; 6] = [b"", b"\xEF", b"", b"\xBB", b"\xBF", b"data: a\n\n"];
    assert_eq!(decode(&pieces), want);
}
