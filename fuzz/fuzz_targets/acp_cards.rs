//! The ACP card ledger, preparation tracker and id table under arbitrary
//! operation sequences: never panics; a client that sees the frames never
//! gets an update for an id it has no open card for, never a second
//! `tool_call` for an open card, and after `close_all` every opened card has
//! ended with exactly one terminal frame.
#![no_main]

use std::collections::{HashMap, HashSet};

use libfuzzer_sys::fuzz_target;
use toolcall_stream_core::acp::{
    DescribedPreparation, DiscardCause, DiscardReason, JsString, OwnedValue, PreparationTracker,
    ResultStatus, SessionUpdate, StartStatus, ToolCallCards, ToolCallIds, ToolResult, ToolStart,
};

const IDS: [&str; 5] = ["a", "b", "c", "a__qwen_dup_2", "call_qwen_1"];

/// `IDS`, then two ids that differ only in a lone surrogate (which a Rust
/// `String` would have made the same U+FFFD).
fn ids_table() -> Vec<JsString> {
    let mut ids: Vec<JsString> = IDS.iter().map(|&id| id.into()).collect();
    ids.push(JsString::from_utf16(&[0x61, 0xD800]));
    ids.push(JsString::from_utf16(&[0x61, 0xD801]));
    ids
}
const TOOLS: [&str; 4] = ["read_file", "todo_write", "mcp__fs__write", "shell"];

#[derive(Default)]
struct Client {
    open: HashSet<JsString>,
    opened: HashMap<JsString, usize>,
    terminals: HashMap<JsString, usize>,
}

impl Client {
    fn receive(&mut self, f: &SessionUpdate) {
        let id = f["toolCallId"].as_str().expect("a tool frame names its id");
        assert!(!id.is_empty());
        match f["sessionUpdate"].as_str().map(JsString::escaped) {
            Some("tool_call") => {
                assert!(self.open.insert(id.to_owned()), "tool_call for open {id}");
                *self.opened.entry(id.to_owned()).or_default() += 1;
                assert_ne!(f["_meta"]["toolName"], "todo_write");
            }
            Some("tool_call_update") => {
                assert!(self.open.contains(id), "update for unknown id {id}");
                if matches!(
                    f["status"].as_str().map(JsString::escaped),
                    Some("completed" | "failed")
                ) {
                    self.open.remove(id);
                    *self.terminals.entry(id.to_owned()).or_default() += 1;
                }
            }
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

/// A discard's cause chosen by the input: none (a neutral "not run"), each
/// reason, and an idle timeout with its limit.
fn cause_of(arg: usize) -> Option<DiscardCause> {
    let reason = match arg % 7 {
        0 => return None,
        1 => DiscardReason::Retry,
        2 => DiscardReason::Fallback,
        3 => DiscardReason::Cancel,
        4 => DiscardReason::StreamError,
        _ => DiscardReason::IdleTimeout,
    };
    Some(DiscardCause {
        reason,
        idle_limit_ms: (arg % 7 == 6).then_some(arg as u64 * 1000),
    })
}

fuzz_target!(|data: &[u8]| {
    let mut cards = ToolCallCards::new(None);
    let mut tracker = PreparationTracker::new();
    let mut ids = ToolCallIds::new(["a"]);
    let mut client = Client::default();
    let table = ids_table();
    for pair in data.chunks(2) {
        let op = pair[0];
        let arg = usize::from(*pair.get(1).unwrap_or(&0));
        let id = &table[arg % table.len()];
        let tool = TOOLS[(arg / table.len()) % TOOLS.len()];
        let frames: Vec<SessionUpdate> = match op % 9 {
            0 => tracker
                .observe(&mut cards, &[DescribedPreparation::new(id, tool)])
                .unwrap(),
            1 => {
                tracker.resolve([Some(id)]);
                Vec::new()
            }
            2 => tracker
                .discard(&mut cards, arg % 2 == 0, cause_of(arg).as_ref())
                .unwrap(),
            3 => {
                let start = ToolStart {
                    call_id: id.into(),
                    tool_name: tool.into(),
                    raw_input: OwnedValue::object([("n", OwnedValue::Num(arg as f64))]),
                    title: None,
                    kind: None,
                    locations: Vec::new(),
                    status: if arg % 2 == 0 {
                        StartStatus::Pending
                    } else {
                        StartStatus::InProgress
                    },
                };
                cards.started(&start).unwrap().into_iter().collect()
            }
            4 => {
                let result = ToolResult {
                    status: if arg % 2 == 0 {
                        ResultStatus::Completed
                    } else {
                        ResultStatus::Failed
                    },
                    content: Vec::new(),
                    raw_output: None,
                };
                cards
                    .finished(id, tool, result)
                    .unwrap()
                    .into_iter()
                    .collect()
            }
            5 => cards
                .discarded(id, tool, cause_of(arg).as_ref())
                .unwrap()
                .into_iter()
                .collect(),
            6 => cards.close_all(None, cause_of(arg).as_ref()),
            7 => {
                // A retry: the abandoned attempt's cards go, a new attempt
                // normalises ids from the same history.
                let frames = tracker
                    .discard(&mut cards, true, cause_of(arg).as_ref())
                    .unwrap();
                tracker = PreparationTracker::new();
                ids = ToolCallIds::new(["a"]);
                frames
            }
            _ => {
                let (preps, calls) = ids.apply(&[id.into()], &[Some(id.into()), None]);
                assert_eq!(preps[0], ids.reserve(id), "a reservation is stable");
                if let Some(call) = &calls[0] {
                    assert_eq!(call, &preps[0], "a call takes its preparation's id");
                }
                assert!(calls[1]
                    .as_ref()
                    .is_some_and(|g| g.escaped().starts_with("call_qwen_")));
                Vec::new()
            }
        };
        for f in &frames {
            client.receive(f);
        }
        for open in cards.open_ids() {
            assert!(client.open.contains(open), "ledger and client agree");
        }
        assert_eq!(cards.open_ids().count(), client.open.len());
    }
    for f in tracker.discard(&mut cards, true, None).unwrap() {
        client.receive(&f);
    }
    for f in cards.close_all(None, None) {
        client.receive(&f);
    }
    assert!(client.open.is_empty());
    assert_eq!(
        client.opened, client.terminals,
        "one terminal frame per card"
    );
});
