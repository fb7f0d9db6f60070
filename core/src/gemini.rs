//! The output: Gemini `GenerateContentResponse` chunks (spec §1), written as
//! JSON text in the reference's key order, with their preparations beside
//! them (never inside).

use std::fmt::Write as _;
use std::sync::Arc;

use crate::json::write_str;

/// A tool-call preparation (spec §5.1): the stable id and name of a call
/// whose arguments are still streaming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preparation {
    pub call_id: String,
    pub tool_name: String,
}

/// One Part of the candidate's content.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// `{text}` or `{text, thought: true}`.
    Text { text: String, thought: bool },
    /// Anthropic's `{thought: true, thoughtSignature}`.
    ThoughtSignature(String),
    /// `{functionCall: {id, name, args}}`. `id` / `name` / `args` hold JSON
    /// text (`None` = the key is absent, as JS `undefined` is); `args` is
    /// text that `JSON.parse` accepts, handed to JS verbatim.
    FunctionCall {
        id: Option<String>,
        name: Option<String>,
        args: String,
    },
}

impl Part {
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            thought: false,
        }
    }

    pub fn thought(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            thought: true,
        }
    }

    /// `part.thought === true`.
    pub fn is_thought(&self) -> bool {
        matches!(
            self,
            Part::Text { thought: true, .. } | Part::ThoughtSignature(_)
        )
    }

    /// The visible (non-thought) text of this part, if any.
    pub fn visible_text(&self) -> Option<&str> {
        match self {
            Part::Text {
                text,
                thought: false,
            } => Some(text),
            _ => None,
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Part::Text { text, thought } => {
                out.push_str("{\"text\":");
                write_str(out, text);
                if *thought {
                    out.push_str(",\"thought\":true");
                }
                out.push('}');
            }
            Part::ThoughtSignature(sig) => {
                out.push_str("{\"thought\":true,\"thoughtSignature\":");
                write_str(out, sig);
                out.push('}');
            }
            Part::FunctionCall { id, name, args } => {
                out.push_str("{\"functionCall\":{");
                let mut first = true;
                for (key, value) in [
                    ("id", id.as_deref()),
                    ("name", name.as_deref()),
                    ("args", Some(args.as_str())),
                ] {
                    if let Some(v) = value {
                        if !first {
                            out.push(',');
                        }
                        first = false;
                        out.push('"');
                        out.push_str(key);
                        out.push_str("\":");
                        out.push_str(v);
                    }
                }
                out.push_str("}}");
            }
        }
    }
}

/// Which reference produced the chunk: it decides the key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Anthropic,
    OpenAI,
    /// The pipeline's end-of-stream flush of held parts: a bare
    /// `new GenerateContentResponse()` with only `candidates`.
    Bare,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub parts: Vec<Part>,
    pub finish_reason: Option<&'static str>,
}

/// One response chunk. Text-valued fields hold JSON text (`None` = absent).
/// The header fields are shared: the chunks of a stream repeat them.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub flavor: Flavor,
    pub response_id: Option<Arc<str>>,
    pub create_time: Arc<str>,
    pub model_version: Option<Arc<str>>,
    /// `None` writes `candidates: []` (OpenAI chunk without `choices[0]`).
    pub candidate: Option<Candidate>,
    /// The `usageMetadata` object as JSON text.
    pub usage: Option<String>,
    pub preparations: Vec<Preparation>,
    /// Set on the OpenAI finish chunk whose standalone closing thinking tag
    /// was sanitised (the reference's `protocolTagSanitized`): `(tagName,
    /// toolCallCount)`. The pipeline needs it; it is not part of the response.
    pub sanitized: Option<(&'static str, usize)>,
}

impl Response {
    pub fn parts(&self) -> &[Part] {
        self.candidate.as_ref().map_or(&[], |c| &c.parts)
    }

    pub fn finish_reason(&self) -> Option<&'static str> {
        self.candidate.as_ref().and_then(|c| c.finish_reason)
    }

    /// Writes `{"r": <response>, "p": [<preparations>]}`: the response as the
    /// reference's `JSON.stringify` shows it, and its out-of-band metadata.
    pub fn write_item(&self, out: &mut String) {
        out.push_str("{\"r\":");
        self.write_response(out);
        if !self.preparations.is_empty() {
            out.push_str(",\"p\":[");
            for (i, p) in self.preparations.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"callId\":");
                write_str(out, &p.call_id);
                out.push_str(",\"toolName\":");
                write_str(out, &p.tool_name);
                out.push('}');
            }
            out.push(']');
        }
        if let Some((tag, count)) = self.sanitized {
            out.push_str(",\"s\":{\"tagName\":\"");
            out.push_str(tag);
            out.push_str("\",\"toolCallCount\":");
            out.push_str(&count.to_string());
            out.push('}');
        }
        out.push('}');
    }

    /// The response alone, as JSON text.
    pub fn write_response(&self, out: &mut String) {
        out.push('{');
        match self.flavor {
            Flavor::Anthropic => {
                let mut first = self.write_header(out, true);
                comma(out, &mut first);
                self.write_candidates(out);
                self.write_usage(out);
            }
            Flavor::OpenAI => {
                self.write_candidates(out);
                self.write_header(out, false);
                self.write_usage(out);
            }
            Flavor::Bare => self.write_candidates(out),
        }
        out.push('}');
    }

    /// responseId, createTime, modelVersion, promptFeedback. Returns whether
    /// nothing was written yet.
    fn write_header(&self, out: &mut String, mut first: bool) -> bool {
        if let Some(id) = &self.response_id {
            comma(out, &mut first);
            out.push_str("\"responseId\":");
            out.push_str(id);
        }
        comma(out, &mut first);
        out.push_str("\"createTime\":");
        write_str(out, &self.create_time);
        if let Some(m) = &self.model_version {
            out.push_str(",\"modelVersion\":");
            out.push_str(m);
        }
        out.push_str(",\"promptFeedback\":{\"safetyRatings\":[]}");
        false
    }

    fn write_candidates(&self, out: &mut String) {
        out.push_str("\"candidates\":[");
        if let Some(c) = &self.candidate {
            out.push_str("{\"content\":{\"parts\":[");
            for (i, p) in c.parts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                p.write(out);
            }
            out.push_str("],\"role\":\"model\"},\"index\":0");
            if self.flavor != Flavor::Bare {
                out.push_str(",\"safetyRatings\":[]");
            }
            if let Some(f) = c.finish_reason {
                out.push_str(",\"finishReason\":\"");
                out.push_str(f);
                out.push('"');
            }
            out.push('}');
        }
        out.push(']');
    }

    fn write_usage(&self, out: &mut String) {
        if let Some(u) = &self.usage {
            out.push_str(",\"usageMetadata\":");
            out.push_str(u);
        }
    }
}

fn comma(out: &mut String, first: &mut bool) {
    if !*first {
        out.push(',');
    }
    *first = false;
}

/// Writes a batch of responses as one JSON array of items, followed by an
/// `{"error": …}` item when the batch ended in an error.
///
/// The common chunks of a stream (one text or thought part, or no part, and
/// nothing else) are written compactly, since most of their JSON would be
/// the same boilerplate each time: a header item `{"h": {f, createTime,
/// responseId?, modelVersion?}}` whenever the header changes (`f`: 0 for
/// the Anthropic key order, 1 for OpenAI's), then `[0, text]` (text),
/// `[1, text]` (thought) or `[2]` (no parts); `[2, n]` stands for a run of
/// n > 1 part-less chunks with the same header (an OpenAI argument stream
/// yields one a chunk). Every other response is a full item `{"r":
/// response, "p"?: preparations, "s"?: sanitized}`.
pub fn write_batch(responses: &[Response], error: Option<&crate::error::Error>, out: &mut String) {
    out.push('[');
    let mut first = true;
    let mut header: Option<&Response> = None;
    let mut rest = responses;
    while let Some((r, tail)) = rest.split_first() {
        rest = tail;
        match r.compact() {
            Some(item) => {
                if !header.is_some_and(|h| h.same_header(r)) {
                    comma(out, &mut first);
                    r.write_header_item(out);
                    header = Some(r);
                }
                comma(out, &mut first);
                match item {
                    Compact::Text(t) => {
                        out.push_str("[0,");
                        write_str(out, t);
                        out.push(']');
                    }
                    Compact::Thought(t) => {
                        out.push_str("[1,");
                        write_str(out, t);
                        out.push(']');
                    }
                    Compact::Empty => {
                        let run = 1 + rest
                            .iter()
                            .take_while(|n| {
                                matches!(n.compact(), Some(Compact::Empty)) && n.same_header(r)
                            })
                            .count();
                        rest = &rest[run - 1..];
                        if run == 1 {
                            out.push_str("[2]");
                        } else {
                            let _ = write!(out, "[2,{run}]");
                        }
                    }
                }
            }
            None => {
                comma(out, &mut first);
                r.write_item(out);
            }
        }
    }
    if let Some(e) = error {
        comma(out, &mut first);
        out.push_str("{\"error\":");
        e.write_json(out);
        out.push('}');
    }
    out.push(']');
}

enum Compact<'a> {
    Text(&'a str),
    Thought(&'a str),
    Empty,
}

impl Response {
    fn compact(&self) -> Option<Compact<'_>> {
        let c = self.candidate.as_ref()?;
        if self.flavor == Flavor::Bare
            || c.finish_reason.is_some()
            || self.usage.is_some()
            || !self.preparations.is_empty()
            || self.sanitized.is_some()
        {
            return None;
        }
        match c.parts.as_slice() {
            [] => Some(Compact::Empty),
            [Part::Text {
                text,
                thought: false,
            }] => Some(Compact::Text(text)),
            [Part::Text {
                text,
                thought: true,
            }] => Some(Compact::Thought(text)),
            _ => None,
        }
    }

    fn same_header(&self, other: &Response) -> bool {
        self.flavor == other.flavor
            && self.create_time == other.create_time
            && self.response_id == other.response_id
            && self.model_version == other.model_version
    }

    fn write_header_item(&self, out: &mut String) {
        out.push_str("{\"h\":{\"f\":");
        out.push(if self.flavor == Flavor::OpenAI {
            '1'
        } else {
            '0'
        });
        out.push_str(",\"createTime\":");
        write_str(out, &self.create_time);
        if let Some(id) = &self.response_id {
            out.push_str(",\"responseId\":");
            out.push_str(id);
        }
        if let Some(m) = &self.model_version {
            out.push_str(",\"modelVersion\":");
            out.push_str(m);
        }
        out.push_str("}}");
    }
}

/// Milliseconds since the epoch as JS `String(Date.now())` shows them.
pub fn now_ms_string() -> String {
    now_ms().to_string()
}

/// [`now_ms_string`] as a shared string: the chunks made in one millisecond
/// share one allocation (the last one is kept per thread).
pub fn now_ms_shared() -> Arc<str> {
    thread_local! {
        static LAST: std::cell::RefCell<(u64, Option<Arc<str>>)> =
            const { std::cell::RefCell::new((0, None)) };
    }
    let now = now_ms();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &last.1 {
            Some(s) if last.0 == now => s.clone(),
            _ => {
                let s: Arc<str> = now.to_string().into();
                *last = (now, Some(s.clone()));
                s
            }
        }
    })
}

/// Milliseconds since the epoch (`Date.now()`).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(time: &str, parts: Vec<Part>) -> Response {
        Response {
            flavor: Flavor::OpenAI,
            response_id: Some("\"id\"".into()),
            create_time: time.into(),
            model_version: None,
            candidate: Some(Candidate {
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
        let batch = [
            empty("1"),
            empty("1"),
            empty("1"),
            chunk("1", vec![Part::text("a")]),
            empty("1"),
            empty("2"),
            empty("2"),
        ];
        let mut out = String::new();
        write_batch(&batch, None, &mut out);
        let h = |t: &str| format!(r#"{{"h":{{"f":1,"createTime":"{t}","responseId":"id"}}}}"#);
        assert_eq!(
            out,
            format!(r#"[{},[2,3],[0,"a"],[2],{},[2,2]]"#, h("1"), h("2"))
        );
    }
}
