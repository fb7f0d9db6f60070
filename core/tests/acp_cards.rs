//! The card ledger: docs/behaviour.md §6.2 frame shapes and the applicable rows of the
//! `tool-call-emitter.test.ts` table (docs/behaviour.md §8.3), plus the ledger's own
//! "no update without an open card" rule.

use serde_json::{json, Value};
use toolcall_stream_core::acp::{
    map_tool_kind, plan_update, tool_provenance, CardPhase, JsString, Location, OwnedValue,
    ProgressReport, ResultStatus, StartStatus, ToolCallCards, ToolResult, ToolStart,
};

/// The core's value of a JSON literal written with serde_json's `json!`.
fn j(v: Value) -> OwnedValue {
    OwnedValue::parse(&v.to_string()).unwrap()
}

/// Equality including key order (the wire order of docs/behaviour.md §6.2).
fn assert_frame(actual: Option<OwnedValue>, expected: Value) {
    let actual = actual.expect("a frame");
    assert_eq!(actual.to_json(), expected.to_string());
}

fn start(call_id: &str, tool_name: &str, raw_input: Value) -> ToolStart {
    ToolStart {
        call_id: call_id.into(),
        tool_name: tool_name.into(),
        raw_input: j(raw_input),
        title: None,
        kind: None,
        locations: Vec::new(),
        status: StartStatus::InProgress,
    }
}

fn result(status: ResultStatus, content: Vec<Value>, raw_output: Option<Value>) -> ToolResult {
    ToolResult {
        status,
        content: content.into_iter().map(j).collect(),
        raw_output: raw_output.map(j),
    }
}

fn text(t: &str) -> Value {
    json!({"type": "content", "content": {"type": "text", "text": t}})
}

// ---- emitStart ----

#[test]
fn should_emit_tool_call_update_with_basic_params_when_tool_not_in_registry() {
    let mut cards = ToolCallCards::default();
    let mut s = start("call-123", "unknown_tool", json!({"arg1": "value1"}));
    s.status = StartStatus::Pending;
    assert_frame(
        cards.started(&s).unwrap(),
        json!({"sessionUpdate": "tool_call", "toolCallId": "call-123", "status": "pending",
               "title": "unknown_tool", "name": "unknown_tool", "content": [], "locations": [], "kind": "other",
               "rawInput": {"arg1": "value1"},
               "_meta": {"toolName": "unknown_tool", "tool_name": "unknown_tool", "provenance": "builtin"}}),
    );
}

#[test]
fn should_emit_tool_call_with_resolved_metadata_when_tool_is_in_registry() {
    let mut cards = ToolCallCards::default();
    let mut s = start("call-1", "edit_file", json!({"path": "/test/file.ts"}));
    s.title = Some("edit_file: Test tool description".into());
    s.kind = Some("edit".into());
    s.locations = vec![Location {
        path: "/test/file.ts".into(),
        line: Some(10),
    }];
    let frame = cards.started(&s).unwrap().unwrap();
    assert_eq!(frame["title"], "edit_file: Test tool description");
    assert_eq!(
        frame["locations"],
        j(json!([{"path": "/test/file.ts", "line": 10}]))
    );
    assert_eq!(frame["kind"], "edit");
    assert_eq!(frame["status"], "in_progress");
}

#[test]
fn should_skip_emit_for_todo_write_tool() {
    let mut cards = ToolCallCards::default();
    assert_eq!(
        cards
            .started(&start("c", "todo_write", json!({"todos": []})))
            .unwrap(),
        None
    );
    assert!(!cards.is_open("c"));
}

#[test]
fn should_handle_empty_args() {
    let mut cards = ToolCallCards::default();
    let frame = cards
        .started(&start("c", "read_file", json!({})))
        .unwrap()
        .unwrap();
    assert_eq!(frame["rawInput"], j(json!({})));
}

#[test]
fn should_fall_back_to_defaults_when_tool_is_unknown() {
    let mut cards = ToolCallCards::default();
    let frame = cards
        .started(&start("c", "mystery", json!({"a": 1})))
        .unwrap()
        .unwrap();
    assert_eq!(frame["title"], "mystery");
    assert_eq!(frame["locations"], j(json!([])));
    assert_eq!(frame["kind"], "other");
}

#[test]
fn should_map_undefined_line_to_null_in_locations() {
    let mut cards = ToolCallCards::default();
    let mut s = start("c", "read_file", json!({}));
    s.locations = vec![Location {
        path: "/a".into(),
        line: None,
    }];
    let frame = cards.started(&s).unwrap().unwrap();
    assert_eq!(frame["locations"], j(json!([{"path": "/a", "line": null}])));
}

// ---- tool preparation lifecycle ----

#[test]
fn emits_a_preparing_tool_call_without_partial_input() {
    let mut cards = ToolCallCards::default();
    assert_frame(
        cards.preparing("call-1", "read_file", None, None).unwrap(),
        json!({"sessionUpdate": "tool_call", "toolCallId": "call-1", "status": "pending",
               "title": "read_file", "name": "read_file", "content": [], "locations": [], "kind": "other",
               "rawInput": {},
               "_meta": {"toolName": "read_file", "tool_name": "read_file", "phase": "preparing", "provenance": "builtin"}}),
    );
    assert_eq!(cards.phase("call-1"), Some(CardPhase::Preparing));
}

#[test]
fn preparing_uses_the_described_title_and_kind() {
    let mut cards = ToolCallCards::default();
    let frame = cards
        .preparing(
            "c",
            "read_file",
            Some("ReadFile".into()),
            Some("read".into()),
        )
        .unwrap()
        .unwrap();
    assert_eq!(frame["title"], "ReadFile");
    assert_eq!(frame["kind"], "read");
}

#[test]
fn suppresses_duplicate_preparing_frames_for_the_same_call_id() {
    let mut cards = ToolCallCards::default();
    assert!(cards
        .preparing("call-1", "read_file", None, None)
        .unwrap()
        .is_some());
    assert_eq!(
        cards.preparing("call-1", "read_file", None, None).unwrap(),
        None
    );
}

#[test]
fn updates_the_prepared_tool_call_when_execution_starts() {
    let mut cards = ToolCallCards::default();
    let first = cards
        .preparing("call-1", "read_file", None, None)
        .unwrap()
        .unwrap();
    assert_eq!(first["sessionUpdate"], "tool_call");
    let mut s = start("call-1", "read_file", json!({"file_path": "README.md"}));
    s.title = Some("ReadFile: README.md".into());
    s.kind = Some("read".into());
    assert_frame(
        cards.started(&s).unwrap(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "in_progress",
               "title": "ReadFile: README.md", "content": [], "locations": [], "kind": "read",
               "rawInput": {"file_path": "README.md"},
               "_meta": {"toolName": "read_file", "tool_name": "read_file", "provenance": "builtin"}}),
    );
    assert_eq!(cards.phase("call-1"), Some(CardPhase::Started));
}

#[test]
fn emits_a_protocol_valid_discarded_preparation_terminal_update() {
    let mut cards = ToolCallCards::default();
    cards
        .preparing("call-1", "mcp__filesystem__read_file", None, None)
        .unwrap();
    assert_frame(
        cards
            .discarded("call-1", "mcp__filesystem__read_file", None)
            .unwrap(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "failed",
               "title": "mcp__filesystem__read_file · not run", "content": [],
               "_meta": {"toolName": "mcp__filesystem__read_file", "tool_name": "mcp__filesystem__read_file", "phase": "preparing",
                         "preparationDiscarded": true, "provenance": "mcp", "serverId": "filesystem"}}),
    );
    assert!(!cards.is_open("call-1"));
}

#[test]
fn clears_prepared_state_after_terminal_result() {
    let mut cards = ToolCallCards::default();
    cards.preparing("call-1", "read_file", None, None).unwrap();
    cards
        .finished(
            "call-1",
            "read_file",
            result(ResultStatus::Completed, vec![], None),
        )
        .unwrap();
    let again = cards
        .preparing("call-1", "read_file", None, None)
        .unwrap()
        .unwrap();
    assert_eq!(again["sessionUpdate"], "tool_call");
}

#[test]
fn clears_prepared_state_after_terminal_error() {
    let mut cards = ToolCallCards::default();
    cards.preparing("call-1", "read_file", None, None).unwrap();
    cards
        .finished(
            "call-1",
            "read_file",
            result(ResultStatus::Failed, vec![text("boom")], None),
        )
        .unwrap();
    let again = cards
        .preparing("call-1", "read_file", None, None)
        .unwrap()
        .unwrap();
    assert_eq!(again["sessionUpdate"], "tool_call");
}

#[test]
fn suppresses_preparation_lifecycle_frames_for_todo_write() {
    let mut cards = ToolCallCards::default();
    assert_eq!(
        cards.preparing("call-1", "todo_write", None, None).unwrap(),
        None
    );
    assert_eq!(cards.discarded("call-1", "todo_write", None).unwrap(), None);
    assert_eq!(
        cards
            .finished(
                "call-1",
                "todo_write",
                result(ResultStatus::Completed, vec![], None)
            )
            .unwrap(),
        None
    );
}

#[test]
fn custom_suppressed_tools_replace_the_default() {
    let mut cards = ToolCallCards::new(Some(vec!["secret".into()]));
    assert_eq!(cards.preparing("a", "secret", None, None).unwrap(), None);
    assert!(cards
        .preparing("b", "todo_write", None, None)
        .unwrap()
        .is_some());
}

// ---- emitResult / emitError ----

#[test]
fn should_emit_tool_call_update_with_completed_status_on_success() {
    let mut cards = ToolCallCards::default();
    cards
        .started(&start("call-1", "read_file", json!({})))
        .unwrap();
    assert_frame(
        cards
            .finished(
                "call-1",
                "read_file",
                result(ResultStatus::Completed, vec![text("ok")], Some(json!("ok"))),
            )
            .unwrap(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed",
               "content": [text("ok")],
               "_meta": {"toolName": "read_file", "tool_name": "read_file", "provenance": "builtin"}, "rawOutput": "ok"}),
    );
}

#[test]
fn should_emit_tool_call_update_with_failed_status_on_failure_without_raw_output() {
    let mut cards = ToolCallCards::default();
    cards
        .started(&start("call-1", "read_file", json!({})))
        .unwrap();
    assert_frame(
        cards
            .finished(
                "call-1",
                "read_file",
                result(
                    ResultStatus::Failed,
                    vec![text("Something went wrong")],
                    None,
                ),
            )
            .unwrap(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "failed",
               "content": [text("Something went wrong")],
               "_meta": {"toolName": "read_file", "tool_name": "read_file", "provenance": "builtin"}}),
    );
}

#[test]
fn should_handle_diff_display_format() {
    let mut cards = ToolCallCards::default();
    cards.started(&start("c", "write_file", json!({}))).unwrap();
    let diff = json!({"type": "diff", "path": "/a", "oldText": "", "newText": "x"});
    let display = json!({"fileName": "a", "newContent": "x"});
    let frame = cards
        .finished(
            "c",
            "write_file",
            result(
                ResultStatus::Completed,
                vec![diff.clone()],
                Some(display.clone()),
            ),
        )
        .unwrap()
        .unwrap();
    assert_eq!(frame["content"], j(json!([diff])));
    assert_eq!(frame["rawOutput"], j(display));
}

#[test]
fn should_handle_empty_message_parts() {
    let mut cards = ToolCallCards::default();
    cards.started(&start("c", "read_file", json!({}))).unwrap();
    assert_frame(
        cards
            .finished(
                "c",
                "read_file",
                result(ResultStatus::Completed, vec![], None),
            )
            .unwrap(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed", "content": [],
               "_meta": {"toolName": "read_file", "tool_name": "read_file", "provenance": "builtin"}}),
    );
}

#[test]
fn a_null_raw_output_is_still_sent() {
    let mut cards = ToolCallCards::default();
    cards.started(&start("c", "read_file", json!({}))).unwrap();
    let frame = cards
        .finished(
            "c",
            "read_file",
            ToolResult::from_json(r#"{"status":"completed","rawOutput":null}"#).unwrap(),
        )
        .unwrap()
        .unwrap();
    assert_eq!(frame.get("rawOutput"), Some(&OwnedValue::Null));
}

#[test]
fn provenance_is_stamped_on_start_result_and_error() {
    let mut cards = ToolCallCards::default();
    let name = "mcp__github__create_issue";
    let s = cards
        .started(&start("a", name, json!({})))
        .unwrap()
        .unwrap();
    assert_eq!(
        s["_meta"],
        j(json!({"toolName": name, "tool_name": name, "provenance": "mcp", "serverId": "github"}))
    );
    let r = cards
        .finished("a", name, result(ResultStatus::Completed, vec![], None))
        .unwrap()
        .unwrap();
    assert_eq!(
        r["_meta"],
        j(json!({"toolName": name, "tool_name": name, "provenance": "mcp", "serverId": "github"}))
    );
    cards.started(&start("b", name, json!({}))).unwrap();
    let e = cards
        .finished(
            "b",
            name,
            result(ResultStatus::Failed, vec![text("x")], None),
        )
        .unwrap()
        .unwrap();
    assert_eq!(e["_meta"]["serverId"], "github");
}

// ---- the ledger's own rules ----

#[test]
fn no_update_is_built_for_an_id_without_an_open_card() {
    let mut cards = ToolCallCards::default();
    assert_eq!(
        cards
            .finished(
                "nope",
                "read_file",
                result(ResultStatus::Completed, vec![], None)
            )
            .unwrap(),
        None
    );
    assert_eq!(cards.discarded("nope", "read_file", None).unwrap(), None);
    cards.preparing("a", "read_file", None, None).unwrap();
    cards.discarded("a", "read_file", None).unwrap();
    // A second terminal frame for the same card is refused too.
    assert_eq!(cards.discarded("a", "read_file", None).unwrap(), None);
    assert_eq!(
        cards
            .finished("a", "read_file", result(ResultStatus::Failed, vec![], None))
            .unwrap(),
        None
    );
}

#[test]
fn starting_an_open_unprepared_card_again_is_an_update() {
    let mut cards = ToolCallCards::default();
    let mut s = start("a", "read_file", json!({"p": 1}));
    s.status = StartStatus::Pending;
    assert_eq!(
        cards.started(&s).unwrap().unwrap()["sessionUpdate"],
        "tool_call"
    );
    s.status = StartStatus::InProgress;
    let again = cards.started(&s).unwrap().unwrap();
    assert_eq!(again["sessionUpdate"], "tool_call_update");
    assert_eq!(again["status"], "in_progress");
}

#[test]
fn a_prepared_card_whose_call_comes_back_under_a_suppressed_name_still_ends() {
    // Found by the property test: suppression stops a card from opening, but
    // never leaves an open one without its terminal frame.
    let mut cards = ToolCallCards::default();
    cards.preparing("c", "write_file", None, None).unwrap();
    let s = cards
        .started(&start("c", "todo_write", json!({"todos": []})))
        .unwrap()
        .unwrap();
    assert_eq!(s["sessionUpdate"], "tool_call_update");
    let r = cards
        .finished(
            "c",
            "todo_write",
            result(ResultStatus::Completed, vec![], None),
        )
        .unwrap()
        .unwrap();
    assert_eq!(r["status"], "completed");
    assert!(!cards.is_open("c"));
}

#[test]
fn close_all_ends_every_open_card_in_opening_order() {
    let mut cards = ToolCallCards::default();
    cards.preparing("p", "mcp__fs__read", None, None).unwrap();
    cards
        .started(&start("s", "shell", json!({"cmd": "ls"})))
        .unwrap();
    cards.preparing("done", "read_file", None, None).unwrap();
    cards.discarded("done", "read_file", None).unwrap();
    let frames = cards.close_all(None, None);
    assert_eq!(frames.len(), 2);
    assert_eq!(
        frames[0].to_string(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "p", "status": "failed",
               "title": "mcp__fs__read · not run", "content": [],
               "_meta": {"toolName": "mcp__fs__read", "tool_name": "mcp__fs__read", "phase": "preparing", "preparationDiscarded": true,
                         "provenance": "mcp", "serverId": "fs"}})
        .to_string()
    );
    assert_eq!(
        frames[1].to_string(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "s", "status": "failed",
               "content": [text("Tool execution was cancelled")],
               "_meta": {"toolName": "shell", "tool_name": "shell", "provenance": "builtin"}})
        .to_string()
    );
    assert!(cards.close_all(None, None).is_empty());
    assert_eq!(cards.open_ids().count(), 0);
}

#[test]
fn bad_input_is_an_invalid_argument_error() {
    let mut cards = ToolCallCards::default();
    let err = cards.preparing("", "read_file", None, None).unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
    assert!(cards.started(&start("", "x", json!({}))).is_err());
    assert!(cards.started(&start("a", "x", json!([1]))).is_err());
    for bad in [
        "not json",
        "[]",
        r#"{"toolName":"x"}"#,
        r#"{"callId":"a","toolName":"x","rawInput":"s"}"#,
        r#"{"callId":"a","toolName":"x","locations":[{"line":1}]}"#,
        r#"{"callId":"a","toolName":"x","locations":[{"path":"/a","line":-1}]}"#,
        r#"{"callId":"a","toolName":"x","status":"completed"}"#,
    ] {
        assert_eq!(
            ToolStart::from_json(bad).unwrap_err().code.as_str(),
            "INVALID_ARGUMENT",
            "{bad}"
        );
    }
    for bad in [
        r#"{"status":"done"}"#,
        r#"{"status":"failed","content":{}}"#,
        r#"{"status":"failed","content":[1]}"#,
    ] {
        assert!(ToolResult::from_json(bad).is_err(), "{bad}");
    }
}

#[test]
fn tool_start_from_json_reads_every_field() {
    let s = ToolStart::from_json(
        r#"{"callId":"a","toolName":"t","rawInput":{"z":1,"a":2},"title":"T","kind":"read",
            "locations":[{"path":"/p","line":3},{"path":"/q"}],"status":"pending"}"#,
    )
    .unwrap();
    assert_eq!(
        s.raw_input.to_string(),
        r#"{"z":1,"a":2}"#,
        "argument key order is kept"
    );
    assert_eq!(s.title, Some("T".into()));
    assert_eq!(
        s.locations,
        vec![
            Location {
                path: "/p".into(),
                line: Some(3)
            },
            Location {
                path: "/q".into(),
                line: None
            }
        ]
    );
    assert_eq!(s.status, StartStatus::Pending);
}

/// [`plan_update`] over JSON literals.
fn plan(args: Option<&Value>, display: Option<&Value>) -> Option<OwnedValue> {
    plan_update(
        args.cloned().map(j).as_ref(),
        display.cloned().map(j).as_ref(),
    )
}

// ---- TodoWrite → plan (docs/behaviour.md §6.3) ----

#[test]
fn todo_write_emits_plan_update_from_result_display() {
    let display = json!({"type": "todo_list", "todos": [
        {"id": "1", "content": "a", "status": "pending"},
        {"id": "2", "content": "b", "status": "completed"}]});
    assert_frame(
        plan(Some(&json!({"todos": []})), Some(&display)),
        json!({"sessionUpdate": "plan", "entries": [
            {"content": "a", "priority": "medium", "status": "pending"},
            {"content": "b", "priority": "medium", "status": "completed"}]}),
    );
}

#[test]
fn todo_write_uses_args_as_fallback() {
    let args = json!({"todos": [{"content": "x", "status": "in_progress"}]});
    let frame = plan(Some(&args), Some(&Value::Null)).unwrap();
    assert_eq!(
        frame["entries"],
        j(json!([{"content": "x", "priority": "medium", "status": "in_progress"}]))
    );
}

#[test]
fn todo_write_reads_a_json_text_display() {
    let display = json!(r#"{"type":"todo_list","todos":[{"content":"s","status":"pending"}]}"#);
    assert_eq!(
        plan(None, Some(&display)).unwrap()["entries"][0]["content"],
        "s"
    );
}

#[test]
fn todo_write_reads_a_json_text_display_keeping_lone_surrogates() {
    // `JSON.parse(text)` keeps a lone surrogate inside a string literal,
    // raw in the text or escaped.
    let text: Vec<u16> = r#"{"type":"todo_list","todos":[{"content":"a"#
        .encode_utf16()
        .chain([0xD800])
        .chain(r#"b\udc00","status":"pending"}]}"#.encode_utf16())
        .collect();
    let display = OwnedValue::Str(JsString::from_utf16(&text));
    let frame = plan_update(None, Some(&display)).unwrap();
    assert_eq!(
        frame["entries"][0]["content"].as_str().unwrap().escaped(),
        r"a\ud800b\udc00"
    );
}

#[test]
fn todo_write_emits_nothing_without_todos() {
    assert_eq!(
        plan(None, Some(&json!({"type": "todo_list", "todos": []}))),
        None
    );
    assert_eq!(plan(None, Some(&json!("plain text result"))), None);
    assert_eq!(plan(None, None), None);
}

#[test]
fn todo_write_emits_empty_plan_when_args_had_todos_but_result_has_none() {
    let args = json!({"todos": [{"content": "x", "status": "pending"}]});
    assert_frame(
        plan(
            Some(&args),
            Some(&json!({"type": "todo_list", "todos": []})),
        ),
        json!({"sessionUpdate": "plan", "entries": []}),
    );
    assert_frame(
        plan(Some(&json!({"todos": []})), None),
        json!({"sessionUpdate": "plan", "entries": []}),
    );
}

#[test]
fn todo_write_skips_entries_that_are_not_plan_entries() {
    let args = json!({"todos": [{"content": 1, "status": "pending"}, {"content": "ok", "status": "weird"},
                                 {"content": "keep", "status": "completed"}, "str"]});
    let frame = plan(Some(&args), None).unwrap();
    assert_eq!(
        frame["entries"],
        j(json!([{"content": "keep", "priority": "medium", "status": "completed"}]))
    );
}

// ---- mapToolKind / resolveToolProvenance ----

#[test]
fn should_map_all_kind_values_correctly() {
    for (kind, acp) in [
        ("read", "read"),
        ("edit", "edit"),
        ("delete", "delete"),
        ("move", "move"),
        ("search", "search"),
        ("execute", "execute"),
        ("think", "think"),
        ("fetch", "fetch"),
        ("agent", "other"),
        ("other", "other"),
        ("bogus", "other"),
    ] {
        assert_eq!(map_tool_kind("some_tool", Some(kind)), acp, "{kind}");
    }
    assert_eq!(map_tool_kind("some_tool", None), "other");
}

#[test]
fn should_map_plan_mode_tools_to_switch_mode_kind() {
    assert_eq!(
        map_tool_kind("exit_plan_mode", Some("think")),
        "switch_mode"
    );
    assert_eq!(map_tool_kind("enter_plan_mode", None), "switch_mode");
    assert_eq!(map_tool_kind("other_tool", Some("think")), "think");
}

#[test]
fn resolve_tool_provenance() {
    let p = |n| {
        let p = tool_provenance(n);
        (p.provenance, p.server_id)
    };
    assert_eq!(p("shell"), ("builtin", None));
    assert_eq!(p("read_file"), ("builtin", None));
    assert_eq!(p("mcp__filesystem__read"), ("mcp", Some("filesystem")));
    assert_eq!(
        p("mcp__playwright__take_screenshot"),
        ("mcp", Some("playwright"))
    );
    assert_eq!(p("mcp__just_one"), ("builtin", None));
    assert_eq!(p("mcp____read"), ("builtin", None));
    assert_eq!(p("mcp__srv__a__b"), ("mcp", Some("srv")));
}

fn write_start(call_id: &str) -> ToolStart {
    ToolStart {
        call_id: call_id.into(),
        tool_name: "write_file".into(),
        raw_input: j(json!({"path": "a.txt", "content": "hi"})),
        title: Some("WriteFile: a.txt".into()),
        kind: Some("edit".into()),
        locations: vec![Location {
            path: "/ws/a.txt".into(),
            line: None,
        }],
        status: StartStatus::Pending,
    }
}

#[test]
fn permission_request_for_a_prepared_card_is_the_same_card() {
    let mut cards = ToolCallCards::default();
    cards
        .preparing(
            "call-1",
            "write_file",
            Some("WriteFile".into()),
            Some("edit".into()),
        )
        .unwrap()
        .unwrap();
    let diff = json!({"type": "diff", "path": "/ws/a.txt", "oldText": "", "newText": "hi"});
    let tool_call = cards
        .permission(&write_start("call-1"), vec![j(diff.clone())])
        .unwrap()
        .unwrap();
    assert_frame(
        Some(tool_call.clone()),
        json!({
            "toolCallId": "call-1", "status": "pending", "title": "WriteFile: a.txt",
            "content": [diff], "locations": [{"path": "/ws/a.txt", "line": null}],
            "kind": "edit", "rawInput": {"path": "a.txt", "content": "hi"},
            "_meta": {"toolName": "write_file", "tool_name": "write_file"}
        }),
    );
    // The frame as written, keys in the order they are written.
    let written: serde_json::Value = serde_json::from_str(&tool_call.to_json()).unwrap();
    let keys: Vec<&str> = written
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "toolCallId",
            "status",
            "title",
            "content",
            "locations",
            "kind",
            "rawInput",
            "_meta"
        ]
    );
    assert_eq!(cards.phase("call-1"), Some(CardPhase::Permission));
    let rejected = cards
        .finished(
            "call-1",
            "write_file",
            ToolResult {
                status: ResultStatus::Failed,
                content: vec![],
                raw_output: None,
            },
        )
        .unwrap()
        .unwrap();
    assert_eq!(rejected["sessionUpdate"], "tool_call_update");
    assert_eq!(rejected["status"], "failed");
    assert!(!cards.is_open("call-1"));
    assert!(cards.close_all(None, None).is_empty());
}

#[test]
fn permission_request_opens_a_card_for_an_unprepared_call_and_it_still_ends() {
    let mut cards = ToolCallCards::default();
    cards
        .permission(&write_start("call-2"), vec![])
        .unwrap()
        .unwrap();
    assert!(cards.is_open("call-2"));
    // Left unanswered (cancel): close_all fails it, once.
    let frames = cards.close_all(Some("Tool execution was cancelled".into()), None);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["toolCallId"], "call-2");
    assert_eq!(frames[0]["sessionUpdate"], "tool_call_update");
    assert_eq!(frames[0]["status"], "failed");
    assert!(cards.close_all(None, None).is_empty());
    // Allowed: the terminal frame is an update for the request's card.
    cards
        .permission(&write_start("call-3"), vec![])
        .unwrap()
        .unwrap();
    let done = cards
        .finished(
            "call-3",
            "write_file",
            ToolResult {
                status: ResultStatus::Completed,
                content: vec![],
                raw_output: None,
            },
        )
        .unwrap()
        .unwrap();
    assert_eq!(done["status"], "completed");
}

#[test]
fn permission_is_never_asked_for_a_suppressed_tool_and_rejects_bad_content() {
    let mut cards = ToolCallCards::default();
    let mut start = write_start("call-4");
    start.tool_name = "todo_write".into();
    assert!(cards.permission(&start, vec![]).unwrap().is_none());
    assert!(!cards.is_open("call-4"));
    let err = cards
        .permission(&write_start("call-5"), vec![OwnedValue::Num(1.0)])
        .unwrap_err();
    assert_eq!(err.code, toolcall_stream_core::ErrorCode::InvalidArgument);
    assert!(!cards.is_open("call-5"));
}

const RECEIVING: ProgressReport = ProgressReport {
    argument_bytes: 40_448,
    argument_lines: 812,
    elapsed_ms: 2_600,
    idle_ms: 40,
    stalled: None,
};

#[test]
fn a_preparing_card_gets_progress_frames_and_no_other_card_does() {
    let mut cards = ToolCallCards::default();
    assert!(
        cards.progress("a", None, &RECEIVING, None).is_none(),
        "never opened"
    );
    cards
        .preparing("a", "write_file", Some("WriteFile".into()), None)
        .unwrap();
    assert_frame(
        cards.progress("a", Some("WriteFile".into()), &RECEIVING, None),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "a",
               "title": "WriteFile · receiving 39.5 KB, 812 lines",
               "_meta": {"phase": "preparing",
                         "progress": {"argumentBytes": 40448, "argumentLines": 812,
                                      "elapsedMs": 2600, "idleMs": 40}}}),
    );
    let title = |f: Option<OwnedValue>| f.map(|f| f.to_json());
    assert!(
        title(cards.progress("a", None, &RECEIVING, None))
            .unwrap()
            .contains("write_file · receiving"),
        "without a title, the tool name"
    );

    // Suppressed: no card, so no progress.
    assert!(cards
        .preparing("t", "todo_write", None, None)
        .unwrap()
        .is_none());
    assert!(cards.progress("t", None, &RECEIVING, None).is_none());

    // Started, permission, finished, discarded: no progress after any of them.
    cards.preparing("s", "shell", None, None).unwrap();
    cards
        .started(&start("s", "shell", json!({"command": "ls"})))
        .unwrap();
    assert!(
        cards.progress("s", None, &RECEIVING, None).is_none(),
        "after the start"
    );
    cards.preparing("p", "shell", None, None).unwrap();
    cards
        .permission(&start("p", "shell", json!({})), Vec::new())
        .unwrap();
    assert!(
        cards.progress("p", None, &RECEIVING, None).is_none(),
        "after a permission request"
    );
    cards.discarded("a", "write_file", None).unwrap();
    assert!(
        cards.progress("a", None, &RECEIVING, None).is_none(),
        "after the discard"
    );
    cards.preparing("f", "read_file", None, None).unwrap();
    cards
        .finished(
            "f",
            "read_file",
            ToolResult::from_json(r#"{"status":"failed"}"#).unwrap(),
        )
        .unwrap();
    assert!(
        cards.progress("f", None, &RECEIVING, None).is_none(),
        "after the terminal frame"
    );
}

// ---- ACP's `name`, and what a frame carries of a name or a title ----

#[test]
fn name_is_on_every_tool_call_and_on_an_update_only_when_it_changes() {
    let mut cards = ToolCallCards::default();
    let preparing = cards
        .preparing("a", "read_file", None, None)
        .unwrap()
        .unwrap();
    assert_eq!(preparing["name"], "read_file");
    let same = cards
        .started(&start("a", "read_file", json!({})))
        .unwrap()
        .unwrap();
    assert_eq!(same["sessionUpdate"], "tool_call_update");
    assert!(same.get("name").is_none(), "the card already has that name");

    // The call came back under another name: the update says so, once.
    cards.preparing("b", "read_file", None, None).unwrap();
    let renamed = cards
        .started(&start("b", "read_many_files", json!({})))
        .unwrap()
        .unwrap();
    assert_eq!(renamed["name"], "read_many_files");
    let again = cards
        .started(&start("b", "read_many_files", json!({})))
        .unwrap()
        .unwrap();
    assert!(again.get("name").is_none());

    // An unprepared start opens the card: a tool_call, named.
    let opened = cards
        .started(&start("c", "shell", json!({})))
        .unwrap()
        .unwrap();
    assert_eq!(opened["sessionUpdate"], "tool_call");
    assert_eq!(opened["name"], "shell");

    // A permission request names the card it opens, not one already named.
    let asked = cards
        .permission(&write_start("d"), vec![])
        .unwrap()
        .unwrap();
    assert_eq!(asked["name"], "write_file");
    cards.preparing("e", "write_file", None, None).unwrap();
    let prepared = cards
        .permission(&write_start("e"), vec![])
        .unwrap()
        .unwrap();
    assert!(prepared.get("name").is_none());

    // Terminal frames never change the name.
    let done = cards.finished(
        "a",
        "read_file",
        result(ResultStatus::Completed, vec![], None),
    );
    assert!(done.unwrap().unwrap().get("name").is_none());
    for frame in cards.close_all(None, None) {
        assert!(frame.get("name").is_none());
    }
}

#[test]
fn a_huge_hostile_name_is_bounded_in_every_frame_and_printable_in_titles() {
    let name = format!(
        "mcp__srv__x\u{1b}[2J\n\u{202e}\u{2066}\u{85}\u{0}{}",
        "n".repeat(4 << 20)
    );
    let mut cards = ToolCallCards::default();
    let mut frames = vec![cards
        .preparing("a", name.as_str(), None, None)
        .unwrap()
        .unwrap()];
    frames.push(cards.progress("a", None, &RECEIVING, None).unwrap());
    frames.push(cards.discarded("a", name.as_str(), None).unwrap().unwrap());
    frames.push(
        cards
            .started(&start("b", &name, json!({})))
            .unwrap()
            .unwrap(),
    );
    frames.push(
        cards
            .finished(
                "b",
                name.as_str(),
                result(ResultStatus::Failed, vec![], None),
            )
            .unwrap()
            .unwrap(),
    );
    let mut asked = start("c", &name, json!({}));
    asked.title = Some(name.as_str().into());
    frames.push(cards.permission(&asked, vec![]).unwrap().unwrap());
    frames.extend(cards.close_all(None, None));
    assert_eq!(frames.len(), 7);
    for frame in &frames {
        let text = frame.to_json();
        assert!(text.len() < 2048, "{} bytes: {}", text.len(), &text[..300]);
        let value: Value = serde_json::from_str(&text).unwrap();
        if let Some(title) = value.get("title").and_then(Value::as_str) {
            assert!(
                !title.chars().any(|c| c.is_control()
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
                "{title:?}"
            );
        }
        for name in [
            &value["name"],
            &value["_meta"]["toolName"],
            &value["_meta"]["tool_name"],
        ] {
            if let Some(name) = name.as_str() {
                // Data, cut but not cleaned.
                assert_eq!(name.chars().count(), 120);
                assert!(name.starts_with("mcp__srv__x\u{1b}[2J\n") && name.ends_with("nn…"));
            }
        }
    }
    // The card's title, from the name: its printable first 120 characters.
    let title = frames[0]["title"].to_json();
    assert!(title.starts_with(r#""mcp__srv__x[2J  nnn"#), "{title}");
    assert_eq!(frames[0]["_meta"]["provenance"], "mcp");
    assert_eq!(frames[0]["_meta"]["serverId"], "srv");

    // A server's name is bounded as a tool name is.
    let long_server = format!("mcp__{}__read", "s".repeat(300));
    let frame = cards
        .preparing("d", long_server.as_str(), None, None)
        .unwrap()
        .unwrap();
    assert_eq!(
        frame["_meta"]["serverId"],
        format!("{}…", "s".repeat(119)).as_str()
    );
}

#[test]
fn a_card_with_an_id_too_long_for_progress_keeps_the_frame_it_opened_with() {
    let mut cards = ToolCallCards::default();
    let long = "i".repeat(257);
    assert!(cards
        .preparing(long.as_str(), "write_file", None, None)
        .unwrap()
        .is_some());
    assert!(cards
        .progress(long.as_str(), None, &RECEIVING, None)
        .is_none());
    let fits = "i".repeat(256);
    cards
        .preparing(fits.as_str(), "write_file", None, None)
        .unwrap();
    assert!(cards
        .progress(fits.as_str(), None, &RECEIVING, None)
        .is_some());
}

#[test]
fn a_discard_says_why_on_the_cards_own_title() {
    use toolcall_stream_core::acp::{DiscardCause, DiscardReason};
    let mut cards = ToolCallCards::default();
    cards
        .preparing("a", "write_file", Some("WriteFile".into()), None)
        .unwrap();
    let idle = DiscardCause {
        reason: DiscardReason::IdleTimeout,
        idle_limit_ms: Some(240_000),
    };
    assert_frame(
        cards.discarded("a", "write_file", Some(&idle)).unwrap(),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "a", "status": "failed",
               "title": "WriteFile · not run: no data for 240 s", "content": [],
               "_meta": {"toolName": "write_file", "tool_name": "write_file", "phase": "preparing",
                         "preparationDiscarded": true, "discardReason": "idle-timeout", "idleLimitMs": 240000,
                         "provenance": "builtin"}}),
    );
    cards
        .preparing("b", "write_file", Some("WriteFile".into()), None)
        .unwrap();
    let cancel = DiscardCause::new(DiscardReason::Cancel);
    let frames = cards.close_all(None, Some(&cancel));
    assert_eq!(
        frames[0]
            .get("title")
            .and_then(|t| t.as_str())
            .map(|t| t.to_string()),
        Some("WriteFile · not run: cancelled".to_string())
    );
}
