//! The templates of the template path, for the bulk of a stream: argument-only chunks of a
//! streamed tool call, and content-only chunks of streamed text.
//!
//! A provider serialises every such chunk of a response the same way: the
//! same id, `created`, model and fingerprint, the same keys in the same
//! order, and only one string differs (`arguments`, or `content`). After
//! converting such a chunk the long way, its text is kept as a template: the
//! bytes before that string and the bytes after it. A later chunk that is
//! exactly `before`, valid JSON string content, `after` parses to the same
//! tree with only that string changed (the scanner stops at the first
//! unescaped quote, so the string cannot swallow or shift any structure), so
//! it converts the same way with only its string handed on: no tree is
//! built.
//!
//! Which chunks qualify and what the converter's state must be for the
//! template path to give exactly the long way's response is decided in
//! `template/mod.rs`.

use std::rc::Rc;

use crate::convert::openai::chunk_header::ChunkHeader;
use crate::convert::openai::key_order::KEY_ORDER;
use crate::foundations::json::{self, JStr};
use crate::model::clock::now_ms_string;
use crate::model::gemini::{Candidate, Part, Preparation, Response};

use crate::convert::openai::tool_call_parser::ProviderIndex;

/// Templates kept per stream: one per call interleaved by the provider is
/// enough; beyond that the oldest is replaced.
const MAX_TEMPLATES: usize = 8;

/// A chunk's text around its varying string, and what the long way read
/// from the rest of it (`F`).
#[derive(Debug)]
pub struct Template<F> {
    /// Up to and including the string's opening quote.
    before: Box<str>,
    /// From the string's closing quote to the end.
    after: Box<str>,
    /// The chunk's `data:` event as the API writes it (`data: `, the
    /// chunk, a blank line in `\n`): the bytes before its string and the
    /// bytes after it.
    event_before: Box<str>,
    event_after: Box<str>,
    /// `event_after` then `event_before`: from one event's string to the
    /// next's, when both fit.
    between_events: Box<str>,
    pub fields: F,
}

impl<F> Template<F> {
    /// The chunk's `data:` event up to and including its string's opening
    /// quote.
    pub fn event_before(&self) -> &str {
        &self.event_before
    }

    /// The chunk's `data:` event from its string's closing quote to its
    /// end.
    pub fn event_after(&self) -> &str {
        &self.event_after
    }

    /// [`Self::event_after`] then [`Self::event_before`]: what lies between
    /// the strings of two events of this template one after the other.
    pub fn between_events(&self) -> &str {
        &self.between_events
    }
}

/// The response header the long way made of a template's chunk.
#[derive(Clone, Debug)]
pub struct Header {
    /// Header fields of the response, as JSON text (`None` = absent).
    pub response_id: Option<Rc<str>>,
    pub model_version: Option<Rc<str>>,
    /// `String(created)`; `None` when `created` is falsy (the response then
    /// takes `Date.now()` each time, as the long way does).
    pub create_time: Option<Rc<str>>,
    /// The same header with the chunk's fields, for the JS object path
    /// (`crate::convert::openai::chunk_header`); `None` when `created` is falsy, or the chunk
    /// came from an SSE path (the object path never follows those).
    pub chunk: Option<Rc<ChunkHeader>>,
}

impl Header {
    /// The response of a chunk with this header and no finish or usage,
    /// as the long way builds it (`createTime` is `Date.now()` when the
    /// chunk's `created` was falsy).
    pub fn response(
        &self,
        parts: Vec<Part>,
        preparations: Vec<Preparation>,
        sanitized: Option<(&'static str, usize)>,
    ) -> Response {
        Response {
            key_order: &KEY_ORDER,
            response_id: self.response_id.clone(),
            create_time: self
                .create_time
                .clone()
                .unwrap_or_else(|| now_ms_string().into()),
            model_version: self.model_version.clone(),
            candidate: Some(Candidate {
                parts,
                finish_reason: None,
            }),
            usage: None,
            preparations,
            sanitized,
        }
    }
}

/// What the long way read from an argument-only chunk besides the
/// arguments.
#[derive(Debug)]
pub struct Fields {
    pub index: ProviderIndex,
    pub id: Option<String>,
    pub name: Option<String>,
    pub header: Header,
}

/// The varying string's position in a chunk's text (`arguments` or
/// `content`), in bytes.
pub struct Hole {
    pub start: usize,
    pub end: usize,
}

impl Hole {
    /// Where `value` (the raw content of a string borrowed from `text`) sits
    /// in `text`; `None` when it is not a slice of `text`.
    pub fn of(text: &str, value: JStr<'_>) -> Option<Hole> {
        let raw = value.raw();
        let start = (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        let end = start + raw.len();
        // A string's content sits between two quotes.
        (end < text.len()
            && start > 0
            && text.as_bytes()[start - 1] == b'"'
            && text.as_bytes()[end] == b'"')
            .then_some(Hole { start, end })
    }
}

/// What [`Templates::find_prefix`] does with the string in a chunk's hole.
pub trait Fill<F> {
    /// What a fill kept, to hand on or take back.
    type Kept;
    /// Decodes the string content of `text` from `start` (after its opening
    /// quote) for a template whose long way read `fields`: the closing
    /// quote's index; `None`, with nothing kept, when the content is not a
    /// valid JSON string.
    fn fill(&mut self, fields: &F, text: &str, start: usize) -> Option<(usize, Self::Kept)>;
    /// Undoes a fill whose chunk did not fit the template after all.
    fn take_back(&mut self, kept: Self::Kept);
}

#[derive(Debug)]
pub struct Templates<F> {
    list: Vec<Template<F>>,
    /// The slot the next template replaces once the list is full.
    next: usize,
}

impl<F> Default for Templates<F> {
    fn default() -> Self {
        Templates {
            list: Vec::new(),
            next: 0,
        }
    }
}

impl<F> Templates<F> {
    /// The templates kept.
    pub fn iter(&self) -> impl Iterator<Item = &Template<F>> {
        self.list.iter()
    }

    /// No template is kept.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The template that a chunk at the start of `text` fits, the chunk
    /// followed by text that `rest_ok` accepts (`str::is_empty`: the chunk is
    /// all of `text`), the chunk's length, and what `hole` kept of the
    /// string in its hole (decoded as the template's fields say); `hole`
    /// takes back what it kept for a template that does not fit.
    pub fn find_prefix<H: Fill<F>>(
        &self,
        text: &str,
        hole: &mut H,
        rest_ok: impl Fn(&str) -> bool,
    ) -> Option<(&Template<F>, usize, H::Kept)> {
        self.list.iter().find_map(|t| {
            if text.len() < t.before.len() + t.after.len() || !text.starts_with(&*t.before) {
                return None;
            }
            let (end, kept) = hole.fill(&t.fields, text, t.before.len())?;
            if text[end..].starts_with(&*t.after) && rest_ok(&text[end + t.after.len()..]) {
                Some((t, end + t.after.len(), kept))
            } else {
                hole.take_back(kept);
                None
            }
        })
    }

    /// The template that a chunk at the start of `text` fits (as
    /// [`Self::find_prefix`]), the string in its hole, still escaped, and the
    /// chunk's length.
    pub fn find_hole<'t>(
        &self,
        text: &'t str,
        rest_ok: impl Fn(&str) -> bool,
    ) -> Option<(&Template<F>, JStr<'t>, usize)> {
        self.list.iter().find_map(|t| {
            if text.len() < t.before.len() + t.after.len() || !text.starts_with(&*t.before) {
                return None;
            }
            let start = t.before.len();
            let (end, escaped) = json::scan_string(text.as_bytes(), start)?;
            (text[end..].starts_with(&*t.after) && rest_ok(&text[end + t.after.len()..])).then(
                || {
                    let value = JStr::from_scanned(&text[start..end], escaped);
                    (t, value, end + t.after.len())
                },
            )
        })
    }

    /// Keeps `text` (with its varying string at `hole`) as a template,
    /// unless the same template is already kept.
    pub fn keep(&mut self, text: &str, hole: Hole, fields: impl FnOnce() -> F) {
        let (before, after) = (&text[..hole.start], &text[hole.end..]);
        if self
            .list
            .iter()
            .any(|t| *t.before == *before && *t.after == *after)
        {
            return;
        }
        let template = Template {
            before: before.into(),
            after: after.into(),
            event_before: format!("data: {before}").into(),
            event_after: format!("{after}\n\n").into(),
            between_events: format!("{after}\n\ndata: {before}").into(),
            fields: fields(),
        };
        if self.list.len() < MAX_TEMPLATES {
            self.list.push(template);
        } else {
            self.list[self.next] = template;
            self.next = (self.next + 1) % MAX_TEMPLATES;
        }
    }
}
