//! What the OpenAI Responses tests share: the corpus read as the oracle
//! served it, the converter run over bytes or events, and its output in a
//! form compared with the oracle's lines.

// Each test crate uses part of this module.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::{json, Value};
use toolcall_stream_core::convert::openai_responses::{
    OpenAIResponsesOptions, OpenAIResponsesStream,
};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, Profile};

use super::common::parse_output;

/// A corpus folder under `__test__/fixtures` and its releases.
pub struct Corpus {
    pub dir: &'static str,
    pub releases: &'static [(Profile, &'static str)],
}

fn root(corpus: &Corpus) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../__test__/fixtures")
        .join(corpus.dir)
}

/// Every stream of the corpus, by name.
pub fn streams(corpus: &Corpus) -> Vec<(String, Vec<Value>)> {
    let mut out: Vec<(String, Vec<Value>)> = std::fs::read_dir(root(corpus).join("streams"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let items = parse_output(&std::fs::read_to_string(&p).unwrap());
            (name, items.as_array().unwrap().clone())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The body the oracle served (`event: <type>` + `data: <json>` per event,
/// `__raw__` as it is) up to a `__cut__`, and whether the stream is cut.
pub fn body(items: &[Value]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    for e in items {
        if e.get("__cut__").is_some() {
            return (out, true);
        }
        match e.get("__raw__") {
            Some(raw) => out.extend_from_slice(raw.as_str().unwrap().as_bytes()),
            None => {
                let ty = e["type"].as_str().unwrap_or("message");
                out.extend_from_slice(format!("event: {ty}\ndata: {e}\n\n").as_bytes());
            }
        }
    }
    (out, false)
}

/// The oracle's lines of `name` for the release in `dir`; a cut stream's
/// last line (the transport's `fetch failed`) is not the converter's.
pub fn expected(corpus: &Corpus, dir: &str, name: &str, cut: bool) -> Vec<Value> {
    let path = root(corpus)
        .join(dir)
        .join(format!("{name}.expected.ndjson"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no {path:?}"));
    let mut lines: Vec<Value> = text.lines().map(parse_output).collect();
    if cut {
        let last = lines
            .pop()
            .expect("a cut stream ends with the transport's error");
        assert_eq!(last["error"]["message"], "fetch failed");
    }
    lines
}

/// One output line: a response (its `createTime` masked) with its
/// preparations, or an error as the oracle writes one.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    Response(Value, Value),
    Error(Value),
}

impl Out {
    pub fn response(r: &Response) -> Out {
        let mut item = String::new();
        r.write_item(&mut item);
        let item = parse_output(&item);
        let mut response = item["r"].clone();
        let time = response["createTime"].as_str().unwrap().to_owned();
        assert!(time.len() >= 13 && time.bytes().all(|b| b.is_ascii_digit()));
        response["createTime"] = json!("<now>");
        Out::Response(response, item.get("p").cloned().unwrap_or(json!([])))
    }

    /// `{name, message, type?, code?}` as the oracle serialises Qwen's
    /// error: a `TypeError` of Qwen's own code, or a stream error with
    /// its `type` and `code` (from `providerError`).
    pub fn error(e: &Error) -> Out {
        if let Some(host) = &e.host_error {
            return Out::Error(json!({"name": host.name, "message": host.message}));
        }
        let mut o = json!({"name": e.name, "message": e.message, "code": e.code.as_str()});
        if e.code.as_str() == "STREAM_ERROR" {
            o = json!({"name": "Error", "message": e.message});
            let fields: Value = serde_json::from_str(e.provider_error.as_deref().unwrap()).unwrap();
            for key in ["type", "code"] {
                if let Some(v) = fields.get(key) {
                    o[key] = v.clone();
                }
            }
        }
        Out::Error(o)
    }

    /// `got` equals the oracle's `want` line for line (`createTime` masked).
    pub fn assert_matches(got: &[Out], want: &[Value], how: &str) {
        let want: Vec<Out> = want
            .iter()
            .map(|w| match w.get("error") {
                Some(e) => Out::Error(e.clone()),
                None => {
                    let mut r = w["response"].clone();
                    r["createTime"] = json!("<now>");
                    Out::Response(
                        r,
                        w.get("toolCallPreparations").cloned().unwrap_or(json!([])),
                    )
                }
            })
            .collect();
        assert_eq!(got, want.as_slice(), "{how}");
    }
}

pub fn stream(profile: Profile, preparations: bool) -> OpenAIResponsesStream {
    OpenAIResponsesStream::new(OpenAIResponsesOptions {
        profile,
        model: Some("oracle-model".into()),
        preparations,
        ..OpenAIResponsesOptions::default()
    })
}

/// The body pushed in `pieces`, then `end()` (or, for a cut stream, the
/// transport's failure).
pub fn run_bytes(profile: Profile, pieces: &[&[u8]], cut: bool) -> Vec<Out> {
    run_bytes_with(stream(profile, false), pieces, cut)
}

pub fn run_bytes_with(mut s: OpenAIResponsesStream, pieces: &[&[u8]], cut: bool) -> Vec<Out> {
    let mut out = Vec::new();
    let mut result = Ok(());
    for p in pieces {
        result = s.push_bytes(p, &mut out);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        if cut {
            s.upstream_failed();
        } else {
            result = s.end(&mut out);
        }
    }
    let mut lines: Vec<Out> = out.iter().map(Out::response).collect();
    if let Err(e) = result {
        lines.push(Out::error(&e));
    }
    lines
}

/// Each event pushed on its own, then `end()`.
pub fn run_events(profile: Profile, events: &[Value]) -> Vec<Out> {
    let mut s = stream(profile, false);
    let mut out = Vec::new();
    let mut result = Ok(());
    for e in events {
        result = s.push_event_text(&e.to_string(), &mut out);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = s.end(&mut out);
    }
    let mut lines: Vec<Out> = out.iter().map(Out::response).collect();
    if let Err(e) = result {
        lines.push(Out::error(&e));
    }
    lines
}
