//! Helpers shared by the golden tests (`conformance.rs`, `quirks.rs`): our
//! output in the oracle's line format, and the masking of the two values the
//! corpus README says to compare by shape (the clock and generated ids).

// Each test crate uses part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{json, Value};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::Error;

/// One output line: a response with its preparations, or an error (by the
/// reference's `type`, else our code). `T` is the line's tag.
#[derive(Debug, Clone, PartialEq)]
pub enum Line<T> {
    Response {
        tag: T,
        response: Value,
        preparations: Value,
    },
    Error {
        tag: T,
        code: String,
    },
}

/// Parses output JSON with serde_json, which refuses a lone UTF-16
/// surrogate escape (`\ud83d` without its pair) that `JSON.parse` takes and
/// that tool arguments keep on purpose (README, deliberate differences): such
/// an escape is read as its six characters of text instead, the same way on
/// every side of a comparison.
pub fn parse_output(text: &str) -> Value {
    let b = text.as_bytes();
    let hex = |at: usize| {
        b.get(at..at + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut from = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        match hex(i + 2) {
            Some(0xD800..=0xDBFF)
                if b.get(i + 6) == Some(&b'\\')
                    && b.get(i + 7) == Some(&b'u')
                    && matches!(hex(i + 8), Some(0xDC00..=0xDFFF)) =>
            {
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[from..i]);
                out.push('\\');
                from = i;
                i += 6;
            }
            _ => i += 6,
        }
    }
    out.push_str(&text[from..]);
    serde_json::from_str(&out).expect("output is valid JSON")
}

pub fn response_line<T>(tag: T, r: &Response) -> Line<T> {
    let mut item = String::new();
    r.write_item(&mut item);
    let item = parse_output(&item);
    Line::Response {
        tag,
        response: item["r"].clone(),
        preparations: item.get("p").cloned().unwrap_or(json!([])),
    }
}

/// An error by the reference's `type`, else by the reference's own
/// `TypeError` (`name: message`) when the error carries it, else our code.
pub fn error_line<T>(tag: T, e: &Error) -> Line<T> {
    let code = match (e.kind(), &e.host_error) {
        (Some(kind), _) => kind.to_owned(),
        (None, Some(host)) => format!("{}: {}", host.name, host.message),
        (None, None) => e.code.as_str().to_owned(),
    };
    Line::Error { tag, code }
}

/// Masks the clock (`createTime` of 13+ digits) and generated ids
/// (`call_<ms>_<base36>`, numbered by first appearance, so consistency is
/// still checked); numbers compare as JS reads them (`1e3` == `1000`).
pub fn mask(v: &Value, ids: &mut HashMap<String, usize>) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("createTime", Value::String(s)) if s.len() >= 13 => {
                            assert!(s.bytes().all(|b| b.is_ascii_digit()), "createTime {s}");
                            Value::String("<now>".into())
                        }
                        _ => mask(v, ids),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| mask(v, ids)).collect()),
        Value::String(s) if is_generated_id(s) => {
            let n = ids.len();
            let n = *ids.entry(s.clone()).or_insert(n);
            Value::String(format!("<generated {n}>"))
        }
        Value::Number(n) => json!(n.as_f64()),
        other => other.clone(),
    }
}

pub fn is_generated_id(s: &str) -> bool {
    let Some((ms, suffix)) = s.strip_prefix("call_").and_then(|r| r.split_once('_')) else {
        return false;
    };
    !ms.is_empty()
        && ms.bytes().all(|b| b.is_ascii_digit())
        && (1..=7).contains(&suffix.len())
        && suffix
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
}

/// Every fixture stream (conformance, extra, quirks), sorted by directory
/// and name: its name (file stem) and its items up to a `__throw__` marker
/// (where the recorded stream throws instead of yielding).
pub fn fixture_streams() -> Vec<(String, Vec<Value>)> {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../__test__/fixtures");
    let mut out = Vec::new();
    for dir in ["conformance", "extra", "quirks", "qwen-0.24"] {
        let mut files: Vec<_> = std::fs::read_dir(fixtures.join(dir).join("streams"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            // A lone surrogate escape is read as its text (see parse_output).
            let items = parse_output(&std::fs::read_to_string(&path).unwrap());
            let items = items
                .as_array()
                .unwrap()
                .iter()
                .take_while(|e| e.get("__throw__").is_none())
                .cloned()
                .collect();
            out.push((name, items));
        }
    }
    out
}

/// One case of the response-parsing corpus (`__test__/fixtures/parsing`):
/// its key (expected-file stem), its chunks, and per release the profile,
/// the options Qwen's provider returned and the directory of its outputs.
pub struct ParsingCase {
    pub key: String,
    pub items: Vec<Value>,
    pub releases: Vec<(
        toolcall_stream_core::Profile,
        toolcall_stream_core::convert::openai::ResponseParsing,
        &'static str,
    )>,
}

pub fn parsing_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../__test__/fixtures/parsing")
}

pub fn parsing_cases() -> Vec<ParsingCase> {
    use toolcall_stream_core::convert::openai::ResponseParsing;
    use toolcall_stream_core::Profile;
    let dir = parsing_dir();
    let cases: Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let cases = cases.as_object().unwrap();
    assert!(cases.len() > 40, "the response-parsing corpus is there");
    cases
        .iter()
        .map(|(key, case)| {
            let stream = case["stream"].as_str().unwrap();
            let items: Value = serde_json::from_slice(
                &std::fs::read(dir.join("streams").join(format!("{stream}.json"))).unwrap(),
            )
            .unwrap();
            let parsing = |version: &str| {
                let o = &case["responseParsing"][version];
                ResponseParsing {
                    content_only_tag_leaks: o["contentOnlyThinkingTagLeaks"] == json!(true),
                    tagged_thinking: o["taggedThinkingTags"] == json!(true),
                    tagged_thinking_after_reasoning: o["taggedThinkingTagsAfterReasoning"]
                        == json!(true),
                }
            };
            ParsingCase {
                key: key.clone(),
                items: items.as_array().unwrap().clone(),
                releases: vec![
                    (Profile::Qwen021, parsing("0.21.2"), "expected"),
                    (Profile::Qwen024, parsing("0.24.4"), "expected-0.24.4"),
                ],
            }
        })
        .collect()
}

/// `Ok` when `path` was taken at least `min` times on this thread since the
/// last `path_counters::reset`; else what was missing, naming the path
/// (a differential test that never took the path it compares tests
/// nothing).
pub fn check_taken(
    path: toolcall_stream_core::convert::path_counters::Path,
    min: u64,
) -> Result<(), String> {
    let taken = toolcall_stream_core::convert::path_counters::count(path);
    if taken >= min {
        Ok(())
    } else {
        Err(format!(
            "the {path:?} path was taken {taken} times, fewer than {min}"
        ))
    }
}
