//! A call's outcome as one batch (`crate::wire` documents the format): the
//! provider's object-path header item, header items and compact chunks,
//! full items, the error item, and the state word last.

use super::compact_kind;
use super::error::write_error;
use super::key::{self, open_item};
use super::lift;
use crate::convert::object_path::ObjectPath;
use crate::convert::state::StateWord;
use crate::foundations::error::Error;
use crate::foundations::json::{write_str, write_text};
use crate::model::gemini::{LiteralKind, Part, Response};
use crate::model::key_order::KeyOrder;

/// A batch in its array form: the text, and the large string arguments
/// lifted out of it ([`lift`]), in the order its items list them.
#[derive(Debug, PartialEq)]
pub struct Batch {
    /// The JSON array text.
    pub text: String,
    /// The lifted values (none for most batches).
    pub strings: Vec<String>,
}

/// A call's outcome as one batch: `None` when there is nothing but the state
/// (the number form), else the array form.
/// `header`: the provider's object path, asked for its header item (none
/// for a provider without one).
pub fn batch(
    responses: &mut [Response],
    error: Option<&Error>,
    state: StateWord,
    header: Option<&mut dyn ObjectPath>,
) -> Option<Batch> {
    if responses.is_empty() && error.is_none() {
        // Only a header item makes this an array; written apart (no text is
        // made for the common call that yields nothing).
        let mut item = String::new();
        if !header.is_some_and(|h| h.write_header_item(&mut item)) {
            return None;
        }
        let mut text = String::with_capacity(item.len() + 24);
        text.push('[');
        text.push_str(&item);
        text.push(',');
        write_state(state, &mut text);
        return Some(Batch {
            text,
            strings: Vec::new(),
        });
    }
    // Sized once for what the batch will hold: a batch with a large call
    // grows to its size without a chain of reallocations.
    let parts: usize = responses
        .iter()
        .flat_map(|r| r.parts())
        .map(Part::size_hint)
        .sum();
    let mut text = String::with_capacity(responses.len() * 256 + parts + 64);
    let mut strings = Vec::new();
    write_batch(responses, error, state, header, &mut text, &mut strings);
    Some(Batch { text, strings })
}

/// Writes the array form of a batch (see the module documentation), the
/// lifted string arguments moved to `strings`.
pub fn write_batch(
    responses: &mut [Response],
    error: Option<&Error>,
    state: StateWord,
    header: Option<&mut dyn ObjectPath>,
    out: &mut String,
    strings: &mut Vec<String>,
) {
    out.push('[');
    if let Some(h) = header {
        if h.write_header_item(out) {
            out.push(',');
        }
    }
    // The header item last written, by position.
    let mut header: Option<usize> = None;
    let mut at = 0;
    while at < responses.len() {
        let r = &responses[at];
        match compact(r) {
            Some((f, item)) => {
                if !header.is_some_and(|h| same_header(&responses[h], r)) {
                    write_header_item(f, r, out);
                    out.push(',');
                    header = Some(at);
                }
                match item {
                    Compact::Text(t) => write_compact(out, compact_kind::TEXT, t),
                    Compact::Thought(t) => write_compact(out, compact_kind::THOUGHT, t),
                    Compact::Reasoning(t) => write_compact(out, compact_kind::REASONING, t),
                    Compact::ValueText(json) => write_compact_json(out, compact_kind::TEXT, json),
                    Compact::ValueThought(json) => {
                        write_compact_json(out, compact_kind::THOUGHT, json)
                    }
                    Compact::MessageText(json, serial) => {
                        out.push('[');
                        out.push(char::from(b'0' + compact_kind::MESSAGE_TEXT));
                        out.push(',');
                        out.push_str(json);
                        out.push(',');
                        out.push_str(&serial.to_string());
                        out.push(']');
                    }
                    Compact::Empty => {
                        // A run of part-less chunks with this header (an
                        // OpenAI argument stream yields one a chunk).
                        let run = 1 + responses[at + 1..]
                            .iter()
                            .take_while(|n| {
                                matches!(compact(n), Some((_, Compact::Empty))) && same_header(n, r)
                            })
                            .count();
                        at += run - 1;
                        out.push('[');
                        out.push(char::from(b'0' + compact_kind::EMPTY));
                        if run > 1 {
                            out.push(',');
                            out.push_str(&run.to_string());
                        }
                        out.push(']');
                    }
                }
            }
            None => lift::write_item_lifting(&mut responses[at], out, strings),
        }
        at += 1;
        out.push(',');
    }
    if let Some(e) = error {
        open_item(out, key::ERROR);
        write_error(e, out);
        out.push_str("},");
    }
    write_state(state, out);
}

/// The state word and the array's end.
fn write_state(state: StateWord, out: &mut String) {
    // An integer below 2^53: its decimal digits are its JS number text.
    out.push_str(&state.bits().to_string());
    out.push(']');
}

enum Compact<'a> {
    Text(&'a str),
    Thought(&'a str),
    Reasoning(&'a str),
    /// An OpenAI Responses `{text: value}`: the value's JSON text.
    ValueText(&'a str),
    /// An OpenAI Responses `{text: value, thought: true}`: the value's JSON text.
    ValueThought(&'a str),
    /// An OpenAI Responses `{text: value, responsesMessage}`: the value's
    /// JSON text and the message's serial.
    MessageText(&'a str, u32),
    Empty,
}

/// The response as a compact chunk, with the header id of its key order;
/// `None` when it must travel whole (an order without a header id
/// included).
fn compact(r: &Response) -> Option<(u8, Compact<'_>)> {
    let f = r.key_order.wire_id?;
    let c = r.candidate.as_ref()?;
    if c.finish_reason.is_some()
        || r.usage.is_some()
        || !r.preparations.is_empty()
        || r.sanitized.is_some()
    {
        return None;
    }
    match c.parts.as_slice() {
        [] => Some((f, Compact::Empty)),
        [Part::Text {
            text,
            thought: false,
        }] => Some((f, Compact::Text(text))),
        [Part::Text {
            text,
            thought: true,
        }] => Some((f, Compact::Thought(text))),
        [Part::Reasoning(text)] => Some((f, Compact::Reasoning(text))),
        // A value `undefined` (`json` None) keeps its `text` key only whole.
        [Part::Value {
            kind,
            json: Some(json),
            message,
        }] => match (kind, message) {
            (LiteralKind::Text, None) => Some((f, Compact::ValueText(json))),
            (LiteralKind::Text, Some(m)) => Some((f, Compact::MessageText(json, m.serial))),
            (LiteralKind::Thought, None) => Some((f, Compact::ValueThought(json))),
            _ => None,
        },
        _ => None,
    }
}

fn same_header(a: &Response, b: &Response) -> bool {
    std::ptr::eq(a.key_order, b.key_order)
        && a.create_time == b.create_time
        && a.response_id == b.response_id
        && a.model_version == b.model_version
}

fn write_header_item(f: u8, r: &Response, out: &mut String) {
    open_item(out, key::HEADER);
    write_header(
        f,
        Some(&r.create_time),
        r.response_id.as_deref(),
        r.model_version.as_deref(),
        out,
    );
    out.push('}');
}

/// The header id of an order a provider's object path builds responses
/// in (one with a header id; a const use fails to compile otherwise).
pub const fn header_id(order: &KeyOrder) -> u8 {
    match order.wire_id {
        Some(f) => f,
        None => panic!("the object path's key order needs a header id"),
    }
}

/// A header: `{f, createTime?, responseId?, modelVersion?}` (JSON texts
/// but `create_time`, the string itself): a header item's, and inside a
/// provider's object-path header item.
pub fn write_header(
    f: u8,
    create_time: Option<&str>,
    response_id: Option<&str>,
    model_version: Option<&str>,
    out: &mut String,
) {
    out.push_str("{\"f\":");
    if f >= 10 {
        out.push_str(&f.to_string());
    } else {
        out.push(char::from(b'0' + f));
    }
    if let Some(t) = create_time {
        out.push_str(",\"createTime\":");
        write_str(out, t);
    }
    if let Some(id) = response_id {
        out.push_str(",\"responseId\":");
        out.push_str(id);
    }
    if let Some(m) = model_version {
        out.push_str(",\"modelVersion\":");
        out.push_str(m);
    }
    out.push('}');
}

/// Writes a compact chunk item whose part holds a JSON value written as it
/// is: `[kind, value]`.
#[inline]
fn write_compact_json(out: &mut String, kind: u8, json: &str) {
    out.push('[');
    out.push(char::from(b'0' + kind));
    out.push(',');
    out.push_str(json);
    out.push(']');
}

/// Writes a compact chunk item with one part: `[kind, text]`.
#[inline]
fn write_compact(out: &mut String, kind: u8, text: &str) {
    out.push('[');
    out.push(char::from(b'0' + kind));
    out.push(',');
    write_text(out, text);
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::error::ErrorCode;

    fn chunk(time: &str, parts: Vec<Part>) -> Response {
        Response {
            key_order: &crate::convert::openai::key_order::KEY_ORDER,
            response_id: Some("\"id\"".into()),
            create_time: time.into(),
            model_version: None,
            candidate: Some(crate::model::gemini::Candidate {
                parts,
                finish_reason: None,
            }),
            usage: None,
            preparations: Vec::new(),
            sanitized: None,
        }
    }

    #[test]
    fn part_less_chunks_in_a_row_with_one_header_are_one_run() {
        let empty = |t| chunk(t, Vec::new());
        let mut batch = [
            empty("1"),
            empty("1"),
            empty("1"),
            chunk("1", vec![Part::text("a")]),
            empty("1"),
            empty("2"),
            empty("2"),
        ];
        let mut out = String::new();
        write_batch(
            &mut batch,
            None,
            StateWord::OPEN,
            None,
            &mut out,
            &mut Vec::new(),
        );
        let h = |t: &str| format!(r#"{{"h":{{"f":1,"createTime":"{t}","responseId":"id"}}}}"#);
        assert_eq!(
            out,
            format!(r#"[{},[2,3],[0,"a"],[2],{},[2,2],0]"#, h("1"), h("2"))
        );
    }

    /// An object path whose header item is `{"k":n}`, written once.
    struct OneHeader(Option<u8>);

    impl ObjectPath for OneHeader {
        fn state_word(&mut self, _yielded: &[Response]) -> StateWord {
            StateWord::OPEN
        }

        fn write_header_item(&mut self, out: &mut String) -> bool {
            match self.0.take() {
                Some(n) => {
                    out.push_str(&format!(r#"{{"k":{n}}}"#));
                    true
                }
                None => false,
            }
        }
    }

    #[test]
    fn an_object_path_header_item_comes_first_and_only_when_written() {
        let mut out = String::new();
        write_batch(
            &mut [chunk("7", Vec::new())],
            None,
            StateWord::OPEN,
            Some(&mut OneHeader(Some(1))),
            &mut out,
            &mut Vec::new(),
        );
        assert_eq!(
            out,
            r#"[{"k":1},{"h":{"f":1,"createTime":"7","responseId":"id"}},[2],0]"#
        );
        // A header alone is a batch too; without one, nothing is.
        let alone = batch(
            &mut [],
            None,
            StateWord::OPEN,
            Some(&mut OneHeader(Some(2))),
        );
        assert_eq!(alone.unwrap().text, r#"[{"k":2},0]"#);
        assert_eq!(
            batch(&mut [], None, StateWord::OPEN, Some(&mut OneHeader(None))),
            None
        );
    }

    #[test]
    fn an_error_batch_ends_with_the_error_then_the_state() {
        let e = Error::new(ErrorCode::Finished, "done \u{1}");
        let mut out = String::new();
        write_batch(
            &mut [],
            Some(&e),
            StateWord::FINISHED,
            None,
            &mut out,
            &mut Vec::new(),
        );
        assert_eq!(
            out,
            "[{\"error\":{\"code\":\"FINISHED\",\"name\":\"Error\",\"message\":\"done \\u0001\",\"fatal\":true}},1]"
        );
        assert_eq!(batch(&mut [], None, StateWord::OPEN, None), None);
    }
}
