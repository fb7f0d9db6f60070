//! The provider response parsing Qwen Code switches on by provider (the
//! content-only thinking-tag leak guard, MiniMax's tagged thinking) against
//! the oracle: every case of `__test__/fixtures/parsing` (written by its
//! `generate.mjs`) with the options its provider returned at each release,
//! under the matching profile, chunk by chunk as
//! `packages/core/src/core/openaiContentGenerator/converter.ts,
//! convertOpenAIChunkToGemini` converts them.

mod common;

use std::collections::HashMap;

use serde_json::{json, Value};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream, ResponseParsing};
use toolcall_stream_core::Profile;

use common::{error_line, mask, parsing_cases, parsing_dir, response_line, Line};

fn run(items: &[Value], profile: Profile, parsing: ResponseParsing) -> Vec<Line<usize>> {
    let mut s = OpenAIStream::new(OpenAIOptions {
        profile,
        parsing,
        ..OpenAIOptions::default()
    });
    let mut ids = HashMap::new();
    let mut lines = Vec::new();
    for (i, c) in items.iter().enumerate() {
        match s.push_chunk_text(&c.to_string()) {
            Ok(r) => lines.push(match response_line(i, &r) {
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
            }),
            Err(e) => {
                lines.push(error_line(i, &e));
                break;
            }
        }
    }
    lines
}

fn want(dir: &str, key: &str) -> Vec<Line<usize>> {
    let text = std::fs::read_to_string(
        parsing_dir()
            .join(dir)
            .join(format!("{key}.expected.ndjson")),
    )
    .unwrap();
    let mut ids = HashMap::new();
    text.lines()
        .map(|l| {
            let w: Value = serde_json::from_str(l).unwrap();
            let tag = w["chunk"].as_u64().unwrap() as usize;
            match w.get("error") {
                Some(e) => Line::Error {
                    tag,
                    code: e["type"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{key}: untyped error {e}"))
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

#[test]
fn every_case_matches_the_oracle_at_both_releases() {
    for case in parsing_cases() {
        for (profile, parsing, dir) in &case.releases {
            assert_eq!(
                run(&case.items, *profile, *parsing),
                want(dir, &case.key),
                "{} ({dir})",
                case.key
            );
        }
    }
}

#[test]
fn the_options_change_the_output() {
    // The corpus would pass with the options ignored only if they did
    // nothing: with them off, enough cases differ from the oracle.
    let differ = parsing_cases()
        .iter()
        .filter(|case| {
            case.releases.iter().any(|(profile, _, dir)| {
                run(&case.items, *profile, ResponseParsing::default()) != want(dir, &case.key)
            })
        })
        .count();
    assert!(differ >= 20, "{differ} cases depend on the options");
}
