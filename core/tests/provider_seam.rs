//! The provider seam (`convert/provider.rs`): what the binding does with a
//! provider's name (look it up in `PROVIDERS`, make its stream, drive it
//! through `StreamConverter`) gives exactly what the provider's own stream
//! type gives, on every fixture stream, object by object and as SSE bytes,
//! and on the non-streaming bodies; an unknown name is an `INVALID_ARGUMENT`
//! that names the known ones.

use std::collections::HashMap;

use serde_json::Value;

mod common;
use common::{error_line, mask, response_line, Line};
use toolcall_stream_core::convert::anthropic::body::anthropic_response;
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::nonstream::BodyOptions;
use toolcall_stream_core::convert::object_path::HeldArgs;
use toolcall_stream_core::convert::openai::body::openai_response;
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::convert::provider::{
    provider, ConverterOptions, StreamConverter, PROVIDERS,
};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, ErrorCode, Profile};

/// The lines one input call gives: its responses, then its error if any.
fn lines(out: Vec<Response>, result: Result<(), Error>, into: &mut Vec<Line<usize>>) {
    let n = into.len();
    into.extend(out.iter().map(|r| response_line(n, r)));
    if let Err(e) = result {
        into.push(error_line(n, &e));
    }
}

/// Masked lines up to the first error (where the reference's stream
/// throws), comparable across two runs (clock, generated ids) and input
/// forms (bytes take more calls than objects).
fn masked(lines: Vec<Line<usize>>) -> Vec<Value> {
    let mut ids = HashMap::new();
    let end = lines
        .iter()
        .position(|l| matches!(l, Line::Error { .. }))
        .map_or(lines.len(), |i| i + 1);
    lines
        .into_iter()
        .take(end)
        .map(|line| match line {
            Line::Response {
                response,
                preparations,
                ..
            } => serde_json::json!({
                "r": mask(&response, &mut ids),
                "p": mask(&preparations, &mut ids),
            }),
            Line::Error { code, .. } => serde_json::json!({ "error": code }),
        })
        .collect()
}

/// One input call.
enum Input<'a> {
    Object(&'a str),
    Bytes(&'a [u8]),
    End,
}

/// Feeds `items` to `call` as objects (`bytes: false`) or as SSE bytes
/// three bytes a call (an Anthropic event with its `event:` line, as the
/// API sends it), then the end; the masked lines it gave.
fn feed(
    items: &[Value],
    bytes: bool,
    mut call: impl FnMut(Input<'_>, &mut Vec<Response>) -> Result<(), Error>,
) -> Vec<Value> {
    let mut all = Vec::new();
    let mut step = |input: Input<'_>, all: &mut Vec<Line<usize>>| {
        let mut out = Vec::new();
        let r = call(input, &mut out);
        lines(out, r, all);
    };
    if bytes {
        let sse: String = items
            .iter()
            .map(|i| match i.get("type").and_then(Value::as_str) {
                Some(event) => format!("event: {event}\ndata: {i}\n\n"),
                None => format!("data: {i}\n\n"),
            })
            .collect();
        for piece in sse.as_bytes().chunks(3) {
            step(Input::Bytes(piece), &mut all);
        }
    } else {
        for item in items {
            step(Input::Object(&item.to_string()), &mut all);
        }
    }
    step(Input::End, &mut all);
    masked(all)
}

/// Through the seam, as the binding drives a converter.
fn through_seam(stream: &mut dyn StreamConverter, items: &[Value], bytes: bool) -> Vec<Value> {
    feed(items, bytes, |input, out| match input {
        Input::Object(text) => stream.push_object_text(text, out),
        Input::Bytes(b) => stream.push_bytes(b, out),
        Input::End => stream.end(out),
    })
}

/// The provider's own type, driven by its own methods.
fn direct(kind: &str, profile: Profile, items: &[Value], bytes: bool) -> Vec<Value> {
    if kind == "anthropic" {
        let mut s = AnthropicStream::new(AnthropicOptions {
            profile,
            ..AnthropicOptions::default()
        });
        feed(items, bytes, |input, out| match input {
            Input::Object(text) => s.push_event_text(text, out),
            Input::Bytes(b) => s.push_bytes(b, out),
            Input::End => s.end(out),
        })
    } else {
        let mut s = OpenAIStream::new(OpenAIOptions {
            profile,
            ..OpenAIOptions::default()
        });
        feed(items, bytes, |input, out| match input {
            Input::Object(text) => s.push_chunk_text(text).map(|r| out.push(r)),
            Input::Bytes(b) => s.push_bytes(b, out),
            Input::End => s.end(out),
        })
    }
}

fn options(profile: Profile) -> ConverterOptions {
    ConverterOptions {
        profile,
        ..ConverterOptions::default()
    }
}

#[test]
fn each_provider_through_the_seam_equals_its_own_stream() {
    let mut compared: HashMap<&str, usize> = HashMap::new();
    for (name, items) in common::fixture_streams() {
        let kind = if name.starts_with("anthropic") {
            "anthropic"
        } else if name.starts_with("openai") {
            "openai"
        } else {
            continue;
        };
        let seam = provider(kind).unwrap();
        for profile in [Profile::Qwen021, Profile::Qwen024] {
            for bytes in [false, true] {
                let mut stream = (seam.new)(&options(profile)).unwrap();
                assert_eq!(
                    through_seam(stream.as_mut(), &items, bytes),
                    direct(kind, profile, &items, bytes),
                    "{name} ({profile:?}, bytes: {bytes})"
                );
            }
        }
        *compared.entry(kind).or_default() += 1;
    }
    // Both providers were exercised, on many streams each.
    assert!(
        compared.get("anthropic").copied().unwrap_or(0) > 10,
        "{compared:?}"
    );
    assert!(
        compared.get("openai").copied().unwrap_or(0) > 10,
        "{compared:?}"
    );
}

#[test]
fn a_providers_object_path_takes_its_own_calls_and_refuses_the_others() {
    let mut anthropic = (provider("anthropic").unwrap().new)(&ConverterOptions::default()).unwrap();
    let path = anthropic
        .object_path()
        .expect("Anthropic has an object path");
    assert_eq!(
        path.push_gathered("[]").unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    // No block 0: the fragments are dropped, as the long way drops them.
    path.append_gathered("0", "{}", false).unwrap();
    let mut openai = (provider("openai").unwrap().new)(&ConverterOptions::default()).unwrap();
    let path = openai.object_path().expect("OpenAI has an object path");
    path.push_gathered("[]").unwrap();
    assert_eq!(
        path.append_gathered("0", "{}", false).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let mut out = Vec::new();
    assert_eq!(
        path.stop_held("0", HeldArgs::Utf8Len(2), &mut out)
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn bodies_through_the_seam_equal_the_providers_own() {
    let o = BodyOptions::default();
    let anthropic_body = r#"{"id":"msg_1","model":"m","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a"}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4}}"#;
    let openai_body = r#"{"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}"#;
    let strip_clock = |json: String| {
        let mut ids = HashMap::new();
        mask(&serde_json::from_str(&json).unwrap(), &mut ids)
    };
    let seam = (provider("anthropic").unwrap().body)(anthropic_body, &o).unwrap();
    let own = anthropic_response(anthropic_body, &o).unwrap();
    assert_eq!(strip_clock(seam.json), strip_clock(own.json));
    assert_eq!(seam.usage_provenance, own.usage_provenance);
    let seam = (provider("openai").unwrap().body)(openai_body, &o).unwrap();
    let own = openai_response(openai_body, &o).unwrap();
    assert_eq!(strip_clock(seam.json), strip_clock(own.json));
    assert_eq!(seam.reasoning_parts, own.reasoning_parts);
}

#[test]
fn an_unknown_provider_is_an_invalid_argument_naming_the_known_ones() {
    let e = provider("bedrock").err().unwrap();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    for p in PROVIDERS {
        assert!(e.message.contains(p.name), "{}", e.message);
    }
    let names: Vec<&str> = PROVIDERS.iter().map(|p| p.name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "each provider once");
}

#[test]
fn a_failed_source_finishes_every_provider() {
    for p in PROVIDERS {
        let options = ConverterOptions {
            profile: p.default_profile(),
            ..ConverterOptions::default()
        };
        let mut s = p.stream(&options).unwrap();
        let mut out = Vec::new();
        s.upstream_failed(false, &mut out).unwrap();
        assert!(out.is_empty(), "{}: nothing held to yield", p.name);
        assert!(s.finished(), "{}", p.name);
        if let Some(path) = s.object_path() {
            assert!(path.state_word(&[]).is_finished(), "{}", p.name);
        }
        let e = s.push_bytes(b"data: {}\n\n", &mut out).unwrap_err();
        assert_eq!(e.code, ErrorCode::Finished, "{}", p.name);
    }
}

#[test]
fn each_provider_reads_its_own_settings_and_refuses_a_mistyped_one() {
    let with = |settings: &str| ConverterOptions {
        settings: Some(settings.to_owned()),
        ..ConverterOptions::default()
    };
    let openai = provider("openai").unwrap();
    assert!((openai.new)(&with(
        r#"{"dropEmptyResponses":true,"responseParsing":{"taggedThinkingTags":true}}"#
    ))
    .is_ok());
    let e = (openai.new)(&with(r#"{"dropEmptyResponses":"yes"}"#))
        .err()
        .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(e.message.contains("dropEmptyResponses"), "{}", e.message);
    let responses = provider("openai-responses").unwrap();
    let e = (responses.new)(&with(r#"{"model":7}"#)).err().unwrap();
    assert!(e.message.contains("model"), "{}", e.message);
    // A key another provider defines means nothing here.
    assert!((provider("anthropic").unwrap().new)(&with(r#"{"model":7}"#)).is_ok());
    for p in [openai, responses] {
        let e = (p.new)(&with("[]")).err().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArgument, "{}", p.name);
    }
}
