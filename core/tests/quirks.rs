//! Every provider quirk of `shared/spec/quirks.md` (Q1–Q21, A1–A15) as a
//! named test. The default expectation is the reference's own output: the
//! streams in `__test__/fixtures/quirks/streams` were run through the oracle
//! (`__test__/fixtures/quirks/generate.mjs`) into `expected/`. Where we
//! deliberately differ (README "Deliberate differences"), the test asserts
//! our behaviour and says why. Byte-level quirks (SSE framing, `[DONE]`,
//! in-band errors) have no oracle form: there the reference is the SDK's
//! documented behaviour, asserted directly.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{json, Value};
use toolcall_stream_core::acp::ToolCallIds;
use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::Profile;
use toolcall_stream_core::{Error, ErrorCode};

mod common;
use common::{error_line, mask, response_line, Line};

fn quirks_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../__test__/fixtures/quirks")
}

fn stream(name: &str) -> Vec<Value> {
    let path = quirks_dir().join("streams").join(format!("{name}.json"));
    let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn expected(name: &str) -> Vec<Value> {
    expected_in(name, "expected")
}

/// The expected lines of `name` in `dir` (`expected`: 0.21.2,
/// `expected-0.24.4`: 0.24.4).
fn expected_in(name: &str, dir: &str) -> Vec<Value> {
    let path = quirks_dir()
        .join(dir)
        .join(format!("{name}.expected.ndjson"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run_anthropic(events: &[Value]) -> Vec<Line<usize>> {
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut lines = Vec::new();
    for (i, ev) in events.iter().enumerate() {
        let mut out = Vec::new();
        let r = s.push_event_text(&ev.to_string(), &mut out);
        lines.extend(out.iter().map(|o| response_line(i, o)));
        if let Err(e) = r {
            lines.push(error_line(i, &e));
            break;
        }
    }
    lines
}

fn run_openai(chunks: &[Value]) -> Vec<Line<usize>> {
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let mut lines = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        match s.push_chunk_text(&c.to_string()) {
            Ok(r) => lines.push(response_line(i, &r)),
            Err(e) => {
                lines.push(error_line(i, &e));
                break;
            }
        }
    }
    lines
}

/// The reference's lines in our form (masked).
fn want_lines(name: &str) -> Vec<Line<usize>> {
    want_lines_in(name, "expected")
}

/// An `"end"` tag (yielded or thrown after the input ran out).
const END: usize = usize::MAX;

fn want_lines_in(name: &str, dir: &str) -> Vec<Line<usize>> {
    let mut ids = HashMap::new();
    expected_in(name, dir)
        .iter()
        .map(|w| {
            let tag = w
                .get("event")
                .or_else(|| w.get("chunk"))
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX) as usize;
            match w.get("error") {
                Some(e) if e["name"] == "TypeError" => Line::Error {
                    tag,
                    code: format!("TypeError: {}", e["message"].as_str().unwrap_or_default()),
                },
                Some(e) => Line::Error {
                    tag,
                    code: e
                        .get("type")
                        .or_else(|| e.get("code"))
                        .and_then(Value::as_str)
                        .unwrap_or_else(|| panic!("{name}: untyped reference error {e}"))
                        .to_owned(),
                },
                None => Line::Response {
                    tag,
                    response: mask(&w["response"], &mut ids),
                    preparations: w.get("toolCallPreparations").cloned().unwrap_or(json!([])),
                },
            }
        })
        .collect()
}

fn masked(lines: Vec<Line<usize>>) -> Vec<Line<usize>> {
    let mut ids = HashMap::new();
    lines
        .into_iter()
        .map(|l| match l {
            Line::Response {
                tag,
                response,
                preparations,
            } => Line::Response {
                tag,
                response: mask(&response, &mut ids),
                preparations,
            },
            e => e,
        })
        .collect()
}

/// Our output equals the reference's, line for line.
fn golden(name: &str) -> Vec<Line<usize>> {
    let items = stream(name);
    let got = if name.starts_with("anthropic-") {
        run_anthropic(&items)
    } else {
        run_openai(&items)
    };
    let got = masked(got);
    assert_eq!(got, want_lines(name), "{name}: differs from the reference");
    got
}

fn responses(lines: &[Line<usize>]) -> Vec<&Value> {
    lines
        .iter()
        .filter_map(|l| match l {
            Line::Response { response, .. } => Some(response),
            Line::Error { .. } => None,
        })
        .collect()
}

fn preparations(lines: &[Line<usize>]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter_map(|l| match l {
            Line::Response { preparations, .. } => preparations.as_array().cloned(),
            Line::Error { .. } => None,
        })
        .flatten()
        .map(|p| {
            (
                p["callId"].as_str().unwrap().to_owned(),
                p["toolName"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn function_calls(lines: &[Line<usize>]) -> Vec<Value> {
    responses(lines)
        .into_iter()
        .flat_map(|r| r["candidates"][0]["content"]["parts"].as_array().cloned())
        .flatten()
        .filter_map(|p| p.get("functionCall").cloned())
        .collect()
}

fn finish_reasons(lines: &[Line<usize>]) -> Vec<String> {
    responses(lines)
        .into_iter()
        .filter_map(|r| {
            r["candidates"][0]["finishReason"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

fn last_error(lines: &[Line<usize>]) -> Option<&str> {
    match lines.last() {
        Some(Line::Error { code, .. }) => Some(code),
        _ => None,
    }
}

fn prep(id: &str, tool: &str) -> (String, String) {
    (id.to_owned(), tool.to_owned())
}

// ---------- raw SSE bodies ----------

struct Bytes {
    responses: Vec<Response>,
    error: Option<Error>,
}

fn anthropic_bytes(body: &str) -> Bytes {
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    let error = s
        .push_bytes(body.as_bytes(), &mut out)
        .and_then(|()| s.end(&mut out))
        .err();
    Bytes {
        responses: out,
        error,
    }
}

fn openai_bytes(body: &str) -> Bytes {
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let mut out = Vec::new();
    let error = s
        .push_bytes(body.as_bytes(), &mut out)
        .and_then(|()| s.end(&mut out))
        .err();
    Bytes {
        responses: out,
        error,
    }
}

/// Responses as text without the clock, for comparing two runs.
fn texts(rs: &[Response]) -> Vec<String> {
    rs.iter()
        .map(|r| {
            let mut r = r.clone();
            r.create_time = "".into();
            let mut s = String::new();
            r.write_item(&mut s);
            s
        })
        .collect()
}

fn anthropic_sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

fn openai_sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
}

fn events_texts(events: &[Value]) -> Vec<String> {
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    for e in events {
        s.push_event_text(&e.to_string(), &mut out).unwrap();
    }
    texts(&out)
}

fn chunks_texts(chunks: &[Value]) -> Vec<String> {
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let out: Vec<Response> = chunks
        .iter()
        .map(|c| s.push_chunk_text(&c.to_string()).unwrap())
        .collect();
    texts(&out)
}

// ======================= OpenAI-compatible (Q1–Q21) =======================

#[test]
fn q01_id_after_name_and_args_prepares_once_both_are_known() {
    let lines = golden("openai-q01-id-after-name-and-args");
    assert_eq!(preparations(&lines), [prep("call_late", "read_file")]);
    // The card waits for the id: nothing is prepared on the nameless chunk.
    assert!(matches!(&lines[0], Line::Response { preparations, .. } if preparations == &json!([])));
    assert_eq!(function_calls(&lines)[0]["args"], json!({"path": "a.txt"}));
    let lines = golden("openai-q01-name-after-id-and-args");
    assert_eq!(preparations(&lines), [prep("call_1", "read_file")]);
}

#[test]
fn q01_a_call_that_never_gets_a_name_is_malformed_and_its_text_held() {
    let lines = golden("openai-q01-nameless-call-at-finish");
    assert_eq!(last_error(&lines), Some("MALFORMED_TOOL_CALL"));
    assert!(preparations(&lines).is_empty());
    assert!(!serde_json::to_string(&responses(&lines))
        .unwrap()
        .contains("held"));
}

#[test]
fn q02_the_same_id_on_every_chunk_is_one_call() {
    let lines = golden("openai-q02-same-id-every-chunk");
    assert_eq!(preparations(&lines).len(), 1);
    assert_eq!(function_calls(&lines).len(), 1);
}

#[test]
fn q03_an_id_that_changes_on_every_chunk_follows_the_reference() {
    // The reference re-identifies the incomplete slot on every new id
    // (docs/behaviour.md §3.3.2: the call stays on its slot, the identity is
    // overwritten): one preparation per id, one call under the last id. The
    // ACP layer discards the first two cards (unresolved at the end).
    let lines = golden("openai-q03-id-changes-every-chunk");
    assert_eq!(
        preparations(&lines),
        [
            prep("oci_1", "read_file"),
            prep("oci_2", "read_file"),
            prep("oci_3", "read_file")
        ]
    );
    let calls = function_calls(&lines);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["id"], "oci_3");
    assert_eq!(calls[0]["args"], json!({"path": "a"}));
}

#[test]
fn q04_empty_string_ids_count_as_absent() {
    let lines = golden("openai-q04-empty-id-on-continuations");
    assert_eq!(preparations(&lines), [prep("call_1", "read_file")]);
    assert_eq!(function_calls(&lines)[0]["id"], "call_1");
    // Never an id: no card, and the final calls get generated ids.
    let lines = golden("openai-q04-empty-id-always");
    assert!(preparations(&lines).is_empty());
    let calls = function_calls(&lines);
    assert_eq!(calls.len(), 2);
    assert_ne!(calls[0]["id"], calls[1]["id"]);
}

#[test]
fn q05_a_missing_index_defaults_to_zero() {
    golden("openai-q05-index-missing-single-call");
    let lines = golden("openai-q05-index-missing-parallel-ids");
    assert_eq!(
        preparations(&lines),
        [prep("call_1", "read_file"), prep("call_2", "shell")]
    );
}

#[test]
fn q06_index_always_zero_for_parallel_calls() {
    let lines = golden("openai-q06-index-always-0-new-ids");
    assert_eq!(
        preparations(&lines),
        [prep("call_1", "read_file"), prep("call_2", "read_file")]
    );
    assert_eq!(function_calls(&lines).len(), 2);
    golden("openai-q06-index-always-0-no-ids");
}

#[test]
fn q07_sparse_and_non_zero_indexes_are_hints() {
    let lines = golden("openai-q07-sparse-index-start");
    assert_eq!(function_calls(&lines).len(), 2);
}

#[test]
fn q08_names_split_repeated_empty_or_conflicting() {
    golden("openai-q08-name-split-across-chunks");
    let lines = golden("openai-q08-name-empty-or-null-on-continuations");
    assert_eq!(function_calls(&lines)[0]["name"], "read_file");
    golden("openai-q08-name-conflict-after-card");
}

#[test]
fn q09_arguments_whole_in_one_chunk() {
    let lines = golden("openai-q09-arguments-whole-in-first-chunk");
    // The card still comes first; the call only at finish.
    assert_eq!(preparations(&lines).len(), 1);
    assert!(function_calls(&lines[..1]).is_empty());
    golden("openai-q09-whole-call-with-finish");
}

/// `arguments` sent as an object: the reference's parser iterates it
/// (`StreamingToolCallParser.addChunk`), `TypeError: chunk is not
/// iterable`, which the error carries for a host to throw.
#[test]
fn q10_arguments_sent_as_an_object_fail_as_the_reference_fails() {
    let lines = golden("openai-q10-arguments-as-object");
    assert_eq!(last_error(&lines), Some("TypeError: chunk is not iterable"));
}

#[test]
fn q11_bedrock_empty_object_then_arguments_follows_the_reference() {
    let lines = golden("openai-q11-bedrock-empty-object-then-args");
    assert_eq!(last_error(&lines), Some("MALFORMED_TOOL_CALL"));
}

#[test]
fn q12_interleaved_parallel_calls_keep_separate_buffers() {
    let lines = golden("openai-q12-parallel-interleaved");
    let calls = function_calls(&lines);
    assert_eq!(calls[0]["args"], json!({"path": "a"}));
    assert_eq!(calls[1]["args"], json!({"cmd": "ls"}));
}

#[test]
fn q13_finish_reason_variants() {
    for name in [
        "openai-q13-finish-stop-with-tools",
        "openai-q13-finish-function-call-legacy",
    ] {
        let lines = golden(name);
        assert_eq!(function_calls(&lines).len(), 1, "{name}");
        assert_eq!(finish_reasons(&lines), ["STOP"], "{name}");
    }
    // `""` is no finish: the call is emitted only at the later real finish.
    let lines = golden("openai-q13-finish-empty-string");
    assert_eq!(finish_reasons(&lines), ["STOP"]);
    let lines = golden("openai-q13-finish-error-label");
    assert_eq!(finish_reasons(&lines), ["FINISH_REASON_UNSPECIFIED"]);
    // Never a finish: never a functionCall.
    let lines = golden("openai-q13-finish-never");
    assert!(function_calls(&lines).is_empty());
    golden("openai-q13-finish-same-chunk-as-last-args");
    for name in [
        "openai-q13-finish-mid-string-truncated",
        "openai-q13-finish-mid-object-truncated",
    ] {
        let lines = golden(name);
        assert_eq!(finish_reasons(&lines), ["MAX_TOKENS"], "{name}");
    }
    golden("openai-q13-intermittent-finish-then-more");
}

#[test]
fn q14_usage_only_chunks_and_usage_on_every_chunk() {
    let lines = golden("openai-q14-usage-only-final-chunk");
    assert_eq!(responses(&lines)[2]["candidates"], json!([]));
    golden("openai-q14-usage-on-every-chunk");
}

#[test]
fn q15_azure_content_filter_chunks_are_skipped() {
    golden("openai-q15-azure-content-filter-chunks");
}

#[test]
fn q16_reasoning_field_names() {
    let lines = golden("openai-q16-reasoning-field-names");
    let thoughts: Vec<_> = responses(&lines)
        .into_iter()
        .flat_map(|r| r["candidates"][0]["content"]["parts"].as_array().cloned())
        .flatten()
        .filter(|p| p["thought"] == true)
        .map(|p| p["text"].clone())
        .collect();
    assert_eq!(
        thoughts,
        [json!("think a"), json!("think b"), json!("think c")]
    );
}

#[test]
fn q17_role_only_empty_role_and_missing_object() {
    golden("openai-q17-role-only-and-empty-role");
}

#[test]
fn q18_error_object_after_http_200_as_a_chunk_follows_the_reference() {
    // As a chunk the reference converter sees no choices; the SDK would
    // have thrown on the byte stream (see the bytes test below).
    golden("openai-q18-error-object-mid-stream");
}

/// Deliberate (documented): on the byte stream an in-band `{"error": …}`
/// payload is what the OpenAI SDK throws as `APIError`; we end with
/// `STREAM_ERROR`, keeping what was converted before it.
#[test]
fn q18_error_object_on_the_byte_stream_is_a_stream_error() {
    let chunks = stream("openai-q18-error-object-mid-stream");
    let got = openai_bytes(&openai_sse(&chunks));
    let e = got.error.expect("a stream error");
    assert_eq!(e.code, ErrorCode::StreamError);
    assert!(e.fatal);
    assert_eq!(e.message, "Provider overloaded");
    let provider: Value = serde_json::from_str(e.provider_error.as_deref().unwrap()).unwrap();
    assert_eq!(provider["code"], 502);
    assert_eq!(texts(&got.responses), chunks_texts(&chunks[..1]));
    assert_eq!(got.responses[0].preparations.len(), 1);
}

/// `error_finish` is the pipeline's check, not the converter's: bytes
/// convert it exactly as chunks do (the SDK yields it as a chunk).
#[test]
fn q18_error_finish_bytes_convert_as_chunks() {
    let chunks = stream("openai-q18-error-finish");
    let got = openai_bytes(&openai_sse(&chunks));
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(texts(&got.responses), chunks_texts(&chunks));
    golden("openai-q18-error-finish");
}

/// With the pipeline's check on, every form throws Qwen's
/// `StreamContentError` before the chunk is converted, keeping what came
/// before it.
#[test]
fn q18_error_finish_with_the_pipeline_check_is_a_stream_content_error() {
    let chunks = stream("openai-q18-error-finish");
    let pipeline = || {
        OpenAIStream::new(OpenAIOptions {
            throw_on_error_finish: true,
            ..OpenAIOptions::default()
        })
    };
    let mut s = pipeline();
    let mut out = Vec::new();
    let e = s
        .push_bytes(openai_sse(&chunks).as_bytes(), &mut out)
        .expect_err("a stream error");
    assert_eq!(
        (e.code, e.name, e.fatal),
        (ErrorCode::StreamError, "StreamContentError", true)
    );
    assert_eq!(e.message, "upstream failed");
    assert_eq!(
        texts(&out),
        chunks_texts(&chunks[..1]),
        "the chunk before it is kept"
    );
    let mut s = pipeline();
    s.push_chunk_text(&chunks[0].to_string()).unwrap();
    let e2 = s
        .push_chunk_text(&chunks[1].to_string())
        .expect_err("a stream error");
    assert_eq!((e2.code, e2.name, e2.message), (e.code, e.name, e.message));
    assert!(s.is_finished());
}

#[test]
fn q19_sse_comments_eventless_data_and_line_endings() {
    let chunks = stream("openai-q14-usage-only-final-chunk");
    let want = chunks_texts(&chunks);
    let plain = openai_sse(&chunks) + "data: [DONE]\n\n";
    let commented = format!(
        ": OPENROUTER PROCESSING\n\n{}",
        plain.replace("\n\n", "\n: keep-alive\n\n")
    );
    for body in [
        plain.clone(),
        commented,
        plain.replace('\n', "\r\n"),
        plain.replace('\n', "\r"),
        plain.replace("data: ", "data:"),
        format!("event: message\nid: 1\nretry: 10\n{plain}"),
    ] {
        let got = openai_bytes(&body);
        assert!(got.error.is_none(), "{body:?}: {:?}", got.error);
        assert_eq!(texts(&got.responses), want, "{body:?}");
    }
}

#[test]
fn q19_done_without_a_finish_reason_is_not_success() {
    let lines = golden("openai-q19-done-without-finish");
    assert!(finish_reasons(&lines).is_empty());
    let chunks = stream("openai-q19-done-without-finish");
    let got = openai_bytes(&(openai_sse(&chunks) + "data: [DONE]\n\n"));
    assert!(got.error.is_none());
    assert_eq!(got.responses.len(), 1);
    assert_eq!(
        got.responses[0].finish_reason(),
        None,
        "[DONE] adds no finish"
    );
}

#[test]
fn q19_data_after_done_is_ignored() {
    let chunks = stream("openai-q14-usage-only-final-chunk");
    let body = format!(
        "{}data: [DONE]\n\ndata: {{\"error\":{{\"message\":\"late\"}}}}\n\ndata: not json\n\n",
        openai_sse(&chunks[..1])
    );
    let got = openai_bytes(&body);
    assert!(got.error.is_none());
    assert_eq!(texts(&got.responses), chunks_texts(&chunks[..1]));
}

#[test]
fn q20_missing_or_unusual_tool_call_type() {
    let lines = golden("openai-q20-missing-type-function");
    assert_eq!(function_calls(&lines).len(), 1);
    // The reference does not look at `type` at all (a `custom` call runs
    // like a function call); we keep that.
    golden("openai-q20-custom-type");
}

#[test]
fn q21_replay_of_a_completed_call_is_dropped() {
    let lines = golden("openai-q21-replay-of-completed-call");
    assert_eq!(preparations(&lines).len(), 1);
    assert_eq!(function_calls(&lines).len(), 1);
}

#[test]
fn q21_id_reuse_across_turns_is_normalised_before_the_card() {
    let mut ids = ToolCallIds::new(["run_shell_command_0"]);
    let (preps, calls) = ids.apply(
        &["run_shell_command_0".into()],
        &[Some("run_shell_command_0".into())],
    );
    assert_eq!(preps, ["run_shell_command_0__qwen_dup_2"]);
    assert_eq!(calls, [Some("run_shell_command_0__qwen_dup_2".into())]);
}

/// A name that is not a string fails as the reference's parser fails on it
/// (`name?.trim()`: `TypeError: name?.trim is not a function`); a numeric
/// id is taken by its text, as the reference's Map keys it.
#[test]
fn qx_a_non_string_name_fails_as_the_reference_fails() {
    let name = "openai-qx-non-string-ids-and-names";
    assert_eq!(expected(name)[1]["error"]["name"], "TypeError");
    let lines = masked(run_openai(&stream(name)));
    assert_eq!(preparations(&lines), [prep("42", "read_file")]);
    assert_eq!(
        last_error(&lines),
        Some("TypeError: name?.trim is not a function")
    );
}

#[test]
fn qx_unknown_chunk_fields_and_object_types_are_ignored() {
    golden("openai-qx-unknown-chunk-fields-and-types");
}

// ========================= Anthropic (A1–A15) ============================

#[test]
fn a01_thinking_redacted_thinking_and_signatures() {
    let lines = golden("anthropic-a01-thinking-redacted-signature");
    let sigs: Vec<_> = responses(&lines)
        .into_iter()
        .flat_map(|r| r["candidates"][0]["content"]["parts"].as_array().cloned())
        .flatten()
        .filter_map(|p| p.get("thoughtSignature").cloned())
        .collect();
    assert_eq!(sigs, [json!("sig-part-1"), json!("sig-part-2")]);
}

#[test]
fn a02_server_tools_get_no_card_and_no_call() {
    let lines = golden("anthropic-a02-server-tool-use");
    assert!(preparations(&lines).is_empty());
    assert!(function_calls(&lines).is_empty());
}

#[test]
fn a03_an_empty_first_input_json_delta_is_ignored() {
    let lines = golden("anthropic-a03-empty-input-json-delta-first");
    assert_eq!(function_calls(&lines)[0]["args"], json!({"path": "a"}));
}

#[test]
fn a04_tool_use_start_input() {
    let lines = golden("anthropic-a04-no-arg-tool-empty-delta");
    assert_eq!(function_calls(&lines)[0]["args"], json!({}));
    let lines = golden("anthropic-a04-start-with-nonempty-input");
    assert_eq!(function_calls(&lines)[0]["args"], json!({"path": "a"}));
    golden("anthropic-a04-start-input-and-deltas");
}

#[test]
fn a05_ping_events_anywhere_are_ignored() {
    golden("anthropic-a05-ping-anywhere");
}

/// An `error` event is what the Anthropic SDK throws as `APIError` before
/// `processStream` sees it (docs/behaviour.md §2.1), so the reference's `processStream`
/// alone ignores it (the oracle's expected output). We end the stream with
/// `STREAM_ERROR` in every input form (quirks.md A6: terminate the attempt),
/// keeping what was converted before it.
#[test]
fn a06_error_event_mid_tool_ends_the_stream() {
    let name = "anthropic-a06-error-event-mid-tool";
    let events = stream(name);
    let lines = masked(run_anthropic(&events));
    assert_eq!(last_error(&lines), Some("STREAM_ERROR"));
    assert_eq!(lines.len(), 2, "the preparation, then the error");
    assert_eq!(preparations(&lines), [prep("toolu_1", "read_file")]);
    let reference = want_lines(name);
    assert_eq!(
        lines[0], reference[0],
        "what came before matches the reference"
    );

    let got = anthropic_bytes(&anthropic_sse(&events));
    let e = got.error.expect("a stream error");
    assert_eq!(e.code, ErrorCode::StreamError);
    assert!(e.fatal);
    assert_eq!(e.message, "Overloaded");
    assert_eq!(texts(&got.responses), events_texts(&events[..3]));
}

/// Every Anthropic quirk under `qwen-0.24` equals Qwen Code 0.24.4's
/// output, `end()` included, but A6: an `error` event is a `STREAM_ERROR`
/// here in both profiles (see above), where 0.24.4's `processStream` also
/// ignores the event object.
#[test]
fn anthropic_quirks_under_qwen_0_24_match_0_24_4() {
    let mut names: Vec<String> = std::fs::read_dir(quirks_dir().join("expected-0.24.4"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".expected.ndjson").map(str::to_owned))
        .filter(|n| n != "anthropic-a06-error-event-mid-tool")
        .collect();
    names.sort();
    assert_eq!(names.len(), 20);
    let mut a06 = AnthropicStream::new(AnthropicOptions {
        profile: Profile::Qwen024,
        ..AnthropicOptions::default()
    });
    let a06_error = stream("anthropic-a06-error-event-mid-tool")
        .iter()
        .find_map(|ev| a06.push_event_text(&ev.to_string(), &mut Vec::new()).err());
    assert_eq!(
        a06_error.map(|e| e.code),
        Some(ErrorCode::StreamError),
        "A6 under qwen-0.24"
    );
    for name in names {
        let mut s = AnthropicStream::new(AnthropicOptions {
            profile: Profile::Qwen024,
            ..AnthropicOptions::default()
        });
        let mut lines = Vec::new();
        let mut failed = false;
        for (i, ev) in stream(&name).iter().enumerate() {
            let mut out = Vec::new();
            let r = s.push_event_text(&ev.to_string(), &mut out);
            lines.extend(out.iter().map(|o| response_line(i, o)));
            if let Err(e) = r {
                lines.push(error_line(i, &e));
                failed = true;
                break;
            }
        }
        if !failed {
            let mut out = Vec::new();
            let r = s.end(&mut out);
            lines.extend(out.iter().map(|o| response_line(END, o)));
            if let Err(e) = r {
                lines.push(error_line(END, &e));
            }
        }
        assert_eq!(
            masked(lines),
            want_lines_in(&name, "expected-0.24.4"),
            "{name}: differs from 0.24.4"
        );
    }
}

#[test]
fn a07_fine_grained_invalid_json_is_repaired_or_emptied_like_the_reference() {
    golden("anthropic-a07-fine-grained-invalid-json");
    let lines = golden("anthropic-a07-max-tokens-mid-parameter");
    assert_eq!(finish_reasons(&lines)[0], "MAX_TOKENS");
}

#[test]
fn a08_the_card_comes_at_content_block_start() {
    let lines = golden("anthropic-a08-card-at-block-start");
    match &lines[0] {
        Line::Response {
            tag, preparations, ..
        } => {
            assert_eq!(*tag, 1, "prepared by the content_block_start event");
            assert_eq!(preparations[0]["callId"], "toolu_1");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a09_duplicate_and_spliced_message_start() {
    golden("anthropic-a09-duplicate-message-start");
    let lines = golden("anthropic-a09-spliced-message-start");
    assert_eq!(
        preparations(&lines),
        [prep("toolu_1", "read_file"), prep("toolu_2", "read_file")]
    );
}

#[test]
fn a10_block_index_counts_text_and_thinking_blocks() {
    let lines = golden("anthropic-a10-block-index-counts-text");
    let ids: Vec<_> = function_calls(&lines)
        .iter()
        .map(|c| c["id"].clone())
        .collect();
    assert_eq!(ids, [json!("toolu_3"), json!("toolu_2")]);
}

#[test]
fn a11_tool_use_with_an_empty_name_gets_no_card() {
    let lines = golden("anthropic-a11-empty-name-raw-arguments");
    assert!(preparations(&lines).is_empty());
}

#[test]
fn a12_stream_dropped_after_block_stop() {
    let lines = golden("anthropic-a12-drop-after-block-stop");
    assert_eq!(function_calls(&lines).len(), 1, "the finished block's call");
    assert_eq!(
        preparations(&lines).len(),
        2,
        "the unfinished block had a card"
    );
}

#[test]
fn a13_stop_reasons() {
    let lines = golden("anthropic-a13-stop-reasons");
    assert_eq!(
        finish_reasons(&lines),
        [
            "FINISH_REASON_UNSPECIFIED",
            "FINISH_REASON_UNSPECIFIED",
            "FINISH_REASON_UNSPECIFIED",
            "FINISH_REASON_UNSPECIFIED",
            "STOP",
            "STOP"
        ]
    );
    let lines = golden("anthropic-a13-max-tokens-with-open-tool");
    assert!(function_calls(&lines).is_empty());
}

#[test]
fn a14_message_delta_usage_is_cumulative() {
    let lines = golden("anthropic-a14-cumulative-usage");
    let last = responses(&lines).last().copied().unwrap().clone();
    assert_eq!(last["usageMetadata"]["candidatesTokenCount"], json!(20.0));
}

#[test]
fn a15_unknown_event_delta_and_block_types_are_ignored() {
    golden("anthropic-a15-unknown-event-and-delta-types");
}

#[test]
fn ax_non_string_tool_use_id_and_name_pass_through_like_the_reference() {
    golden("anthropic-ax-non-string-id-and-name");
}

/// Raw bytes are framed as the Anthropic SDK that Qwen Code bundles
/// (0.36.3, `Stream.fromSSEResponse`) frames them: events are taken by
/// their `event:` name; a data-only event, an unknown name (with any
/// payload, even one that is not JSON) and an `event:` name with an extra
/// space yield nothing; a BOM is never skipped (it makes the first field
/// unknown); any line ending, comments, and `field:value` without the
/// space work.
#[test]
fn anthropic_sse_events_are_taken_by_their_event_name_as_the_sdk_takes_them() {
    let events = stream("anthropic-a10-block-index-counts-text");
    let want = events_texts(&events);
    let sse = anthropic_sse(&events);
    for body in [
        sse.replace('\n', "\r\n"),
        sse.replace('\n', "\r"),
        format!(": comment\n\n{}", sse.replace("\n\n", "\n: hb\n\n")),
        sse.replace("event: ", "event:").replace("data: ", "data:"),
        sse.replacen(
            "\n\n",
            "\n\nevent: foo\ndata: {nope\n\ndata: {\"type\":\"message_stop\"}\n\n",
            2,
        ),
    ] {
        let got = anthropic_bytes(&body);
        assert!(got.error.is_none(), "{:?}", got.error);
        assert_eq!(texts(&got.responses), want);
    }
    let data_only: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    let got = anthropic_bytes(&data_only);
    assert!(got.error.is_none() && got.responses.is_empty());
    let spaced = anthropic_bytes(&sse.replace("event: ", "event:  "));
    assert!(spaced.error.is_none() && spaced.responses.is_empty());
    // A BOM hides message_start: no responseId, no model.
    let bom = anthropic_bytes(&format!("\u{FEFF}{sse}"));
    assert!(bom.error.is_none());
    assert_eq!(texts(&bom.responses), events_texts(&events[1..]));
}

#[test]
fn anthropic_ping_sse_events_are_skipped_even_with_odd_payloads() {
    let events = stream("anthropic-a03-empty-input-json-delta-first");
    let sse = anthropic_sse(&events);
    let body = sse.replacen("\n\n", "\n\nevent: ping\ndata: not json\n\n", 3);
    let got = anthropic_bytes(&body);
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(texts(&got.responses), events_texts(&events));
}

#[test]
fn invalid_json_in_a_data_line_is_a_typed_error_and_the_stream_goes_on() {
    let events = stream("anthropic-a03-empty-input-json-delta-first");
    let sse = anthropic_sse(&events);
    let (head, tail) = sse.split_at(sse.find("event: content_block_start").unwrap());
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    s.push_bytes(head.as_bytes(), &mut out).unwrap();
    let e = s
        .push_bytes(
            b"event: content_block_delta\ndata: {\"type\":\n\n",
            &mut out,
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert!(!e.fatal && !s.is_finished());
    s.push_bytes(tail.as_bytes(), &mut out).unwrap();
    s.end(&mut out).unwrap();
    assert_eq!(texts(&out), events_texts(&events));
}

/// Invalid UTF-8 is replaced per line, as the OpenAI SDK's `TextDecoder`
/// replaces it (maximal subparts, U+FFFD), and the stream goes on.
#[test]
fn invalid_utf8_becomes_replacement_characters_as_the_sdk_decodes_it() {
    let chunks = stream("openai-q14-usage-only-final-chunk");
    let first = format!("data: {}\n\n", chunks[0]);
    let mut body = first.clone().into_bytes();
    body.extend_from_slice(
        b"data: {\"choices\":[{\"delta\":{\"content\":\"a\xC3\x28\xFF\"}}]}\n\n",
    );
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let mut out = Vec::new();
    s.push_bytes(&body, &mut out).unwrap();
    s.end(&mut out).unwrap();
    assert_eq!(texts(&out[..1]), chunks_texts(&chunks[..1]));
    let mut text = String::new();
    out[1].write_item(&mut text);
    assert!(text.contains("\"text\":\"a\u{FFFD}(\u{FFFD}\""), "{text}");
}

#[test]
fn events_of_a_known_type_without_their_body_are_invalid_but_not_fatal() {
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    for ev in [
        r#"{"type":"message_start"}"#,
        r#"{"type":"content_block_start","index":0}"#,
        r#"{"type":"content_block_delta","index":0}"#,
        r#"{"type":"message_delta","delta":null}"#,
    ] {
        let e = s.push_event_text(ev, &mut out).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidEvent, "{ev}");
        assert!(!e.fatal);
    }
    // `processStream` reads `event.type`: a TypeError on null only.
    let e = s.push_event_text("null", &mut out).unwrap_err();
    assert_eq!((e.code, e.fatal), (ErrorCode::InvalidEvent, false));
    for ev in [r#"[1,2]"#, r#""text""#, r#"{"type":5}"#, r#"{}"#] {
        s.push_event_text(ev, &mut out).unwrap();
    }
    assert!(out.is_empty());
    assert!(!s.is_finished());
}

/// Text and thinking deltas spelled exactly as the API sends them take a
/// DOM-free path on bytes (`AnthropicStream::text_delta`); near misses take
/// the general one. Both give what the same events give as objects: escapes,
/// lone surrogates (kept), empty text (no chunk), other key orders and
/// extra fields, any index.
#[test]
fn raw_text_deltas_convert_as_their_events_do() {
    let start = r#"{"type":"message_start","message":{"id":"msg_t","model":"m","usage":{"input_tokens":3,"output_tokens":1}}}"#;
    let deltas = [
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b\\c\nd\u00e9\ud83d\ude00"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lone \ud800 x \udc00"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
        r#"{"type":"content_block_delta","index":7,"delta":{"type":"thinking_delta","thinking":"hmm \t"}}"#,
        r#"{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"no such block"}}"#,
        r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"no index"},"index":0}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"text":"keys swapped","type":"text_delta"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"extra","x":1}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"spaced"} }"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","text":"wrong field"}}"#,
    ];
    let mut events = vec![start.to_owned()];
    events.extend(deltas.iter().map(|d| d.to_string()));
    let body: String = events
        .iter()
        .map(|e| format!("event: content_block_delta\ndata: {e}\n\n"))
        .collect();
    let bytes = anthropic_bytes(&body);
    assert!(bytes.error.is_none(), "{:?}", bytes.error);
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    for e in &events {
        s.push_event_text(e, &mut out).unwrap();
    }
    let got = texts(&bytes.responses);
    assert_eq!(got, texts(&out));
    // 9 chunks with text: the 3 non-empty text deltas at index 0, the
    // thinking delta, "no such block", "no index", "keys swapped", "extra",
    // "spaced" (the wrong-field thinking delta has no thinking).
    assert_eq!(got.len(), 9, "{got:#?}");
    // Lone surrogates stay the lone units (their escapes), as in JS.
    assert!(got[2].contains(r#"lone \ud800 x \udc00"#), "{}", got[2]);
    // Cut anywhere: the same.
    for cut in 1..body.len() {
        if !body.is_char_boundary(cut) {
            continue;
        }
        let mut s = AnthropicStream::new(AnthropicOptions::default());
        let mut out = Vec::new();
        s.push_bytes(&body.as_bytes()[..cut], &mut out).unwrap();
        s.push_bytes(&body.as_bytes()[cut..], &mut out).unwrap();
        s.end(&mut out).unwrap();
        assert_eq!(texts(&out), got, "cut at {cut}");
    }
}

/// Under `qwen-0.24` an in-band `error` event is the SDK's error, the
/// source's failure in 0.24.4's `processStream`: the calls held for the stop
/// reason stay until the host says how it classifies that error
/// (`upstream_failed`); a retryable one yields them, once. Under `qwen-0.21`
/// the call was emitted at its `content_block_stop`.
#[test]
fn an_in_band_error_event_leaves_held_calls_to_the_hosts_classification() {
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_e", "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"path\":\"a\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    let error = r#"{"type":"error","error":{"type":"api_error","message":"Internal"},"request_id":"req_1"}"#;
    let body = format!("{}event: error\ndata: {error}\n\n", anthropic_sse(&events));
    for (profile, retryable, calls) in [
        (Profile::Qwen024, true, 1),
        (Profile::Qwen024, false, 0),
        (Profile::Qwen021, true, 0),
    ] {
        for as_bytes in [true, false] {
            let mut s = AnthropicStream::new(AnthropicOptions {
                profile,
                ..AnthropicOptions::default()
            });
            let mut out = Vec::new();
            let e = if as_bytes {
                s.push_bytes(body.as_bytes(), &mut out).unwrap_err()
            } else {
                events
                    .iter()
                    .try_for_each(|ev| s.push_event_text(&ev.to_string(), &mut out))
                    .unwrap();
                s.push_event_text(error, &mut out).unwrap_err()
            };
            assert_eq!((e.code, e.fatal), (ErrorCode::StreamError, true));
            assert_eq!(
                e.provider_event.as_deref(),
                Some(error),
                "the whole payload"
            );
            let before = out.len();
            s.upstream_failed(retryable, &mut out).unwrap();
            let held = out[before..]
                .iter()
                .filter(|r| r.candidate.as_ref().is_some_and(|c| !c.parts.is_empty()))
                .count();
            assert_eq!(
                held, calls,
                "{profile:?} retryable={retryable} bytes={as_bytes}"
            );
            let again = out.len();
            s.upstream_failed(true, &mut out).unwrap();
            assert_eq!(out.len(), again, "only once");
        }
    }
}
