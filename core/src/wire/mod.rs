//! The wire protocol between the native converters and the JS layer: what
//! one call hands back. The binding (`src/wire.rs`) sends it, `lib/wire.js`
//! reads it; nothing else on either side knows the format.
//!
//! **A batch** is what every converter call returns: either
//! - a number, the *state word* alone (nothing was converted, no error); or
//! - the text of one JSON array of items, the state word last:
//!   - the provider's object-path header item, first in the batch when
//!     its object path has one to send (`crate::convert::object_path`,
//!     `ObjectPath::write_header_item`): `{"c": …}` (OpenAI,
//!     [`crate::convert::openai::chunk_header`]) or `{"e": …}` (Anthropic,
//!     [`crate::convert::anthropic::event_header`]), built with
//!     [`write_header`];
//!   - `{"h": {f, createTime, responseId?, modelVersion?}}`: a header item,
//!     written whenever the header of the next compact chunk changes (`f`:
//!     the [`KeyOrder::wire_id`] of the key order its responses take, which
//!     the provider that built them declares; the JS layer refuses an id it
//!     has no order for);
//!   - `[0, text]` (one text part), `[1, text]` (one thought part), `[2]`
//!     (no parts): a compact chunk with the last header and nothing else;
//!     `[2, n]`: a run of n > 1 such part-less chunks; `[3, text]`: one
//!     OpenAI reasoning thought part (marked as such in JS);
//!   - `{"r": response, "p"?: preparations, "s"?: sanitized, "u"?: usage
//!     provenance, "t"?: reasoning part indexes, "x"?: lifted arguments}`:
//!     any other response, as the reference's `JSON.stringify` shows it,
//!     with its out-of-band tool-call preparations, the OpenAI pipeline's
//!     sanitisation note, the provenance of its `usageMetadata`, which
//!     parts are OpenAI reasoning thoughts ([`write_annotations`]) and where
//!     the string arguments lifted out of it go back (`"x"`, [`lift`]); a
//!     non-streaming body's response is the same item ([`write_body_item`]);
//!   - `{"error": {code, name, message, type?, offset?, providerError?,
//!     providerEvent?, sseFrame?, hostError?, fatal}}`: the call failed (at most one, after every response the call
//!     converted before the error);
//!   - the state word;
//! - or, when a call's large string arguments were lifted out of that text
//!   ([`lift`]), an array: the text, then the lifted strings in the order
//!   the full items list them (`"x": [[part index, key], …]`).
//!
//! **The error encoding** is [`write_error`]'s object. Calls that return
//! something else than a batch (constructors, the ACP classes, the helpers,
//! the object path's OpenAI plain-text call) throw the same object as the message of a napi
//! `GenericFailure`. `lib/wire.js` decodes both forms to one
//! `ToolCallStreamError` (`code`, `fatal`, `responses`).
//!
//! **The state word** ([`StateWord`], `crate::convert::state`) is the
//! converter state the JS object path (`lib/object-path.js`) depends on, as
//! it is after the call, error batches included; the JS layer keeps no
//! other copy of native state.

mod item;
pub mod key;
pub mod lift;
pub mod progress;

use crate::convert::nonstream::BodyResponse;
use crate::convert::object_path::ObjectPath;
pub use crate::convert::state::{word, StateWord};
use crate::foundations::error::Error;
use crate::foundations::json::{write_str, write_text};
use crate::model::gemini::{Part, Response};
use crate::model::key_order::KeyOrder;
use crate::model::usage_provenance::UsageProvenance;
use key::{next_key, open_item};

/// The first number of a compact chunk item (`[kind, text?]`).
pub mod compact_kind {
    /// `[0, text]`: one text part.
    pub const TEXT: u8 = 0;
    /// `[1, text]`: one thought part.
    pub const THOUGHT: u8 = 1;
    /// `[2]` or `[2, n]`: no parts (a run of n).
    pub const EMPTY: u8 = 2;
    /// `[3, text]`: one OpenAI reasoning thought part.
    pub const REASONING: u8 = 3;
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

/// The error as one JSON object: the batch's error item, and the message of
/// the `GenericFailure` thrown by the calls that return no batch.
pub fn write_error(e: &Error, out: &mut String) {
    out.push_str("{\"code\":");
    write_str(out, e.code.as_str());
    out.push_str(",\"name\":");
    write_str(out, e.name);
    out.push_str(",\"message\":");
    if e.text_message {
        write_text(out, &e.message);
    } else {
        write_str(out, &e.message);
    }
    if let Some(kind) = e.kind() {
        out.push_str(",\"type\":");
        write_str(out, kind);
    }
    if let Some(offset) = e.offset {
        out.push_str(",\"offset\":");
        out.push_str(&offset.to_string());
    }
    if let Some(p) = &e.provider_error {
        out.push_str(",\"providerError\":");
        out.push_str(p);
    }
    if let Some(p) = &e.provider_event {
        out.push_str(",\"providerEvent\":");
        write_str(out, p);
    }
    if let Some(f) = &e.sse_frame {
        out.push_str(",\"sseFrame\":");
        write_str(out, f);
    }
    if let Some(h) = &e.host_error {
        out.push_str(",\"hostError\":{\"name\":");
        write_str(out, h.name);
        out.push_str(",\"message\":");
        write_str(out, &h.message);
        out.push('}');
    }
    out.push_str(",\"fatal\":");
    out.push_str(if e.fatal { "true" } else { "false" });
    out.push('}');
}

/// The error object alone (the thrown form).
pub fn error_text(e: &Error) -> String {
    let mut out = String::with_capacity(e.message.len() + 64);
    write_error(e, &mut out);
    out
}

/// Writes a full item's `,"u": [reported(, creation | null)?]` (the
/// provenance of its `usageMetadata`, when it has one) and `,"t": [i, …]`
/// (the indexes of its OpenAI reasoning thought parts, when there are any):
/// streams ([`Response::write_item`]) and bodies ([`write_body_item`]) alike.
pub fn write_annotations(
    usage: Option<&UsageProvenance>,
    reasoning_parts: impl IntoIterator<Item = usize>,
    out: &mut String,
) {
    if let Some(u) = usage {
        next_key(out, key::USAGE_PROVENANCE);
        u.write_item(out);
    }
    let mut reasoning = reasoning_parts.into_iter().peekable();
    if reasoning.peek().is_some() {
        next_key(out, key::REASONING_PARTS);
        out.push('[');
        for (n, i) in reasoning.enumerate() {
            if n > 0 {
                out.push(',');
            }
            out.push_str(&i.to_string());
        }
        out.push(']');
    }
}

/// A converted non-streaming body as a full item, `{"r": response, "u"?,
/// "t"?}` (no preparations on this path).
pub fn write_body_item(body: &BodyResponse, out: &mut String) {
    open_item(out, key::RESPONSE);
    out.push_str(&body.json);
    write_annotations(
        body.usage_provenance.as_ref(),
        body.reasoning_parts.iter().copied(),
        out,
    );
    out.push('}');
}

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
    fn a_body_item_carries_the_annotations_as_a_stream_item_does() {
        let body = |usage_provenance, reasoning_parts| BodyResponse {
            json: "{}".into(),
            usage_provenance,
            reasoning_parts,
        };
        let mut out = String::new();
        write_body_item(&body(None, Vec::new()), &mut out);
        assert_eq!(out, r#"{"r":{}}"#);
        out.clear();
        let openai = UsageProvenance::cached(true);
        write_body_item(&body(Some(openai), vec![0]), &mut out);
        assert_eq!(out, r#"{"r":{},"u":[true],"t":[0]}"#);
        out.clear();
        let anthropic = UsageProvenance::with_cache_creation(false, Some(7.0));
        write_body_item(&body(Some(anthropic), Vec::new()), &mut out);
        assert_eq!(out, r#"{"r":{},"u":[false,7]}"#);
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
