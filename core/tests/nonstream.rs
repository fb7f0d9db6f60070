//! Non-streaming bodies against the oracle: every `anthropic` / `openai`
//! case of `__test__/fixtures/bodies` (written by its `generate.mjs`, which
//! runs the published builds' `convertAnthropicResponseToGemini` /
//! `convertOpenAIResponseToGemini`, `…ToLlm` in 0.24.4) under the matching
//! profile, and the bodies that the `fallback` cases' empty-stream fallback
//! fetched. Compared as `JSON.stringify` shows them, key order included,
//! with what the reference attaches out of band: the usage provenance
//! (`getGenAiUsageProvenance`: its value and its keys) and the parts that
//! carry its reasoning marker (`createOpenAIReasoningThoughtPart`); the
//! clock is the oracle's frozen one.
//!
//! The core's own JSON reader is used throughout: the fixtures hold a lone
//! surrogate escape, which serde_json rejects.

use std::path::PathBuf;

use toolcall_stream_core::convert::anthropic::body::anthropic_response_at;
use toolcall_stream_core::convert::nonstream::{body_text, BodyOptions, BodyResponse};
use toolcall_stream_core::convert::openai::body::openai_response_at;
use toolcall_stream_core::convert::openai::key_order::KEY_ORDER as OPENAI_KEY_ORDER;
use toolcall_stream_core::convert::openai::ResponseParsing;
use toolcall_stream_core::foundations::json::{self, Value};
use toolcall_stream_core::model::usage_provenance::{CacheCreation, UsageProvenance};
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

/// The annotations as the oracle records them: `usageProvenance` (as
/// `JSON.stringify` shows it), `usageProvenanceKeys` and `reasoningParts`,
/// each `null` when absent.
fn annotations(r: &BodyResponse) -> [String; 3] {
    let (value, keys) = match r.usage_provenance {
        None => ("null".to_owned(), "null".to_owned()),
        Some(UsageProvenance {
            cached_input_tokens_reported,
            cache_creation: CacheCreation::NotTracked,
        }) => (
            format!(r#"{{"cachedInputTokensReported":{cached_input_tokens_reported}}}"#),
            r#"["cachedInputTokensReported"]"#.to_owned(),
        ),
        Some(UsageProvenance {
            cached_input_tokens_reported,
            cache_creation,
        }) => (
            match cache_creation {
                CacheCreation::NotTracked => unreachable!("matched above"),
                // JSON.stringify drops the key that holds undefined.
                CacheCreation::Unreported => {
                    format!(r#"{{"cachedInputTokensReported":{cached_input_tokens_reported}}}"#)
                }
                CacheCreation::Tokens(n) => {
                    let mut count = String::new();
                    json::write_number(&mut count, n);
                    format!(
                        r#"{{"cachedInputTokensReported":{cached_input_tokens_reported},"cacheCreationInputTokens":{count}}}"#
                    )
                }
            },
            r#"["cachedInputTokensReported","cacheCreationInputTokens"]"#.to_owned(),
        ),
    };
    let parts = if r.reasoning_parts.is_empty() {
        "null".to_owned()
    } else {
        let indexes: Vec<String> = r.reasoning_parts.iter().map(usize::to_string).collect();
        format!("[{}]", indexes.join(","))
    };
    [value, keys, parts]
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
        let want_item = responses.last().unwrap();
        let want = stringified(want_item.at("response"));
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(normalized(&got.json), want, "{name} ({expected})");
        let want_annotations =
            ["usageProvenance", "usageProvenanceKeys", "reasoningParts"].map(|key| {
                want_item
                    .get(key)
                    .map_or_else(|| "null".to_owned(), stringified)
            });
        assert_eq!(
            annotations(&got),
            want_annotations,
            "{name} ({expected}): usage provenance, its keys, reasoning parts"
        );
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

/// The top-level keys of a response's JSON text, in order.
fn keys(text: &str) -> Vec<String> {
    match &json::parse(text).unwrap_or_else(|e| panic!("{e}: {text}")) {
        Value::Obj(entries) => entries
            .iter()
            .map(|(k, _)| k.value().into_owned())
            .collect(),
        other => panic!("not an object: {other:?}"),
    }
}

#[test]
fn a_body_response_has_its_keys_in_the_openai_key_order() {
    // Both converters write the keys in the order of the streams' OpenAI
    // chunks (`openai/key_order.rs`), every key present here.
    let order: Vec<&str> = OPENAI_KEY_ORDER.keys.iter().map(|k| k.name()).collect();
    let options = BodyOptions::default();
    let anthropic = anthropic_response_at(
        r#"{"id":"msg","model":"m","content":[{"type":"text","text":"a"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}"#,
        &options,
        FROZEN_NOW,
    )
    .unwrap();
    let openai = openai_response_at(
        r#"{"id":"c","created":7,"model":"m","choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
        &options,
        FROZEN_NOW,
    )
    .unwrap();
    assert_eq!(keys(&anthropic.json), order, "{}", anthropic.json);
    assert_eq!(keys(&openai.json), order, "{}", openai.json);
}

#[test]
fn bodies_match_0_21_2() {
    assert!(check_release("expected", Profile::Qwen021) >= 60);
}

#[test]
fn bodies_match_0_24_4() {
    assert!(check_release("expected-0.24.4", Profile::Qwen024) >= 60);
}

mod robustness {
    //! Any JSON body, and any bytes, convert or fail with a typed error:
    //! never a panic, and the output is always JSON that the core's own
    //! reader accepts.
    use proptest::prelude::*;
    use toolcall_stream_core::convert::anthropic::body::anthropic_response;
    use toolcall_stream_core::convert::nonstream::{body_text, BodyOptions, BodyResponse};
    use toolcall_stream_core::convert::openai::body::openai_response;
    use toolcall_stream_core::foundations::json;
    use toolcall_stream_core::wire::write_body_item;
    use toolcall_stream_core::ErrorCode;

    /// JSON values biased towards the fields both converters read.
    fn value() -> impl Strategy<Value = serde_json::Value> {
        let key = prop_oneof![
            Just("content"),
            Just("type"),
            Just("text"),
            Just("thinking"),
            Just("signature"),
            Just("tool_use"),
            Just("input"),
            Just("id"),
            Just("name"),
            Just("stop_reason"),
            Just("usage"),
            Just("input_tokens"),
            Just("output_tokens"),
            Just("choices"),
            Just("message"),
            Just("tool_calls"),
            Just("function"),
            Just("arguments"),
            Just("reasoning_content"),
            Just("finish_reason"),
            Just("created"),
            Just("model"),
            Just("prompt_tokens_details"),
            Just("cached_tokens"),
            Just("x"),
        ];
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i32>().prop_map(|n| serde_json::json!(n)),
            (-1e6f64..1e6).prop_map(|n| serde_json::json!(n)),
            prop_oneof![
                Just("text"),
                Just("tool_use"),
                Just("thinking"),
                Just("redacted_thinking"),
                Just("end_turn"),
                Just("{\"a\":"),
                Just("[1,"),
                Just(""),
                Just("<think>x</think>y"),
                Just("é😀"),
            ]
            .prop_map(|s| serde_json::Value::String(s.to_owned())),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|entries| {
                    serde_json::Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    /// A typed error, or a response that is JSON, whose wire item is JSON,
    /// with a provenance exactly when it has `usageMetadata` and reasoning
    /// indexes that point at thought parts.
    fn check(
        result: Result<BodyResponse, toolcall_stream_core::Error>,
    ) -> Result<(), TestCaseError> {
        match result {
            Ok(r) => {
                let Ok(v) = json::parse(&r.json) else {
                    return Err(TestCaseError::fail(format!("not JSON: {}", r.json)));
                };
                let mut item = String::new();
                write_body_item(&r, &mut item);
                prop_assert!(json::parse(&item).is_ok(), "item not JSON: {item}");
                prop_assert_eq!(
                    r.usage_provenance.is_some(),
                    v.get("usageMetadata").is_some()
                );
                let first = |v: &json::Value<'_>, i: usize| match v {
                    json::Value::Arr(items) => {
                        items.get(i).is_some_and(|p| p.at("thought").truthy())
                    }
                    _ => false,
                };
                let parts = match v.at("candidates") {
                    json::Value::Arr(c) if !c.is_empty() => c[0].at("content").at("parts"),
                    _ => &json::Value::Null,
                };
                for i in &r.reasoning_parts {
                    prop_assert!(first(parts, *i), "{i}: {}", r.json);
                }
            }
            Err(e) => prop_assert!(
                matches!(
                    e.code,
                    ErrorCode::InvalidResponse | ErrorCode::InvalidJson | ErrorCode::LimitExceeded
                ),
                "{e}"
            ),
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn any_json_body_converts_or_fails_typed(body in value(), tagged in any::<bool>()) {
            let text = body.to_string();
            let mut options = BodyOptions::default();
            options.parsing.tagged_thinking = tagged;
            check(anthropic_response(&text, &options))?;
            check(openai_response(&text, &options))?;
        }

        #[test]
        fn any_bytes_convert_or_fail_typed(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let text = body_text(&bytes);
            check(anthropic_response(&text, &BodyOptions::default()))?;
            check(openai_response(&text, &BodyOptions::default()))?;
        }
    }
}
