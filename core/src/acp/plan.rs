//! TodoWrite's `plan` update (docs/behaviour.md §6.3): the frame that takes
//! the place of a TodoWrite card, from the tool's result display or its
//! arguments.
//!
//! The plan reads little of those values (`type`, `todos`, each todo's
//! `content` and `status`), which come from JS whole, as JSON text: only
//! what it reads is built ([`plan_fields`]), every other value is skipped
//! unbuilt, so that a value nested deeper than the parser goes (512 levels)
//! anywhere else is no error, as it is none for `JSON.parse`.

use super::frames::{frame_json, invalid, JsString, OwnedValue, Result, SessionUpdate};
use crate::foundations::json::scan_string;
use crate::foundations::json::validate::{validate, validate_value};

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
            let parsed = plan_fields(&text.json_text())?;
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
/// absent argument; the result is the frame's JSON text or `null`. Each text
/// must be one JSON value (`INVALID_ARGUMENT` otherwise).
pub fn plan_update_json(args: Option<&str>, result_display: Option<&str>) -> Result<String> {
    let read = |text: Option<&str>, what: &str| -> Result<Option<OwnedValue>> {
        text.map(|t| plan_fields(t).ok_or_else(|| invalid(format!("plan: {what}: invalid JSON"))))
            .transpose()
    };
    let args = read(args, "args")?;
    let display = read(result_display, "resultDisplay")?;
    Ok(frame_json(
        plan_update(args.as_ref(), display.as_ref()).as_ref(),
    ))
}

/// What the plan reads of the JSON value `text`, `None` when it is not one:
/// a string as it is (a result display may be JSON text itself); of an
/// object, its string `type` and its array `todos`, each todo an object of
/// its string `content` and `status` (`null` for a todo that is no object).
/// A field of another type is left out, as the plan skips it anyway; the
/// last of duplicate keys counts, as for `JSON.parse`. Anything else is
/// `null`.
pub fn plan_fields(text: &str) -> Option<OwnedValue> {
    validate(text)?;
    let s = text.as_bytes();
    let start = skip_ws(s, 0);
    Some(match s[start] {
        b'"' => OwnedValue::parse(text).ok()?,
        b'{' => {
            let fields = object_fields(text, start)?;
            let mut out = Vec::new();
            if let Some(kind) = field(&fields, "type").filter(|v| v.starts_with('"')) {
                out.push(("type", OwnedValue::parse(kind).ok()?));
            }
            if let Some(todos) = field(&fields, "todos").filter(|v| v.starts_with('[')) {
                let base = todos.as_ptr() as usize - text.as_ptr() as usize;
                let todos = array_items(text, base)?
                    .into_iter()
                    .map(|item| todo_fields(text, item))
                    .collect::<Option<Vec<_>>>()?;
                out.push(("todos", OwnedValue::Arr(todos)));
            }
            OwnedValue::object(out)
        }
        _ => OwnedValue::Null,
    })
}

/// A todo's string `content` and `status`; `null` for what is not an object.
fn todo_fields(text: &str, item: &str) -> Option<OwnedValue> {
    if !item.starts_with('{') {
        return Some(OwnedValue::Null);
    }
    let base = item.as_ptr() as usize - text.as_ptr() as usize;
    let fields = object_fields(text, base)?;
    let mut out = Vec::new();
    for key in ["content", "status"] {
        if let Some(value) = field(&fields, key).filter(|v| v.starts_with('"')) {
            out.push((key, OwnedValue::parse(value).ok()?));
        }
    }
    Some(OwnedValue::object(out))
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The value that starts at `i` of `text`: its text, and where the JSON
/// whitespace after it ends. Validated and skipped without being built.
fn value_at(text: &str, i: usize) -> Option<(&str, usize)> {
    let s = text.as_bytes();
    let (after, _) = validate_value(s, i)?;
    let mut end = after;
    while end > i && matches!(s[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
        end -= 1;
    }
    Some((&text[i..end], after))
}

/// The entries of the object at `i` of `text` (its `{`): each key and the
/// text of its value, in order.
fn object_fields(text: &str, i: usize) -> Option<Vec<(JsString, &str)>> {
    let s = text.as_bytes();
    let mut fields = Vec::new();
    let mut i = skip_ws(s, i + 1);
    if s.get(i) == Some(&b'}') {
        return Some(fields);
    }
    loop {
        if s.get(i) != Some(&b'"') {
            return None;
        }
        let (close, _) = scan_string(s, i + 1)?;
        let OwnedValue::Str(key) = OwnedValue::parse(&text[i..=close]).ok()? else {
            return None;
        };
        i = skip_ws(s, close + 1);
        if s.get(i) != Some(&b':') {
            return None;
        }
        let (value, after) = value_at(text, skip_ws(s, i + 1))?;
        fields.push((key, value));
        match s.get(after) {
            Some(b',') => i = skip_ws(s, after + 1),
            Some(b'}') => return Some(fields),
            _ => return None,
        }
    }
}

/// The text of each item of the array at `i` of `text` (its `[`).
fn array_items(text: &str, i: usize) -> Option<Vec<&str>> {
    let s = text.as_bytes();
    let mut items = Vec::new();
    let mut i = skip_ws(s, i + 1);
    if s.get(i) == Some(&b']') {
        return Some(items);
    }
    loop {
        let (item, after) = value_at(text, i)?;
        items.push(item);
        match s.get(after) {
            Some(b',') => i = skip_ws(s, after + 1),
            Some(b']') => return Some(items),
            _ => return None,
        }
    }
}

/// The last value of `key`, as `JSON.parse` keeps the last duplicate.
fn field<'t>(fields: &[(JsString, &'t str)], key: &str) -> Option<&'t str> {
    fields
        .iter()
        .rev()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::{plan_fields, plan_update_json};

    #[test]
    fn reads_only_what_the_plan_needs_at_any_depth_elsewhere() {
        let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
        let deep_obj = format!("{}1{}", r#"{"a":"#.repeat(3000), "}".repeat(3000));
        let args = format!(
            r#"{{"meta":{deep},"todos":[{{"content":"a","status":"pending","extra":{deep_obj}}},{{"content":{deep},"status":"pending"}},{{"content":7,"status":"completed"}},{deep},"x",{{"status":"completed","content":"b\ud800"}}],"type":{deep}}}"#
        );
        assert_eq!(
            plan_fields(&args).unwrap().to_json(),
            r#"{"todos":[{"content":"a","status":"pending"},{"status":"pending"},{"status":"completed"},null,null,{"content":"b\ud800","status":"completed"}]}"#
        );
        assert_eq!(
            plan_update_json(Some(&args), None).unwrap(),
            r#"{"sessionUpdate":"plan","entries":[{"content":"a","priority":"medium","status":"pending"},{"content":"b\ud800","priority":"medium","status":"completed"}]}"#
        );
        // A display given as JSON text is read the same way.
        let display = format!(
            r#"{{"type":"todo_list","more":{deep},"todos":[{{"content":"c","status":"completed"}}]}}"#
        );
        let as_text = crate::foundations::json::OwnedValue::Str(display.as_str().into()).to_json();
        assert_eq!(
            plan_update_json(None, Some(&as_text)).unwrap(),
            r#"{"sessionUpdate":"plan","entries":[{"content":"c","priority":"medium","status":"completed"}]}"#
        );
        // The last duplicate counts; a non-string type is none.
        assert_eq!(
            plan_fields(r#"{"type":"x","type":"todo_list","todos":5,"todos":[]}"#)
                .unwrap()
                .to_json(),
            r#"{"type":"todo_list","todos":[]}"#
        );
        assert_eq!(plan_fields(r#" {"type": 1 } "#).unwrap().to_json(), "{}");
        assert_eq!(plan_fields("[1]").unwrap().to_json(), "null");
    }

    #[test]
    fn refuses_what_is_not_one_json_value() {
        for bad in ["", "{", r#"{"todos":[}"#, "[1] 2", r#"{"a" 1}"#] {
            let e = plan_update_json(Some(bad), None).unwrap_err();
            assert_eq!(e.code.as_str(), "INVALID_ARGUMENT", "{bad}");
        }
        // A result display that is text but not JSON text has no todos.
        assert_eq!(
            plan_update_json(None, Some(r#""not json""#)).unwrap(),
            "null"
        );
    }
}
