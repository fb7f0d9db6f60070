//! TodoWrite's `plan` update (docs/behaviour.md §6.3): the frame that takes
//! the place of a TodoWrite card, from the tool's result display or its
//! arguments.

use super::frames::{frame_json, parse_json, JsString, OwnedValue, Result, SessionUpdate};

/// `normalizeTodos`: keep objects with a string `content` and a plan status.
fn normalize_todos(values: &[OwnedValue]) -> Vec<(JsString, JsString)> {
    values
        .iter()
        .filter_map(|v| {
            let content = v.get("content")?.as_str()?;
            let status = v.get("status")?.as_str()?;
            ["pending", "in_progress", "completed"]
                .contains(&status.escaped())
                .then(|| (content.clone(), status.clone()))
        })
        .collect()
}

fn todos_from_display(display: &OwnedValue) -> Option<Vec<(JsString, JsString)>> {
    let todo_list = |v: &OwnedValue| -> Option<Option<Vec<(JsString, JsString)>>> {
        (*v.get("type")?.as_str()? == "todo_list").then(|| {
            v.get("todos")
                .and_then(OwnedValue::as_array)
                .map(normalize_todos)
        })
    };
    match display {
        // `JSON.parse(text)`: a lone surrogate inside a string literal of
        // the text stays one.
        OwnedValue::Str(text) => {
            let parsed = parse_json(&text.json_text(), "plan").ok()?;
            todo_list(&parsed).flatten()
        }
        other => todo_list(other).flatten(),
    }
}

/// docs/behaviour.md §6.3 TodoWrite success: the `plan` update that replaces the card.
/// Todos come from a `{type:'todo_list', todos}` result display (object or
/// JSON text), else from `args.todos`; the plan is sent when todos were
/// found, or empty when `args.todos` is an array; otherwise `None`.
pub fn plan_update(
    args: Option<&OwnedValue>,
    result_display: Option<&OwnedValue>,
) -> Option<SessionUpdate> {
    let args_todos = args
        .and_then(|a| a.get("todos"))
        .and_then(OwnedValue::as_array);
    let todos = result_display
        .and_then(todos_from_display)
        .or_else(|| args_todos.map(normalize_todos));
    let entries = match todos {
        Some(todos) if !todos.is_empty() => todos,
        _ if args_todos.is_some() => Vec::new(),
        _ => return None,
    };
    let entries = entries
        .into_iter()
        .map(|(content, status)| {
            OwnedValue::object([
                ("content", content.into()),
                ("priority", "medium".into()),
                ("status", status.into()),
            ])
        })
        .collect();
    Some(OwnedValue::object([
        ("sessionUpdate", "plan".into()),
        ("entries", OwnedValue::Arr(entries)),
    ]))
}

/// [`plan_update`] over JSON texts (the binding's form): `None` for an
/// absent argument; the result is the frame's JSON text or `null`.
pub fn plan_update_json(args: Option<&str>, result_display: Option<&str>) -> Result<String> {
    let parse = |text: Option<&str>, what: &str| -> Result<Option<OwnedValue>> {
        text.map(|t| parse_json(t, &format!("plan: {what}")))
            .transpose()
    };
    let args = parse(args, "args")?;
    let display = parse(result_display, "resultDisplay")?;
    Ok(frame_json(
        plan_update(args.as_ref(), display.as_ref()).as_ref(),
    ))
}
