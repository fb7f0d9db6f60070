//! Every row of `PROVIDERS` and its fixture folder
//! (`__test__/fixtures/providers/<name>/corpus.json`, described in that
//! folder's README): its streams as the oracle served them, the releases
//! whose outputs they must give, and one rule for comparing what a stream
//! gives with the oracle's lines. Everything here drives a converter through
//! the seam only (`row.stream(&ConverterOptions)` and `StreamConverter`), so
//! a provider's folder is all a new row needs.
//!
//! The rule (the conformance corpus README's, `__test__/fixtures/conformance/
//! README.md`, made one for every corpus): each side becomes the oracle's
//! line form, `{"response", "toolCallPreparations"}` or `{"error"}`, and the
//! two lists must be equal as parsed JSON, once
//! - `createTime` (the clock) and generated tool-call ids
//!   (`call_<ms>_<base36>`, numbered by first appearance on each side, so
//!   the same id must stand for the same call) are masked;
//! - an error is Qwen's as the oracle serialises it,
//!   `{name, message, type?, code?}`: the `TypeError` or `RangeError` of
//!   Qwen's own code that our error carries (`host_error`), a stream error
//!   with the provider error's `type` and `code` (`STREAM_ERROR`), or the
//!   reference's `InvalidStreamError` with its `type` (`MALFORMED_TOOL_CALL`,
//!   `PROTOCOL_TAG_LEAK`), name and message word for word; any other error
//!   of ours is the reference's nothing, and never equals a line;
//! - a stream whose feed fails (`__throw__`, `__cut__`) ends with the
//!   harness's rethrown failure, which is the transport's line, not the
//!   converter's: it is dropped from the expected lines (and must be an
//!   `Error` with no `type`).
//!
//! - beside each response, the out-of-band values the folder's oracle
//!   records (`recorded`: `toolCallPreparations`, absent as none;
//!   `usageProvenance`, Qwen's `getGenAiUsageProvenance`, absent as absent)
//!   are compared; the oracle's tags (`event`, `chunk`) are not.
//!
//! Output stops at the first error, where the reference's stream throws.

// Each test crate uses part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{json, Map, Value};
pub use toolcall_stream_core::convert::path_counters::Path;
use toolcall_stream_core::convert::provider::{ConverterOptions, Provider, StreamConverter};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::{Error, Profile};

use super::common::{mask, parse_output};

/// `__test__/fixtures/providers`.
pub fn providers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../__test__/fixtures/providers")
}

/// One release the oracle ran: the profile that follows it and the folder
/// (in each stream's corpus folder) of its outputs.
pub struct Release {
    pub profile: Profile,
    pub dir: String,
}

/// How the feed ends after the body: `end()`, or the source fails
/// (`upstream_failed`, with the host's retryable classification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    End,
    Failed { retryable: bool },
}

/// One stream of a provider's folder.
pub struct Stream {
    /// The file's stem (the expected file's, too).
    pub name: String,
    /// The corpus folder it is in (its release folders are beside
    /// `streams/`).
    pub folder: PathBuf,
    /// The provider's objects, up to a feed failure.
    pub objects: Vec<Value>,
    /// The SSE body the oracle served (the manifest's framing).
    pub body: Vec<u8>,
    pub ending: Ending,
    /// Only the provider's objects (no `__raw__` text): it can also be fed
    /// one object at a time.
    pub plain: bool,
}

/// A row of `PROVIDERS` with its fixture folder read.
pub struct Fixture {
    pub provider: &'static Provider,
    pub releases: Vec<Release>,
    /// The provider's settings the oracle's outputs were made with.
    pub settings: Value,
    /// Boolean settings (dotted paths) a fuzz target may switch on.
    pub flags: Vec<String>,
    /// The out-of-band values the oracle's lines record.
    pub recorded: Vec<String>,
    pub min_streams: usize,
    /// The conversion paths other than the long way that the folder's
    /// whole bodies take, each at least this often.
    pub paths: Vec<(Path, u64)>,
    pub streams: Vec<Stream>,
}

impl Fixture {
    /// A fresh converter of this row under `profile`, through the seam.
    pub fn converter(&self, profile: Profile) -> Box<dyn StreamConverter> {
        let options = ConverterOptions {
            profile,
            settings: Some(self.settings.to_string()),
            ..ConverterOptions::default()
        };
        // Through the row's own check: a folder's release under a profile
        // its row does not list fails here.
        self.provider
            .stream(&options)
            .unwrap_or_else(|e| panic!("{}: {e}", self.provider.name))
    }

    /// What `stream` must give under `release`: the oracle's lines, the
    /// transport's failure dropped.
    pub fn expected(&self, stream: &Stream, release: &Release) -> Vec<Value> {
        let path = stream
            .folder
            .join(&release.dir)
            .join(format!("{}.expected.ndjson", stream.name));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{}: no {}", self.provider.name, path.display()));
        let mut lines: Vec<Value> = text.lines().map(parse_output).collect();
        if stream.ending != Ending::End {
            let last = lines.pop().unwrap_or_default();
            let error = &last["error"];
            assert!(
                error["name"] == "Error" && error.get("type").is_none(),
                "{}: a failed feed ends with the transport's error, not {last}",
                path.display()
            );
        }
        lines
    }
}

/// The fixture folder of `provider`, read; an error naming the folder to
/// add when there is none.
pub fn fixture(provider: &'static Provider) -> Result<Fixture, String> {
    let dir = providers_dir().join(provider.name);
    let manifest_path = dir.join("corpus.json");
    let text = std::fs::read_to_string(&manifest_path).map_err(|_| {
        format!(
            "the provider {:?} has no fixture folder: add __test__/fixtures/providers/{}/corpus.json \
             (__test__/fixtures/providers/README.md)",
            provider.name, provider.name
        )
    })?;
    let m: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let field = |key: &str| {
        m.get(key)
            .unwrap_or_else(|| panic!("{}: no {key:?}", manifest_path.display()))
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    let releases = field("releases")
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Release {
            profile: Profile::parse(r["profile"].as_str().unwrap()).unwrap(),
            dir: r["expected"].as_str().unwrap().to_owned(),
        })
        .collect();
    let framing = Framing {
        frame: field("frame").as_str().unwrap().to_owned(),
        body_end: field("bodyEnd").as_str().unwrap().to_owned(),
        retryable: strings(field("retryableCodes")),
    };
    let prefix = field("streams")["prefix"].as_str().unwrap();
    let mut streams = Vec::new();
    for folder in strings(&field("streams")["folders"]) {
        let folder = dir.join(folder);
        let mut files: Vec<PathBuf> = std::fs::read_dir(folder.join("streams"))
            .unwrap_or_else(|_| panic!("{}: no {}/streams", provider.name, folder.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for path in files {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name.starts_with(prefix) {
                streams.push(framing.stream(name, &folder, &path));
            }
        }
    }
    streams.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Fixture {
        provider,
        releases,
        settings: field("settings").clone(),
        flags: strings(field("flags")),
        recorded: strings(field("recorded")),
        min_streams: field("minStreams").as_u64().unwrap() as usize,
        paths: field("paths")
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, min)| (path_named(name), min.as_u64().unwrap()))
            .collect(),
        streams,
    })
}

/// The conversion path a folder's `paths` names (`path_counters::Path`, by
/// its Rust name).
fn path_named(name: &str) -> Path {
    [Path::Byte, Path::Template, Path::Fields]
        .into_iter()
        .find(|p| format!("{p:?}") == name)
        .unwrap_or_else(|| panic!("paths: no conversion path is named {name:?}"))
}

/// How a provider's objects become the body the oracle served.
struct Framing {
    /// One object's frame: `{type}` is its `type` (`message` when it has
    /// none, as the SDKs' decoders default), `{json}` its JSON text.
    frame: String,
    /// Written after the last frame of a body whose feed does not fail.
    body_end: String,
    /// The `__throw__` codes the host classifies as retryable.
    retryable: Vec<String>,
}

impl Framing {
    /// The stream in `path`. `{"__raw__": text}` is written as it is; a
    /// `{"__throw__": {code?}}` or `{"__cut__": true}` ends the body where
    /// the feed fails.
    fn stream(&self, name: String, folder: &std::path::Path, path: &std::path::Path) -> Stream {
        // A lone surrogate escape is read as its six characters, here and
        // in the expected lines alike (common::parse_output).
        let items = parse_output(&std::fs::read_to_string(path).unwrap());
        let mut body = Vec::new();
        let mut objects = Vec::new();
        let mut ending = Ending::End;
        let mut plain = true;
        for item in items.as_array().unwrap() {
            if let Some(throw) = item.get("__throw__") {
                let code = throw.get("code").and_then(Value::as_str).unwrap_or("");
                let retryable = self.retryable.iter().any(|c| c == code);
                ending = Ending::Failed { retryable };
                break;
            }
            if item.get("__cut__").is_some() {
                ending = Ending::Failed { retryable: false };
                break;
            }
            if let Some(raw) = item.get("__raw__") {
                body.extend_from_slice(raw.as_str().unwrap().as_bytes());
                plain = false;
                continue;
            }
            let ty = item
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("message");
            let frame = self
                .frame
                .replace("{type}", ty)
                .replace("{json}", &item.to_string());
            body.extend_from_slice(frame.as_bytes());
            objects.push(item.clone());
        }
        if ending == Ending::End {
            body.extend_from_slice(self.body_end.as_bytes());
        }
        Stream {
            name,
            folder: folder.to_owned(),
            objects,
            body,
            ending,
            plain,
        }
    }
}

/// Every row's fixture, in `PROVIDERS` order; panics naming the folder a
/// row lacks.
pub fn fixtures() -> Vec<Fixture> {
    toolcall_stream_core::convert::provider::PROVIDERS
        .iter()
        .map(|p| fixture(p).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// One input call of a feed.
pub enum Input<'a> {
    Bytes(&'a [u8]),
    Object(&'a str),
}

/// Feeds `inputs`, then the ending; the lines it gave in the oracle's form
/// (unmasked), up to and with the first error.
pub fn run(c: &mut dyn StreamConverter, inputs: &[Input<'_>], ending: Ending) -> Vec<Value> {
    let mut out = Vec::new();
    let mut result = Ok(());
    for input in inputs {
        result = match input {
            Input::Bytes(b) => c.push_bytes(b, &mut out),
            Input::Object(text) => c.push_object_text(text, &mut out),
        };
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = match ending {
            Ending::End => c.end(&mut out),
            Ending::Failed { retryable } => c.upstream_failed(retryable, &mut out),
        };
    }
    let mut lines: Vec<Value> = out.iter().map(response_line).collect();
    if let Err(e) = result {
        lines.push(json!({ "error": error_object(&e) }));
    }
    lines
}

/// The body in `pieces`.
pub fn run_bytes(c: &mut dyn StreamConverter, pieces: &[&[u8]], ending: Ending) -> Vec<Value> {
    let inputs: Vec<Input<'_>> = pieces.iter().map(|p| Input::Bytes(p)).collect();
    run(c, &inputs, ending)
}

/// Each object on its own.
pub fn run_objects(c: &mut dyn StreamConverter, objects: &[Value], ending: Ending) -> Vec<Value> {
    let texts: Vec<String> = objects.iter().map(Value::to_string).collect();
    let inputs: Vec<Input<'_>> = texts.iter().map(|t| Input::Object(t)).collect();
    run(c, &inputs, ending)
}

/// A response as the oracle writes its line.
fn response_line(r: &Response) -> Value {
    let mut item = String::new();
    r.write_item(&mut item);
    let item = parse_output(&item);
    let mut line = Map::new();
    line.insert("response".into(), item["r"].clone());
    if let Some(p) = item.get("p") {
        line.insert("toolCallPreparations".into(), p.clone());
    }
    if let Some(u) = item.get("u") {
        line.insert("usageProvenance".into(), provenance(u));
    }
    Value::Object(line)
}

/// The batch's usage provenance, `[reported]` or `[reported, creation |
/// null]`, as the oracle prints Qwen's `getGenAiUsageProvenance` object
/// (JSON: a key holding `undefined` is absent), decoded as
/// `lib/annotations.js` `provenanceOf` decodes it.
fn provenance(u: &Value) -> Value {
    let mut o = json!({ "cachedInputTokensReported": u[0] });
    if let Some(n) = u.get(1).filter(|n| !n.is_null()) {
        o["cacheCreationInputTokens"] = n.clone();
    }
    o
}

/// Qwen's error as the oracle serialises it (see the module's rule).
fn error_object(e: &Error) -> Value {
    if let Some(host) = &e.host_error {
        return json!({ "name": host.name, "message": host.message });
    }
    let mut o = json!({ "name": e.name, "message": e.message });
    if let Some(kind) = e.kind() {
        o["type"] = json!(kind);
    } else if e.code.as_str() == "STREAM_ERROR" {
        let fields: Value = e
            .provider_error
            .as_deref()
            .and_then(|f| serde_json::from_str(f).ok())
            .unwrap_or_default();
        for key in ["type", "code"] {
            if let Some(v) = fields.get(key) {
                o[key] = v.clone();
            }
        }
    } else {
        // No line of the reference's: it stays unequal to every one.
        o["code"] = json!(format!("ours: {}", e.code.as_str()));
    }
    o
}

/// The lines in the compared form: the oracle's tags (`event`, `chunk`)
/// dropped, the `recorded` out-of-band values beside each response (absent
/// preparations as none), clock and generated ids masked.
pub fn canonical(lines: &[Value], recorded: &[String]) -> Vec<Value> {
    let mut ids = HashMap::new();
    lines
        .iter()
        .map(|line| match line.get("error") {
            Some(e) => json!({ "error": e }),
            None => {
                let mut out = json!({ "response": line["response"] });
                for key in recorded {
                    let none = match key.as_str() {
                        "toolCallPreparations" => json!([]),
                        _ => Value::Null,
                    };
                    out[key] = line.get(key).cloned().unwrap_or(none);
                }
                mask(&out, &mut ids)
            }
        })
        .collect()
}

/// `got` (lines of [`run`]) equals the oracle's `want` under the rule.
pub fn assert_matches(got: &[Value], want: &[Value], recorded: &[String], how: &str) {
    let (got, want) = (canonical(got, recorded), canonical(want, recorded));
    if got != want {
        let first = got
            .iter()
            .zip(&want)
            .position(|(g, w)| g != w)
            .unwrap_or(got.len().min(want.len()));
        panic!(
            "{how}: {} lines, want {}; first difference at line {first}\n got: {}\nwant: {}",
            got.len(),
            want.len(),
            got.get(first).map_or("(none)".into(), Value::to_string),
            want.get(first).map_or("(none)".into(), Value::to_string),
        );
    }
}
