//! The conformance corpus (`__test__/fixtures/conformance`, the reference's
//! own outputs) through the core, as events and as SSE bytes split at every
//! byte boundary, under both profiles: `expected/` is Qwen Code 0.21.2
//! (`qwen-0.21`), `expected-0.24.4/` is 0.24.4 (`qwen-0.24`). Comparison
//! rules: the corpus README (parsed JSON; masked clock values and generated
//! ids compared by shape and consistency).

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

mod common;
use common::{check_taken, error_line, mask, response_line, Line};
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::convert::path_counters::{self, Path};
use toolcall_stream_core::foundations::json::{set_stop_search, stop_search, StopSearch};
use toolcall_stream_core::Profile;

/// Each profile and the directory of the release's outputs it must match.
const PROFILES: [(Profile, &str); 2] = [
    (Profile::Qwen021, "expected"),
    (Profile::Qwen024, "expected-0.24.4"),
];

/// The reference corpus, our own cases (multi-byte UTF-8, truncation) and
/// the 0.24.4 strict-handling cases, whose expected outputs the oracle
/// produced the same way.
fn corpora() -> [PathBuf; 4] {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../__test__/fixtures");
    [
        fixtures.join("conformance"),
        fixtures.join("extra"),
        fixtures.join("qwen-0.24"),
        fixtures.join("provenance"),
    ]
}

fn streams(prefix: &str) -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    for dir in corpora() {
        for entry in std::fs::read_dir(dir.join("streams")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name.starts_with(prefix) {
                // A lone surrogate escape (extra/anthropic-lone-surrogate-input)
                // is read as its six characters, here and in the expected
                // lines alike: serde_json refuses it. The JS conformance test
                // feeds the real surrogate.
                let text = std::fs::read_to_string(&path).unwrap();
                let items = common::parse_output(&text);
                out.push((name, items.as_array().unwrap().clone()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty());
    out
}

/// The expected lines of `name` in `dir` (`expected` or `expected-0.24.4`).
fn expected(name: &str, dir: &str, suffix: &str) -> Vec<Value> {
    let file = format!("{name}.{suffix}");
    let path = corpora()
        .into_iter()
        .map(|d| d.join(dir).join(&file))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no {dir}/{file}"));
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(common::parse_output).collect()
}

fn compare(name: &str, how: &str, got: &[Line<Value>], want: &[Value], tag_key: &str) {
    let (mut got_ids, mut want_ids) = (HashMap::new(), HashMap::new());
    let want: Vec<&Value> = want.iter().filter(|w| !is_transport_error(w)).collect();
    assert_eq!(
        got.len(),
        want.len(),
        "{name} ({how}): line count\n got: {got:#?}\nwant: {want:#?}"
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        match g {
            Line::Response {
                tag,
                response,
                preparations,
            } => {
                assert_eq!(Some(tag), w.get(tag_key), "{name} ({how}) line {i}: tag");
                let w_resp = w
                    .get("response")
                    .unwrap_or_else(|| panic!("{name} ({how}) line {i}: expected {w}"));
                assert_eq!(
                    mask(response, &mut got_ids),
                    mask(w_resp, &mut want_ids),
                    "{name} ({how}) line {i}: response"
                );
                let w_preps = w
                    .get("toolCallPreparations")
                    .cloned()
                    .unwrap_or(Value::Array(vec![]));
                assert_eq!(
                    preparations, &w_preps,
                    "{name} ({how}) line {i}: preparations"
                );
            }
            Line::Error { tag, code } => {
                assert_eq!(
                    Some(tag),
                    w.get(tag_key),
                    "{name} ({how}) line {i}: error tag"
                );
                let err = w
                    .get("error")
                    .unwrap_or_else(|| panic!("{name} ({how}) line {i}: unexpected error {code}"));
                let want_code = err
                    .get("type")
                    .or_else(|| err.get("code"))
                    .and_then(Value::as_str)
                    .unwrap();
                assert_eq!(code, want_code, "{name} ({how}) line {i}");
            }
        }
    }
}

/// The harness's simulated transport failure (`__throw__`, rethrown as it
/// is: no `type`) is not the converter's output.
fn is_transport_error(w: &Value) -> bool {
    w.get("error")
        .is_some_and(|e| e.get("type").is_none() && e.get("name") == Some(&Value::from("Error")))
}

fn events_until_throw(items: &[Value]) -> &[Value] {
    let end = items
        .iter()
        .position(|e| e.get("__throw__").is_some())
        .unwrap_or(items.len());
    &items[..end]
}

fn anthropic_sse(events: &[Value]) -> Vec<u8> {
    let mut body = Vec::new();
    for ev in events {
        let ty = ev["type"].as_str().unwrap_or("message");
        body.extend_from_slice(format!("event: {ty}\ndata: {ev}\n\n").as_bytes());
    }
    body
}

fn openai_sse(chunks: &[Value]) -> Vec<u8> {
    let mut body = Vec::new();
    for c in chunks {
        body.extend_from_slice(format!("data: {c}\n\n").as_bytes());
    }
    body.extend_from_slice(b"data: [DONE]\n\n");
    body
}

fn anthropic(profile: Profile) -> AnthropicStream {
    AnthropicStream::new(AnthropicOptions {
        profile,
        ..AnthropicOptions::default()
    })
}

/// Where the harness's feed throws: the event index, and whether its
/// error is a retryable stream transport error (a `code` in 0.24.4's
/// `RETRYABLE_STREAM_TRANSPORT_CODES`, the JS generator's classification).
type Throw = Option<(usize, bool)>;

/// The end of the input: `end()`, or what the generator does where the
/// feed throws. Tagged as the oracle tags it.
fn finish_anthropic(s: &mut AnthropicStream, throws: Throw, lines: &mut Vec<Line<Value>>) {
    let mut out = Vec::new();
    let (tag, r) = match throws {
        Some((i, retryable)) => (i.into(), s.upstream_failed(retryable, &mut out)),
        None => (Value::from("end"), s.end(&mut out)),
    };
    lines.extend(out.iter().map(|o| response_line(tag.clone(), o)));
    if let Err(e) = r {
        lines.push(error_line(tag, &e));
    }
}

fn throw_at(items: &[Value]) -> Throw {
    const RETRYABLE: [&str; 6] = [
        "ECONNRESET",
        "ETIMEDOUT",
        "UND_ERR_BODY_TIMEOUT",
        "UND_ERR_CONNECT_TIMEOUT",
        "UND_ERR_HEADERS_TIMEOUT",
        "UND_ERR_SOCKET",
    ];
    let i = items.iter().position(|e| e.get("__throw__").is_some())?;
    let code = items[i]["__throw__"]["code"].as_str().unwrap_or_default();
    Some((i, RETRYABLE.contains(&code)))
}

fn run_anthropic_events(profile: Profile, events: &[Value]) -> Vec<Line<Value>> {
    let mut s = anthropic(profile);
    let mut lines = Vec::new();
    for (i, ev) in events_until_throw(events).iter().enumerate() {
        let mut out = Vec::new();
        let r = s.push_event_text(&ev.to_string(), &mut out);
        lines.extend(out.iter().map(|o| response_line(i.into(), o)));
        if let Err(e) = r {
            lines.push(error_line(i.into(), &e));
            return lines;
        }
    }
    finish_anthropic(&mut s, throw_at(events), &mut lines);
    lines
}

/// Responses and preparations only (tags depend on how bytes were split).
fn flat(lines: &[Line<Value>]) -> Vec<String> {
    let mut ids = HashMap::new();
    lines
        .iter()
        .map(|l| match l {
            Line::Response {
                response,
                preparations,
                ..
            } => {
                let mut r = mask(response, &mut ids);
                r.as_object_mut().unwrap().remove("createTime");
                format!("{r} {preparations}")
            }
            Line::Error { code, .. } => format!("error {code}"),
        })
        .collect()
}

fn run_anthropic_bytes(profile: Profile, pieces: &[&[u8]], throws: Throw) -> Vec<Line<Value>> {
    let mut s = anthropic(profile);
    let mut lines = Vec::new();
    let mut out = Vec::new();
    for p in pieces {
        if let Err(e) = s.push_bytes(p, &mut out) {
            lines.extend(out.iter().map(|o| response_line(Value::Null, o)));
            lines.push(error_line(Value::Null, &e));
            return lines;
        }
    }
    lines.extend(out.iter().map(|o| response_line(Value::Null, o)));
    finish_anthropic(&mut s, throws, &mut lines);
    lines
}

fn run_openai_chunks(chunks: &[Value]) -> Vec<Line<Value>> {
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let mut lines = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        match s.push_chunk_text(&c.to_string()) {
            Ok(r) => lines.push(response_line(i.into(), &r)),
            Err(e) => {
                lines.push(error_line(i.into(), &e));
                break;
            }
        }
    }
    lines
}

fn run_openai_bytes(pieces: &[&[u8]]) -> Vec<Line<Value>> {
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let mut lines = Vec::new();
    let mut out = Vec::new();
    for p in pieces {
        if let Err(e) = s.push_bytes(p, &mut out) {
            lines.extend(out.iter().map(|o| response_line(Value::Null, o)));
            lines.push(error_line(Value::Null, &e));
            return lines;
        }
    }
    s.end(&mut out).unwrap();
    lines.extend(out.iter().map(|o| response_line(Value::Null, o)));
    lines
}

#[test]
fn anthropic_events_match_the_reference() {
    anthropic_events_match();
}

fn anthropic_events_match() {
    for (profile, dir) in PROFILES {
        for (name, events) in streams("anthropic-") {
            let got = run_anthropic_events(profile, &events);
            let how = format!("events, {}", profile.as_str());
            compare(
                &name,
                &how,
                &got,
                &expected(&name, dir, "expected.ndjson"),
                "event",
            );
        }
    }
}

#[test]
fn anthropic_bytes_split_anywhere_match_whole_events() {
    path_counters::reset();
    let (mismatches, _) = byte_differential(Provider::Anthropic, Splits::Everywhere);
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    paths_taken(Provider::Anthropic).unwrap();
}

#[test]
fn openai_chunks_match_the_reference() {
    openai_chunks_match();
}

fn openai_chunks_match() {
    for (name, chunks) in streams("openai-") {
        let got = run_openai_chunks(&chunks);
        for (_, dir) in PROFILES {
            compare(
                &name,
                "chunks",
                &got,
                &expected(&name, dir, "expected.ndjson"),
                "chunk",
            );
        }
    }
}

#[test]
fn openai_bytes_split_anywhere_match_whole_chunks() {
    path_counters::reset();
    let (mismatches, _) = byte_differential(Provider::OpenAI, Splits::Everywhere);
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    paths_taken(Provider::OpenAI).unwrap();
}

/// The corpus through every JSON stop search this build holds (a byte at a
/// time, SWAR, and SSE2 or NEON), switched on this thread: whole events,
/// whole chunks and whole SSE bodies give the reference's outputs with each.
#[test]
fn every_stop_search_matches_the_reference() {
    for &search in StopSearch::ALL {
        set_stop_search(Some(search));
        assert_eq!(stop_search(), search);
        anthropic_events_match();
        openai_chunks_match();
        for provider in [Provider::Anthropic, Provider::OpenAI] {
            let (mismatches, _) = byte_differential(provider, Splits::Whole);
            assert!(
                mismatches.is_empty(),
                "{provider:?}, {}: {mismatches:#?}",
                search.name()
            );
        }
    }
    set_stop_search(None);
}

/// The count checks of the byte tests can fail: with a path's predicate
/// switched off the path never fires, every output stays the same (the long
/// way converts what the path would have), and the check reports the path.
#[test]
fn the_path_checks_fail_when_a_path_never_fires() {
    for (provider, path) in [
        (Provider::Anthropic, Path::Byte),
        (Provider::OpenAI, Path::Byte),
        (Provider::OpenAI, Path::Template),
    ] {
        path_counters::reset();
        let (mismatches, with_path) = byte_differential(provider, Splits::Whole);
        assert!(mismatches.is_empty(), "{mismatches:#?}");
        paths_taken(provider).unwrap();

        path_counters::reset();
        path_counters::set_disabled(path, true);
        let (mismatches, without_path) = byte_differential(provider, Splits::Whole);
        path_counters::set_disabled(path, false);
        assert!(
            mismatches.is_empty(),
            "{provider:?} without {path:?}: {mismatches:#?}"
        );
        assert_eq!(
            path_counters::count(path),
            0,
            "{provider:?}: {path:?} is off"
        );
        assert_eq!(
            with_path, without_path,
            "{provider:?}: {path:?} changes no output"
        );
        let failed = paths_taken(provider).unwrap_err();
        assert!(failed.contains(&format!("{path:?}")), "{failed}");
    }
}

#[derive(Clone, Copy, Debug)]
enum Provider {
    Anthropic,
    OpenAI,
}

/// How a byte differential cuts each SSE body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Splits {
    /// Whole, at every byte boundary in two, and byte by byte.
    Everywhere,
    /// Whole only.
    Whole,
}

/// Every corpus stream of `provider` as SSE bytes against its whole events
/// (Anthropic, under both profiles) or chunks (OpenAI, in `\n` and `\r\n`
/// bodies): a description of each cut whose output differs, and the output
/// of every whole body.
fn byte_differential(provider: Provider, splits: Splits) -> (Vec<String>, Vec<Vec<String>>) {
    let mut mismatches = Vec::new();
    let mut outputs = Vec::new();
    let mut cuts =
        |body: &[u8], whole: &[String], name: &str, run: &dyn Fn(&[&[u8]]) -> Vec<String>| {
            let got = run(&[body]);
            if got != whole {
                mismatches.push(format!("{name}: whole body"));
            }
            outputs.push(got);
            if splits == Splits::Whole {
                return;
            }
            for at in 0..=body.len() {
                if run(&[&body[..at], &body[at..]]) != whole {
                    mismatches.push(format!("{name}: split at byte {at}"));
                }
            }
            let bytes: Vec<&[u8]> = body.chunks(1).collect();
            if run(&bytes) != whole {
                mismatches.push(format!("{name}: byte by byte"));
            }
        };
    match provider {
        Provider::Anthropic => {
            for (profile, _) in PROFILES {
                for (name, all) in streams("anthropic-") {
                    let throws = throw_at(&all);
                    let body = anthropic_sse(events_until_throw(&all));
                    let whole = flat(&run_anthropic_events(profile, &all));
                    let run =
                        |pieces: &[&[u8]]| flat(&run_anthropic_bytes(profile, pieces, throws));
                    cuts(
                        &body,
                        &whole,
                        &format!("{name} ({})", profile.as_str()),
                        &run,
                    );
                }
            }
        }
        Provider::OpenAI => {
            for (name, chunks) in streams("openai-") {
                let body = openai_sse(&chunks);
                let whole = flat(&run_openai_chunks(&chunks));
                let crlf = String::from_utf8(body.clone())
                    .unwrap()
                    .replace('\n', "\r\n")
                    .into_bytes();
                let run = |pieces: &[&[u8]]| flat(&run_openai_bytes(pieces));
                cuts(&body, &whole, &name, &run);
                cuts(&crlf, &whole, &format!("{name} (CRLF)"), &run);
            }
        }
    }
    (mismatches, outputs)
}

/// Whether the byte tests of `provider` went through the paths they are
/// there to test, each often enough since the last reset: the byte path
/// (both providers) and the template path (OpenAI).
fn paths_taken(provider: Provider) -> Result<(), String> {
    let checks = match provider {
        Provider::Anthropic => vec![check_taken(Path::Byte, MIN_ANTHROPIC_BYTE)],
        Provider::OpenAI => vec![
            check_taken(Path::Byte, MIN_OPENAI_BYTE),
            check_taken(Path::Template, MIN_OPENAI_TEMPLATE),
        ],
    };
    let missing: Vec<String> = checks.into_iter().filter_map(Result::err).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing.join("; "))
    }
}

/// How often each path is taken at least over the whole bodies of the
/// corpus: about half of what they take today (100 Anthropic hot events; 15
/// OpenAI events on the byte path, 45 chunks on the template path), so a
/// corpus or converter change that starves a path fails here. The split
/// runs take them many times more.
const MIN_ANTHROPIC_BYTE: u64 = 50;
const MIN_OPENAI_BYTE: u64 = 8;
const MIN_OPENAI_TEMPLATE: u64 = 25;
