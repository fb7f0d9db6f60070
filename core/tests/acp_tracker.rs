//! `ToolCallPreparationTracker` (docs/behaviour.md §5.3) against the ledger: the rows of
//! `tool-call-preparation-tracker.test.ts` (docs/behaviour.md §8.2) and the discard table
//! of docs/behaviour.md §5.5.

use toolcall_stream_core::acp::{
    DescribedPreparation, OwnedValue, PreparationTracker, ToolCallCards,
};

fn ids(frames: &[OwnedValue]) -> Vec<(String, String)> {
    frames
        .iter()
        .map(|f| {
            (
                f["toolCallId"].as_str().unwrap().to_string(),
                f["_meta"]["toolName"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn emits_a_preparation_once_and_does_not_discard_it_after_resolution() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    let preps = [DescribedPreparation::new("call-1", "read_file")];
    let first = t.observe(&mut cards, &preps).unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["status"], "pending");
    assert_eq!(first[0]["rawInput"].to_json(), "{}");
    assert_eq!(first[0]["_meta"]["phase"], "preparing");
    assert!(t.observe(&mut cards, &preps).unwrap().is_empty());
    t.resolve([Some("call-1")]);
    assert!(t.discard(&mut cards, false, None).unwrap().is_empty());
    assert!(cards.is_open("call-1"), "the card waits for execution");
}

#[test]
fn discards_every_unresolved_preparation_exactly_once() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    t.observe(
        &mut cards,
        &[
            DescribedPreparation::new("call-1", "read_file"),
            DescribedPreparation::new("call-2", "shell"),
        ],
    )
    .unwrap();
    let frames = t.discard(&mut cards, false, None).unwrap();
    assert_eq!(
        ids(&frames),
        vec![pair("call-1", "read_file"), pair("call-2", "shell")]
    );
    for f in &frames {
        assert_eq!(f["status"], "failed");
        assert_eq!(f["_meta"]["preparationDiscarded"], true);
    }
    assert!(t.discard(&mut cards, false, None).unwrap().is_empty());
}

#[test]
fn discards_a_resolved_preparation_when_the_stream_attempt_is_abandoned() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    t.observe(
        &mut cards,
        &[DescribedPreparation::new("call-1", "read_file")],
    )
    .unwrap();
    t.resolve([Some("call-1")]);
    assert_eq!(
        ids(&t.discard(&mut cards, true, None).unwrap()),
        vec![pair("call-1", "read_file")]
    );
}

#[test]
fn keeps_preparations_unresolved_for_missing_or_empty_function_call_ids() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    t.observe(
        &mut cards,
        &[DescribedPreparation::new("call-1", "read_file")],
    )
    .unwrap();
    t.resolve([None, Some("")]);
    assert_eq!(
        ids(&t.discard(&mut cards, false, None).unwrap()),
        vec![pair("call-1", "read_file")]
    );
}

#[test]
fn does_not_retry_a_preparation_when_the_emitter_suppresses_its_start() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    let preps = [DescribedPreparation::new("call-1", "todo_write")];
    assert!(t.observe(&mut cards, &preps).unwrap().is_empty());
    assert!(t.observe(&mut cards, &preps).unwrap().is_empty());
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
}

#[test]
fn a_preparation_whose_card_is_already_open_stays_suppressed_across_discard() {
    let mut cards = ToolCallCards::default();
    cards.preparing("call-1", "read_file", None, None).unwrap();
    let mut t = PreparationTracker::new();
    let preps = [DescribedPreparation::new("call-1", "read_file")];
    assert!(t.observe(&mut cards, &preps).unwrap().is_empty());
    assert!(
        t.discard(&mut cards, true, None).unwrap().is_empty(),
        "not this tracker's card"
    );
    cards.discarded("call-1", "read_file", None).unwrap();
    // docs/behaviour.md §5.3: suppressed is not cleared by discard, so no retry.
    assert!(t.observe(&mut cards, &preps).unwrap().is_empty());
}

#[test]
fn retry_discards_then_the_replacement_attempt_prepares_the_same_id_again() {
    // docs/behaviour.md §5.5: a discarded card can come back with the same id.
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    let preps = [DescribedPreparation::new("call-1", "write_file")];
    t.observe(&mut cards, &preps).unwrap();
    t.resolve([Some("call-1")]);
    assert_eq!(t.discard(&mut cards, true, None).unwrap().len(), 1);
    let again = t.observe(&mut cards, &preps).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["sessionUpdate"], "tool_call");
}

#[test]
fn normal_end_keeps_resolved_cards_open_for_execution_and_discards_the_rest() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    t.observe(
        &mut cards,
        &[
            DescribedPreparation::new("a", "read_file"),
            DescribedPreparation::new("b", "read_file"),
        ],
    )
    .unwrap();
    t.resolve([Some("a")]);
    assert_eq!(
        ids(&t.discard(&mut cards, false, None).unwrap()),
        vec![pair("b", "read_file")]
    );
    assert!(cards.is_open("a"));
    assert!(!cards.is_open("b"));
}

#[test]
fn a_card_finished_elsewhere_is_not_discarded() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    t.observe(&mut cards, &[DescribedPreparation::new("a", "read_file")])
        .unwrap();
    assert_eq!(cards.close_all(None, None).len(), 1);
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
}

#[test]
fn an_invalid_batch_opens_no_card() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    let err = t
        .observe(
            &mut cards,
            &[
                DescribedPreparation::new("a", "read_file"),
                DescribedPreparation::new("", "x"),
            ],
        )
        .unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
    assert_eq!(cards.open_ids().count(), 0);
    // Nothing is tracked: a discard finds no preparing card.
    assert!(t.discard(&mut cards, false, None).unwrap().is_empty());
}

#[test]
fn preparations_parse_from_json() {
    let list = DescribedPreparation::list_from_json(
        r#"[{"callId":"a","toolName":"read_file","title":"Read","kind":"read"},{"callId":"b","toolName":"x","title":null}]"#,
    )
    .unwrap();
    assert_eq!(list[0].title, Some("Read".into()));
    assert_eq!(list[1], DescribedPreparation::new("b", "x"));
    for bad in [
        "{}",
        "[1]",
        r#"[{"toolName":"x"}]"#,
        r#"[{"callId":"a","toolName":3}]"#,
        "[",
    ] {
        assert_eq!(
            DescribedPreparation::list_from_json(bad)
                .unwrap_err()
                .code
                .as_str(),
            "INVALID_ARGUMENT",
            "{bad}"
        );
    }
}

/// One chunk in one step: the same ids, frames and resolutions as
/// `ToolCallIds::apply`, `observe` and `resolve` called in turn.
#[test]
fn a_chunk_in_one_step_is_ids_then_observe_then_resolve() {
    use toolcall_stream_core::acp::{ChunkCalls, JsString, ToolCallIds};
    let chunk = || ChunkCalls {
        preparations: vec![
            DescribedPreparation::new("a", "read_file"),
            DescribedPreparation::new("h", "shell"),
        ],
        calls: vec![Some("a".into()), None, Some("a".into())],
    };
    let (mut cards, mut t, mut table) = (
        ToolCallCards::default(),
        PreparationTracker::new(),
        ToolCallIds::new(["h"]),
    );
    let step = t
        .observe_chunk(&mut cards, Some(&mut table), chunk())
        .unwrap();

    let (mut cards2, mut t2, mut table2) = (
        ToolCallCards::default(),
        PreparationTracker::new(),
        ToolCallIds::new(["h"]),
    );
    let raw: Vec<JsString> = ["a", "h"].map(JsString::from).to_vec();
    let (preparations, calls) = table2.apply(&raw, &chunk().calls);
    let described: Vec<_> = preparations
        .iter()
        .zip(["read_file", "shell"])
        .map(|(id, tool)| DescribedPreparation::new(id.clone(), tool))
        .collect();
    let frames = t2.observe(&mut cards2, &described).unwrap();
    t2.resolve(calls.clone());

    assert_eq!(step.ids, Some((preparations, calls)));
    assert_eq!(step.frames, frames);
    assert_eq!(
        step.to_json(),
        format!(
            r#"{{"frames":{},"preparations":["a","h__qwen_dup_2"],"calls":["a","call_qwen_1",null]}}"#,
            toolcall_stream_core::acp::frames_json(&frames)
        )
    );
    // `a` resolved, `h__qwen_dup_2` still pending: the normal end discards only it.
    assert_eq!(
        ids(&t.discard(&mut cards, false, None).unwrap()),
        ids(&t2.discard(&mut cards2, false, None).unwrap())
    );
    assert_eq!(cards.open_ids().count(), 1);
}

#[test]
fn a_chunk_step_with_an_empty_preparation_id_fails_with_a_stable_code_and_opens_nothing() {
    use toolcall_stream_core::acp::ChunkCalls;
    let mut cards = ToolCallCards::default();
    let chunk = ChunkCalls {
        preparations: vec![
            DescribedPreparation::new("a", "read_file"),
            DescribedPreparation::new("", "x"),
        ],
        calls: vec![Some("a".into())],
    };
    let mut t = PreparationTracker::new();
    let err = t.observe_chunk(&mut cards, None, chunk).unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
    assert_eq!(cards.open_ids().count(), 0);
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
}
