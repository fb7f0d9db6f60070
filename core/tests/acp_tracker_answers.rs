//! The tracker when a host's emitter decides whether a card is shown
//! (`offer` / `answer`): what Qwen Code's `ToolCallPreparationTracker`
//! (packages/cli/src/acp-integration/session/tool-call-preparation-tracker.ts,
//! `observe`) records for each `emitStart` answer, and what the card ledger
//! keeps of a card the emitter never showed (nothing).

use toolcall_stream_core::acp::{
    DescribedPreparation, OwnedValue, PreparationTracker, StartAnswer, ToolCallCards, ToolStart,
};

fn discarded_ids(frames: &[OwnedValue]) -> Vec<String> {
    frames
        .iter()
        .map(|f| {
            assert_eq!(f["_meta"]["preparationDiscarded"], true);
            f["toolCallId"].as_str().unwrap().to_string()
        })
        .collect()
}

fn open_ids(cards: &ToolCallCards) -> Vec<String> {
    cards.open_ids().map(|id| id.to_string()).collect()
}

/// Cards that suppress nothing by name: the emitter alone decides.
fn cards() -> ToolCallCards {
    ToolCallCards::new(Some(Vec::new()))
}

#[test]
fn an_offer_is_the_preparing_frame_observe_would_send_and_opens_its_card() {
    let prep = DescribedPreparation {
        title: Some("Read".into()),
        kind: Some("read".into()),
        ..DescribedPreparation::new("a", "read_file")
    };
    let (mut observed_cards, mut offered_cards) = (cards(), cards());
    let observed = PreparationTracker::new()
        .observe(&mut observed_cards, std::slice::from_ref(&prep))
        .unwrap();
    let mut t = PreparationTracker::new();
    let offered = t.offer(&mut offered_cards, &prep).unwrap().unwrap();
    assert_eq!(offered.to_json(), observed[0].to_json());
    assert_eq!(open_ids(&offered_cards), ["a"]);
    assert!(
        t.offer(&mut offered_cards, &prep).unwrap().is_none(),
        "an offer awaiting its answer is not made twice"
    );
    // Skipped, not suppressed: once shown and discarded, it is offered again.
    t.answer(&mut offered_cards, "a", StartAnswer::Emitted)
        .unwrap();
    assert_eq!(t.discard(&mut offered_cards, true, None).unwrap().len(), 1);
    assert!(t.offer(&mut offered_cards, &prep).unwrap().is_some());
}

#[test]
fn an_emitted_start_is_tracked_and_discarded_unless_resolved() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    for id in ["a", "b"] {
        t.offer(&mut cards, &DescribedPreparation::new(id, "read_file"))
            .unwrap()
            .unwrap();
        t.answer(&mut cards, id, StartAnswer::Emitted).unwrap();
    }
    assert!(t
        .offer(&mut cards, &DescribedPreparation::new("a", "read_file"))
        .unwrap()
        .is_none());
    t.resolve([Some("a")]);
    assert_eq!(
        discarded_ids(&t.discard(&mut cards, false, None).unwrap()),
        ["b"]
    );
    assert_eq!(
        open_ids(&cards),
        ["a"],
        "the resolved card waits for execution"
    );
}

#[test]
fn a_declined_start_leaves_no_card_and_is_never_offered_again() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    let prep = DescribedPreparation::new("a", "todo_write");
    t.offer(&mut cards, &prep).unwrap().unwrap();
    t.answer(&mut cards, "a", StartAnswer::Declined).unwrap();
    assert!(!cards.is_open("a"), "the client never saw the card");
    assert!(t.offer(&mut cards, &prep).unwrap().is_none());
    t.resolve([Some("a")]);
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
    assert!(
        t.offer(&mut cards, &prep).unwrap().is_none(),
        "suppression outlives a discard"
    );
    // Nothing in the ledger either: no update, no terminal frame for it.
    assert!(cards.discarded("a", "todo_write", None).unwrap().is_none());
    assert!(cards.close_all(None, None).is_empty());
}

#[test]
fn a_failed_start_leaves_no_card_and_is_offered_again() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    let prep = DescribedPreparation::new("a", "read_file");
    t.offer(&mut cards, &prep).unwrap().unwrap();
    t.answer(&mut cards, "a", StartAnswer::Failed).unwrap();
    assert!(!cards.is_open("a"));
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
    let again = t.offer(&mut cards, &prep).unwrap().unwrap();
    assert_eq!(again["sessionUpdate"], "tool_call");
    t.answer(&mut cards, "a", StartAnswer::Emitted).unwrap();
    assert_eq!(
        discarded_ids(&t.discard(&mut cards, false, None).unwrap()),
        ["a"]
    );
}

#[test]
fn a_start_awaiting_its_answer_is_neither_resolved_nor_discarded() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    t.offer(&mut cards, &DescribedPreparation::new("a", "read_file"))
        .unwrap()
        .unwrap();
    t.resolve([Some("a")]);
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
    assert_eq!(open_ids(&cards), ["a"], "its frame may be on its way");
    t.answer(&mut cards, "a", StartAnswer::Emitted).unwrap();
    assert_eq!(
        discarded_ids(&t.discard(&mut cards, false, None).unwrap()),
        ["a"],
        "the resolve came before the card was tracked"
    );
}

#[test]
fn the_ledger_refusal_comes_first_and_suppresses_without_asking() {
    let mut cards = ToolCallCards::default();
    let mut t = PreparationTracker::new();
    assert!(t
        .offer(&mut cards, &DescribedPreparation::new("a", "todo_write"))
        .unwrap()
        .is_none());
    cards.preparing("b", "read_file", None, None).unwrap();
    let b = DescribedPreparation::new("b", "read_file");
    assert!(
        t.offer(&mut cards, &b).unwrap().is_none(),
        "its card is open"
    );
    cards.discarded("b", "read_file", None).unwrap();
    assert!(
        t.offer(&mut cards, &b).unwrap().is_none(),
        "suppressed, as observe does"
    );
    assert!(t.answer(&mut cards, "a", StartAnswer::Emitted).is_err());
}

#[test]
fn a_decline_does_not_withdraw_a_card_whose_start_went_out_meanwhile() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    t.offer(&mut cards, &DescribedPreparation::new("a", "read_file"))
        .unwrap()
        .unwrap();
    let start =
        ToolStart::from_json(r#"{"callId":"a","toolName":"read_file","rawInput":{}}"#).unwrap();
    cards.started(&start).unwrap().unwrap();
    t.answer(&mut cards, "a", StartAnswer::Declined).unwrap();
    assert_eq!(
        open_ids(&cards),
        ["a"],
        "the client saw the start: it ends with its own frame"
    );
    assert!(t.discard(&mut cards, true, None).unwrap().is_empty());
}

#[test]
fn an_answer_needs_an_offer_awaiting_it() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    let err = t.answer(&mut cards, "a", StartAnswer::Emitted).unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
    t.offer(&mut cards, &DescribedPreparation::new("a", "read_file"))
        .unwrap()
        .unwrap();
    t.answer(&mut cards, "a", StartAnswer::Emitted).unwrap();
    let twice = t
        .answer(&mut cards, "a", StartAnswer::Declined)
        .unwrap_err();
    assert_eq!(twice.code.as_str(), "INVALID_ARGUMENT");
    assert_eq!(open_ids(&cards), ["a"], "a second answer changes nothing");
}

#[test]
fn an_offer_with_an_empty_call_id_is_refused() {
    let mut cards = cards();
    let mut t = PreparationTracker::new();
    let err = t
        .offer(&mut cards, &DescribedPreparation::new("", "read_file"))
        .unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
    assert_eq!(cards.open_ids().count(), 0);
}

#[test]
fn one_preparation_parses_from_json() {
    let p =
        DescribedPreparation::from_json(r#"{"callId":"a","toolName":"x","kind":"read"}"#).unwrap();
    assert_eq!(p.kind, Some("read".into()));
    for bad in [
        "[]",
        r#"{"callId":"a"}"#,
        r#"{"callId":1,"toolName":"x"}"#,
        "{",
    ] {
        assert_eq!(
            DescribedPreparation::from_json(bad)
                .unwrap_err()
                .code
                .as_str(),
            "INVALID_ARGUMENT",
            "{bad}"
        );
    }
}
