//! Property tests over random session histories: preparations, complete
//! calls, retries, fallbacks, cancels, stream errors, normal ends with tool
//! execution, `close_all`, direct (mis)use of the ledger, and provider ids
//! that repeat within an attempt and across turns. Whatever happens, the
//! frames a client receives must satisfy the card invariants:
//!
//! 1. the first frame for a `toolCallId` (and the first after its card was
//!    closed) is a `tool_call`;
//! 2. no `tool_call_update` for an id without an open card;
//! 3. every card opened gets exactly one terminal frame per attempt;
//! 4. no partial arguments: a preparing frame has `rawInput: {}`, and any
//!    other `rawInput` is the complete arguments of its call.
//!
//! A `session/request_permission` is not a `session/update`, but its
//! `toolCall` opens the card on the client when none is open (Zed upserts
//! it), so the client model counts it: a call that asks for permission,
//! prepared or not, answered or left waiting, still ends exactly once.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use serde_json::{json, Value};
use toolcall_stream_core::acp::{
    DescribedPreparation, JsString, OwnedValue, PreparationTracker, ResultStatus, StartStatus,
    ToolCallCards, ToolCallIds, ToolResult, ToolStart,
};

/// The core's value of a JSON literal written with serde_json's `json!`.
fn j(v: &Value) -> OwnedValue {
    OwnedValue::parse(&v.to_string()).unwrap()
}

/// A frame as the client reads it (`JSON.parse` of the wire text).
fn wire(frame: &OwnedValue) -> Value {
    serde_json::from_str(&frame.to_json()).unwrap()
}

const TOOLS: &[&str] = &[
    "read_file",
    "todo_write",
    "mcp__fs__write",
    "mcp____odd",
    "exit_plan_mode",
];

#[derive(Clone, Debug)]
enum Op {
    Prepare {
        raw: u8,
        tool: usize,
    },
    Call {
        raw: Option<u8>,
        tool: usize,
    },
    Retry,
    Fallback,
    Cancel,
    StreamError,
    End {
        fail_every: u8,
    },
    CloseAll,
    DirectStart {
        raw: u8,
        tool: usize,
    },
    DirectFinish {
        raw: u8,
        tool: usize,
    },
    DirectDiscard {
        raw: u8,
        tool: usize,
    },
    /// A permission request for a call with no preparing card.
    DirectPermission {
        raw: u8,
        tool: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let raw = 0u8..4;
    let tool = 0usize..TOOLS.len();
    prop_oneof![
        6 => (raw.clone(), tool.clone()).prop_map(|(raw, tool)| Op::Prepare { raw, tool }),
        5 => (proptest::option::weighted(0.85, raw.clone()), tool.clone()).prop_map(|(raw, tool)| Op::Call { raw, tool }),
        1 => Just(Op::Retry),
        1 => Just(Op::Fallback),
        1 => Just(Op::Cancel),
        1 => Just(Op::StreamError),
        2 => (1u8..4).prop_map(|fail_every| Op::End { fail_every }),
        1 => Just(Op::CloseAll),
        1 => (raw.clone(), tool.clone()).prop_map(|(raw, tool)| Op::DirectStart { raw, tool }),
        1 => (raw.clone(), tool.clone()).prop_map(|(raw, tool)| Op::DirectFinish { raw, tool }),
        1 => (raw.clone(), tool.clone()).prop_map(|(raw, tool)| Op::DirectDiscard { raw, tool }),
        1 => (raw, tool).prop_map(|(raw, tool)| Op::DirectPermission { raw, tool }),
    ]
}

/// What a client would conclude from the frames: the invariants, checked
/// frame by frame.
#[derive(Default)]
struct Client {
    open: HashSet<String>,
    /// Complete arguments of every started call, by final id.
    args: HashMap<String, Value>,
}

impl Client {
    fn receive(&mut self, frame: &Value) -> Result<(), TestCaseError> {
        let id = frame["toolCallId"].as_str().unwrap_or_default().to_string();
        let status = frame["status"].as_str().unwrap_or_default();
        match frame["sessionUpdate"].as_str() {
            Some("tool_call") => {
                prop_assert!(
                    !self.open.contains(&id),
                    "tool_call for an already open card {id}"
                );
                prop_assert!(
                    frame.get("title").is_some_and(Value::is_string),
                    "tool_call requires a title"
                );
                self.open.insert(id.clone());
            }
            Some("tool_call_update") => {
                prop_assert!(
                    self.open.contains(&id),
                    "tool_call_update for {id} without an open card"
                );
                if status == "completed" || status == "failed" {
                    self.open.remove(&id);
                }
            }
            other => prop_assert!(false, "unexpected frame kind {other:?}"),
        }
        if frame["_meta"]["phase"] == "preparing" {
            if frame["sessionUpdate"] == "tool_call" {
                prop_assert_eq!(
                    &frame["rawInput"],
                    &json!({}),
                    "preparing frame with arguments"
                );
                prop_assert_eq!(status, "pending");
            } else {
                prop_assert!(frame.get("rawInput").is_none());
                prop_assert_eq!(&frame["content"], &json!([]));
                prop_assert_eq!(&frame["_meta"]["preparationDiscarded"], &json!(true));
            }
        } else if let Some(raw_input) = frame.get("rawInput") {
            prop_assert_eq!(
                Some(raw_input),
                self.args.get(&id),
                "rawInput is not the complete arguments"
            );
        }
        Ok(())
    }
}

impl Client {
    /// The `toolCall` of a permission request: pending, complete arguments,
    /// and the card open afterwards (opened by the request if need be).
    fn permission(&mut self, tool_call: &Value) -> Result<(), TestCaseError> {
        let id = tool_call["toolCallId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        prop_assert_eq!(&tool_call["status"], &json!("pending"));
        prop_assert_eq!(
            Some(&tool_call["rawInput"]),
            self.args.get(&id),
            "a permission request carries the complete arguments"
        );
        prop_assert!(tool_call.get("sessionUpdate").is_none());
        self.open.insert(id);
        Ok(())
    }
}

/// How the user answers a permission request in the random histories.
#[derive(Clone, Copy)]
enum Answer {
    Allow,
    Reject,
    /// No answer yet: the card stays open until `close_all`.
    Waiting,
}

struct Session {
    cards: ToolCallCards,
    client: Client,
    /// Ids that reached execution (history for the next attempt's ids).
    history: Vec<String>,
    stream: Option<Stream>,
    /// Calls whose permission request is still unanswered: their cards stay
    /// open until `close_all` (the end of the turn or a cancel).
    waiting: HashSet<String>,
}

struct Stream {
    tracker: PreparationTracker,
    ids: ToolCallIds,
    calls: Vec<(String, String)>,
    /// Cards this attempt's tracker opened.
    opened: Vec<String>,
}

impl Session {
    fn send(&mut self, frames: impl IntoIterator<Item = OwnedValue>) -> Result<(), TestCaseError> {
        for f in frames {
            self.client.receive(&wire(&f))?;
        }
        let ledger: HashSet<String> = self.cards.open_ids().map(|id| id.to_string()).collect();
        prop_assert_eq!(
            &ledger,
            &self.client.open,
            "ledger and client disagree on open cards"
        );
        Ok(())
    }

    fn stream<'a>(stream: &'a mut Option<Stream>, history: &[String]) -> &'a mut Stream {
        stream.get_or_insert_with(|| Stream {
            tracker: PreparationTracker::new(),
            ids: ToolCallIds::new(history.iter().cloned()),
            calls: Vec::new(),
            opened: Vec::new(),
        })
    }

    /// Retry / fallback: discard everything, clear calls, new attempt ids.
    fn abandon_attempt(&mut self) -> Result<(), TestCaseError> {
        let history = self.history.clone();
        let Some(s) = self.stream.as_mut() else {
            return Ok(());
        };
        let frames = s.tracker.discard(&mut self.cards, true, None).unwrap();
        s.calls.clear();
        s.ids = ToolCallIds::new(history);
        let opened = std::mem::take(&mut s.opened);
        self.send(frames)?;
        for id in opened {
            prop_assert!(
                !self.cards.is_open(&id),
                "card {id} of an abandoned attempt left open"
            );
        }
        Ok(())
    }

    fn end(&mut self, include_resolved: bool, execute: Option<u8>) -> Result<(), TestCaseError> {
        let Some(mut s) = self.stream.take() else {
            return Ok(());
        };
        let frames = s
            .tracker
            .discard(&mut self.cards, include_resolved, None)
            .unwrap();
        self.send(frames)?;
        if let Some(fail_every) = execute {
            let mut seen = HashSet::new();
            for (n, (id, tool)) in s.calls.iter().enumerate() {
                if !seen.insert(id.clone()) {
                    continue; // runToolCalls dedupes by id (docs/behaviour.md §6.8)
                }
                self.history.push(id.clone());
                let args = json!({"id": id, "big": "x".repeat(n % 3)});
                self.client.args.insert(id.clone(), args.clone());
                let start = ToolStart {
                    call_id: id.into(),
                    tool_name: tool.into(),
                    raw_input: j(&args),
                    title: None,
                    kind: None,
                    locations: Vec::new(),
                    status: StartStatus::InProgress,
                };
                // Every third call asks first (its request replaces the
                // start frame); the answer varies with the position.
                if n % 3 == 1 {
                    let answer = [Answer::Allow, Answer::Reject, Answer::Waiting]
                        [(n / 3 + fail_every as usize) % 3];
                    let asked = self.ask(&start)?;
                    match (asked, answer) {
                        (false, _) | (true, Answer::Allow) => {}
                        (true, Answer::Reject) => {
                            let frame = self
                                .cards
                                .finished(
                                    id,
                                    tool,
                                    ToolResult {
                                        status: ResultStatus::Failed,
                                        content: vec![j(&json!({"type": "content", "content": {"type": "text", "text": "rejected"}}))],
                                        raw_output: None,
                                    },
                                )
                                .unwrap();
                            prop_assert!(frame.is_some(), "a rejected call's card ends");
                            self.send(frame)?;
                            continue;
                        }
                        (true, Answer::Waiting) => {
                            self.waiting.insert(id.clone());
                            continue;
                        }
                    }
                } else {
                    let frame = self.cards.started(&start).unwrap();
                    self.send(frame)?;
                }
                let status = if n % fail_every as usize == 0 {
                    ResultStatus::Failed
                } else {
                    ResultStatus::Completed
                };
                let frame = self
                    .cards
                    .finished(
                        id,
                        tool,
                        ToolResult {
                            status,
                            content: vec![],
                            raw_output: None,
                        },
                    )
                    .unwrap();
                self.send(frame)?;
            }
        }
        for id in s.opened.iter().filter(|id| !self.waiting.contains(*id)) {
            prop_assert!(
                !self.cards.is_open(id),
                "card {id} left open after the stream and its tools"
            );
        }
        Ok(())
    }

    /// Sends a permission request's `toolCall` to the client; whether one was
    /// built (never for a suppressed tool without an open card).
    fn ask(&mut self, start: &ToolStart) -> Result<bool, TestCaseError> {
        let Some(tool_call) = self.cards.permission(start, vec![]).unwrap() else {
            prop_assert!(
                self.cards.is_suppressed(&start.tool_name),
                "only a suppressed tool is never asked about"
            );
            return Ok(false);
        };
        self.client.permission(&wire(&tool_call))?;
        self.send([])?;
        Ok(true)
    }

    fn apply(&mut self, op: Op) -> Result<(), TestCaseError> {
        match op {
            Op::Prepare { raw, tool } => {
                let s = Session::stream(&mut self.stream, &self.history);
                let (ids, _) = s.ids.apply(&[format!("p{raw}").into()], &[]);
                let prep = DescribedPreparation::new(ids[0].clone(), TOOLS[tool]);
                let frames = s.tracker.observe(&mut self.cards, &[prep]).unwrap();
                s.opened.extend(frames.iter().map(|f| {
                    f["toolCallId"]
                        .as_str()
                        .map(|s| s.to_string())
                        .unwrap_or_default()
                }));
                self.send(frames)?;
            }
            Op::Call { raw, tool } => {
                let s = Session::stream(&mut self.stream, &self.history);
                let (_, ids) = s.ids.apply(&[], &[raw.map(|r| format!("p{r}").into())]);
                if let Some(id) = ids[0].clone() {
                    s.tracker.resolve([Some(&id)]);
                    let id = id.to_string();
                    // The call's name may differ from its preparation's (a
                    // conflicting provider identity), even a suppressed one.
                    s.calls.push((id, TOOLS[tool].to_string()));
                }
            }
            Op::Retry | Op::Fallback => self.abandon_attempt()?,
            Op::Cancel | Op::StreamError => self.end(true, None)?,
            Op::End { fail_every } => self.end(false, Some(fail_every))?,
            Op::CloseAll => {
                self.waiting.clear();
                let frames = self.cards.close_all(None, None);
                self.send(frames)?;
            }
            Op::DirectStart { raw, tool } => {
                let id = format!("d{raw}");
                let args = json!({"direct": raw});
                self.client.args.insert(id.clone(), args.clone());
                let start = ToolStart {
                    call_id: id.into(),
                    tool_name: TOOLS[tool].into(),
                    raw_input: j(&args),
                    title: None,
                    kind: None,
                    locations: Vec::new(),
                    status: StartStatus::Pending,
                };
                let frame = self.cards.started(&start).unwrap();
                self.send(frame)?;
            }
            Op::DirectFinish { raw, tool } => {
                let id = match raw % 3 {
                    0 => format!("d{raw}"),
                    1 => format!("p{raw}"),
                    _ => format!("q{raw}"),
                };
                let result = ToolResult {
                    status: ResultStatus::Completed,
                    content: vec![],
                    raw_output: Some(OwnedValue::Num(1.0)),
                };
                let frame = self.cards.finished(&id, TOOLS[tool], result).unwrap();
                self.send(frame)?;
            }
            Op::DirectDiscard { raw, tool } => {
                let id = if raw % 2 == 0 {
                    format!("p{raw}")
                } else {
                    format!("d{raw}")
                };
                let frame = self.cards.discarded(&id, TOOLS[tool], None).unwrap();
                self.send(frame)?;
            }
            Op::DirectPermission { raw, tool } => {
                let id = format!("q{raw}");
                let args = json!({"asked": raw});
                self.client.args.insert(id.clone(), args.clone());
                let start = ToolStart {
                    call_id: id.into(),
                    tool_name: TOOLS[tool].into(),
                    raw_input: j(&args),
                    title: None,
                    kind: None,
                    locations: Vec::new(),
                    status: StartStatus::Pending,
                };
                self.ask(&start)?;
            }
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn card_invariants_hold_over_random_sessions(ops in proptest::collection::vec(op(), 0..60)) {
        let mut session = Session {
            cards: ToolCallCards::default(),
            client: Client::default(),
            history: Vec::new(),
            stream: None,
            waiting: HashSet::new(),
        };
        for op in ops {
            session.apply(op)?;
        }
        // End of turn: the stream ends normally, then everything still open
        // is closed. No card is ever left pending.
        session.end(false, Some(2))?;
        let frames = session.cards.close_all(None, None);
        session.send(frames)?;
        prop_assert!(session.client.open.is_empty());
        prop_assert_eq!(session.cards.open_ids().count(), 0);
    }

    #[test]
    fn suppressed_tools_never_get_a_frame(raws in proptest::collection::vec(0u8..4, 1..10)) {
        let mut cards = ToolCallCards::default();
        let mut tracker = PreparationTracker::new();
        for raw in raws {
            let id = format!("t{raw}");
            prop_assert!(tracker.observe(&mut cards, &[DescribedPreparation::new(&id, "todo_write")]).unwrap().is_empty());
            tracker.resolve([Some(id.as_str())]);
            prop_assert!(tracker.discard(&mut cards, raw % 2 == 0, None).unwrap().is_empty());
            let start = ToolStart {
                call_id: id.clone().into(), tool_name: "todo_write".into(), raw_input: OwnedValue::Obj(vec![]),
                title: None, kind: None, locations: vec![], status: StartStatus::InProgress,
            };
            prop_assert!(cards.started(&start).unwrap().is_none());
        }
        prop_assert!(cards.close_all(None, None).is_empty());
    }

    #[test]
    fn normalised_ids_are_unique_and_never_collide_with_history(
        history in proptest::collection::vec(0u8..6, 0..6),
        preps in proptest::collection::vec(0u8..6, 0..6),
        calls in proptest::collection::vec(proptest::option::of(0u8..6), 0..8),
    ) {
        let history: Vec<JsString> = history.iter().map(|n| format!("c{n}").into()).collect();
        let mut ids = ToolCallIds::new(history.clone());
        let prep_raw: Vec<JsString> = preps.iter().map(|n| format!("c{n}").into()).collect();
        let call_raw: Vec<Option<JsString>> = calls.iter().map(|c| c.map(|n| format!("c{n}").into())).collect();
        let (p, c) = ids.apply(&prep_raw, &call_raw);
        let history: HashSet<JsString> = history.into_iter().collect();
        for id in p.iter().chain(c.iter().flatten()) {
            prop_assert!(!history.contains(id), "{id} collides with history");
        }
        // Distinct calls get distinct ids; a call reuses its preparation's id.
        let kept: Vec<&JsString> = c.iter().flatten().collect();
        let unique: HashSet<&JsString> = kept.iter().copied().collect();
        prop_assert_eq!(kept.len(), unique.len());
        for (raw, id) in call_raw.iter().zip(&c) {
            if let (Some(raw), Some(id)) = (raw, id) {
                if let Some(at) = prep_raw.iter().position(|r| r == raw) {
                    prop_assert_eq!(&p[at], id);
                }
            }
        }
    }
}
