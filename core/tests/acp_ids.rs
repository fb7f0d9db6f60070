//! GeminiChat's per-attempt id normalisation (docs/behaviour.md §4.1).

use toolcall_stream_core::acp::{JsString, ToolCallIds};

fn s(v: &str) -> JsString {
    v.into()
}

#[test]
fn an_unused_raw_id_is_kept() {
    let mut ids = ToolCallIds::new(Vec::<String>::new());
    assert_eq!(ids.reserve("toolu_1"), "toolu_1");
    assert_eq!(ids.normalize_call(Some("toolu_1")), Some(s("toolu_1")));
}

#[test]
fn a_preparation_reusing_a_history_id_gets_the_smallest_free_dup_suffix_and_its_call_matches() {
    let mut ids = ToolCallIds::new([s("call_0"), s("call_0__qwen_dup_2")]);
    let (preps, calls) = ids.apply(&[s("call_0")], &[Some(s("call_0"))]);
    assert_eq!(preps, vec![s("call_0__qwen_dup_3")]);
    assert_eq!(calls, vec![Some(s("call_0__qwen_dup_3"))]);
}

#[test]
fn reservation_is_memoised_per_raw_id() {
    let mut ids = ToolCallIds::new([s("a")]);
    assert_eq!(ids.reserve("a"), "a__qwen_dup_2");
    assert_eq!(ids.reserve("a"), "a__qwen_dup_2");
}

#[test]
fn preparations_are_rewritten_before_calls_of_the_same_chunk() {
    let mut ids = ToolCallIds::new([s("x")]);
    // The call comes first in the chunk, the preparation second; the
    // preparation still reserves first, so both agree.
    let (preps, calls) = ids.apply(&[s("x")], &[Some(s("x"))]);
    assert_eq!(preps[0], calls[0].clone().unwrap());
}

#[test]
fn a_same_attempt_duplicate_call_is_dropped() {
    let mut ids = ToolCallIds::new(Vec::<String>::new());
    let (_, calls) = ids.apply(&[], &[Some(s("a")), Some(s("a"))]);
    assert_eq!(calls, vec![Some(s("a")), None]);
    let (_, later) = ids.apply(&[], &[Some(s("a"))]);
    assert_eq!(
        later,
        vec![None],
        "dropped across chunks of the attempt too"
    );
}

#[test]
fn absent_and_empty_ids_get_generated_ids_skipping_used_ones() {
    let mut ids = ToolCallIds::new([s("call_qwen_1"), s("")]);
    let (_, calls) = ids.apply(&[], &[None, Some(s("")), None]);
    assert_eq!(
        calls,
        vec![
            Some(s("call_qwen_2")),
            Some(s("call_qwen_3")),
            Some(s("call_qwen_4"))
        ]
    );
}

#[test]
fn an_unprepared_call_with_a_history_id_is_suffixed() {
    let mut ids = ToolCallIds::new([s("run_0")]);
    assert_eq!(
        ids.normalize_call(Some("run_0")),
        Some(s("run_0__qwen_dup_2"))
    );
    // Not memoised: a second, different raw id still gets its own rule.
    assert_eq!(ids.normalize_call(Some("run_1")), Some(s("run_1")));
}

#[test]
fn a_new_attempt_maps_the_same_provider_id_to_the_same_final_id() {
    let history = [s("t1")];
    let mut first = ToolCallIds::new(history.clone());
    let mut retry = ToolCallIds::new(history);
    assert_eq!(
        first.apply(&[s("t1")], &[]).0,
        retry.apply(&[s("t1")], &[]).0
    );
}

#[test]
fn two_preparations_never_share_a_final_id() {
    let mut ids = ToolCallIds::new([s("a"), s("a__qwen_dup_2")]);
    let (preps, _) = ids.apply(&[s("a"), s("a__qwen_dup_3")], &[]);
    assert_eq!(
        preps,
        vec![s("a__qwen_dup_3"), s("a__qwen_dup_3__qwen_dup_2")]
    );
}

#[test]
fn apply_json_round_trips_and_marks_dropped_calls_null() {
    let mut ids = ToolCallIds::new([s("a")]);
    let out = ids
        .apply_json(r#"{"preparations":["a"],"calls":["a",null,"a"]}"#)
        .unwrap();
    assert_eq!(
        out,
        r#"{"preparations":["a__qwen_dup_2"],"calls":["a__qwen_dup_2","call_qwen_1",null]}"#
    );
    for bad in [
        "nope",
        r#"{"calls":[1]}"#,
        r#"{"preparations":[null]}"#,
        r#"{"calls":{}}"#,
    ] {
        assert_eq!(
            ids.apply_json(bad).unwrap_err().code.as_str(),
            "INVALID_ARGUMENT",
            "{bad}"
        );
    }
}
