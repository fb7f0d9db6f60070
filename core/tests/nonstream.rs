//! Non-streaming bodies against the oracle: every `anthropic` / `openai`
//! case of `__test__/fixtures/bodies` (written by its `generate.mjs`, which
//! runs the published builds' `convertAnthropicResponseToGemini` /
//! `convertOpenAIResponseToGemini`, `…ToLlm` in 0.24.4) under the matching
//! profile, and the bodies that the `fallback` cases' empty-stream fallback
//! fetched. Compared as `JSON.stringify` shows them, key order included;
//! the clock is the oracle's frozen one.
//!
//! The core's own JSON reader is used throughout: the fixtures hold a lone
//! surrogate escape, which serde_json rejects.

use std::path::PathBuf;

use toolcall_stream_core::json::{self, Value};
use toolcall_stream_core::nonstream::{
    anthropic_response_at, body_text, openai_response_at, BodyOptions,
};
use toolcall_stream_core::openai::ResponseParsing;
use toolcall_stream_core::Profile;

const FROZEN_NOW: u64 = 1_700_000_000_000;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../__test__/fixtures/bodies")
}

fn normalized(text: &str) -> String {
    let v = json::parse(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let mut out = String::new();
    json::stringify(&v, &mut out);
    out
}

fn stringified(v: &Value<'_>) -> String {
    let mut out = String::new();
    json::stringify(v, &mut out);
    out
}

fn check_release(expected: &str, profile: Profile) -> usize {
    let cases_text = std::fs::read_to_string(dir().join("cases.json")).unwrap();
    let cases = json::parse(&cases_text).unwrap();
    let expected_text = std::fs::read_to_string(dir().join(expected).join("cases.ndjson")).unwrap();
    let mut checked = 0;
    for line in expected_text.lines().filter(|l| !l.is_empty()) {
        let line = json::parse(line).unwrap();
        let name = line.at("name").as_str().unwrap().into_owned();
        let case = cases
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no case"));
        let kind = case.at("kind").as_str().unwrap();
        let body = stringified(case.at("body"));
        let rp = line.at("responseParsing");
        let options = BodyOptions {
            profile,
            parsing: ResponseParsing {
                content_only_tag_leaks: rp.at("contentOnlyThinkingTagLeaks").truthy(),
                tagged_thinking: rp.at("taggedThinkingTags").truthy(),
                tagged_thinking_after_reasoning: rp.at("taggedThinkingTagsAfterReasoning").truthy(),
            },
            ..BodyOptions::default()
        };
        let got = match &*kind {
            "anthropic" => anthropic_response_at(&body, &options, FROZEN_NOW),
            "openai" => openai_response_at(&body, &options, FROZEN_NOW),
            // The fallback's own response is the last one yielded, when the
            // non-streaming request was made.
            "fallback" if line.at("fallbackRequests").as_f64() == Some(1.0) => {
                anthropic_response_at(&body, &options, FROZEN_NOW)
            }
            _ => continue,
        };
        let Value::Arr(responses) = line.at("responses") else {
            panic!("{name}: no responses");
        };
        let want = stringified(responses.last().unwrap().at("response"));
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(normalized(&got), want, "{name} ({expected})");
        // Bytes (with a byte order mark) give the same response.
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(body.as_bytes());
        let again = match &*kind {
            "openai" => openai_response_at(&body_text(&bytes), &options, FROZEN_NOW),
            _ => anthropic_response_at(&body_text(&bytes), &options, FROZEN_NOW),
        };
        assert_eq!(again.unwrap(), got, "{name}: bytes");
        checked += 1;
    }
    checked
}

#[test]
fn bodies_match_0_21_2() {
    assert!(check_release("expected", Profile::Qwen021) >= 60);
}

#[test]
fn bodies_match_0_24_4() {
    assert!(check_release("expected-0.24.4", Profile::Qwen024) >= 60);
}
