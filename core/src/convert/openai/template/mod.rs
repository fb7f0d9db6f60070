//! The template path: argument-only and content-only chunks converted from
//! a known chunk's bytes ([`store`]), without a tree, when the converter's
//! state lets a template give exactly the long way's response. Which chunks
//! are kept as templates: `kept`.

use super::tool_call_parser::{ArgumentChunk, ProviderIndex, ToolCallParser};
use super::OpenAIStream;
use crate::convert::path_counters::{self, Path};
use crate::foundations::error::Error;
use crate::foundations::json::{self, LoneEscapes};
use crate::model::gemini::{Part, Response};
use store::{Fields, Fill, Header};

mod kept;
pub(super) mod store;

pub(super) use kept::TemplatePath;

impl OpenAIStream {
    /// A chunk that fits a template, while no part is held and no tag
    /// candidate is pending. An argument-only chunk: of
    /// `convertOpenAIChunkToGemini`'s steps only the tool-call delta can act
    /// (no content, no reasoning, no finish, no usage; the thinking-tag
    /// guard sees no visible text; holding moves no part, as there is none),
    /// so that is all this does. A content-only chunk, while
    /// [`Self::is_text_ready`]: only the text normaliser acts
    /// ([`Self::push_plain_text`]). Its response goes to `out`; `build`:
    /// build it even when the pipeline would drop it (else nothing is built;
    /// `build` is always on when `drop_empty` is off). Whether the chunk took
    /// the template path.
    pub(super) fn template_chunk(
        &mut self,
        text: &str,
        build: bool,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        match self.template_prefix(text, build, str::is_empty, out) {
            None => Ok(false),
            Some((_, result)) => result.map(|()| true).map_err(|e| *e),
        }
    }

    /// [`Self::template_chunk`] on a chunk at the start of `text` that ends
    /// where `rest_ok` accepts what follows it: the chunk's length and its
    /// outcome; `None` when no template fits.
    pub(super) fn template_prefix(
        &mut self,
        text: &str,
        build: bool,
        rest_ok: impl Fn(&str) -> bool,
        out: &mut Vec<Response>,
    ) -> Option<(usize, Result<(), Box<Error>>)> {
        if path_counters::disabled(Path::Template) {
            return None;
        }
        if let Some(taken) = self.argument_template_prefix(text, build, &rest_ok, out) {
            return Some(taken);
        }
        if self.templates.content.is_empty() || !self.is_text_ready() {
            return None;
        }
        let (header, content, len) = self
            .templates
            .content
            .find_hole(text, rest_ok)
            .map(|(template, content, len)| (template.fields.clone(), content, len))?;
        let normalized = self.plain_text(&content.text());
        self.templates.note_chunk();
        self.note_template_header(&header);
        if normalized.is_empty() && !build {
            // Dropped unseen with its sanitisation note, as the pipeline
            // drops it.
            self.guard.sanitized = None;
            return Some((len, Ok(())));
        }
        let parts = if normalized.is_empty() {
            Vec::new()
        } else {
            vec![Part::text(normalized)]
        };
        out.push(header.response(parts, Vec::new(), self.guard.sanitized.take()));
        Some((len, Ok(())))
    }

    /// [`Self::template_prefix`] for argument-only chunks: the chunk's length and
    /// its outcome; `None` when no argument template fits. The outcome is two words
    /// (the response goes to `out`, the error is boxed): a large value
    /// returned through the raw event loop spilled to the stack and stalled
    /// on store forwarding at every chunk.
    pub(super) fn argument_template_prefix(
        &mut self,
        text: &str,
        build: bool,
        rest_ok: impl Fn(&str) -> bool,
        out: &mut Vec<Response>,
    ) -> Option<(usize, Result<(), Box<Error>>)> {
        let templates = std::mem::take(&mut self.templates.arguments);
        let mut hole = ArgumentHole {
            parser: &mut self.calls.parser,
            scratch: std::mem::take(&mut self.templates.scratch),
            scratch_lone: LoneEscapes::new(),
        };
        hole.scratch.clear();
        let found = templates.find_prefix(text, &mut hole, rest_ok);
        let (scratch, scratch_lone) = (hole.scratch, hole.scratch_lone);
        let result = found.map(|(template, len, kept)| {
            let f = &template.fields;
            let mut preparations = Vec::new();
            let fed = match kept {
                // `addChunk` is done: what `feed` does after it is to
                // check the limits (nothing is left to prepare).
                Kept::Appended(pos) => self.check_limits(Some(self.calls.parser.len_at(pos))),
                Kept::Scratch => self.feed(
                    f.index,
                    ArgumentChunk::string(&scratch, &scratch_lone),
                    f.id.as_deref(),
                    f.name.as_deref(),
                    &mut preparations,
                ),
            };
            let converted = fed.map_err(Box::new).map(|()| {
                self.templates.note_chunk();
                self.note_template_header(&f.header);
                if !build && preparations.is_empty() {
                    // Dropped unseen with its sanitisation note, as the
                    // pipeline drops it.
                    self.guard.sanitized = None;
                    return;
                }
                out.push(
                    f.header
                        .response(Vec::new(), preparations, self.guard.sanitized.take()),
                );
            });
            (len, converted)
        });
        self.templates.arguments = templates;
        self.templates.scratch = scratch;
        result
    }

    /// The run of argument-chunk events at the start of `bytes` that continue
    /// one call through one template ([`ToolCallParser::continuing`]), each
    /// added to the call as its string is decoded: the bulk of a streamed
    /// call, taken in one loop instead of one template search a chunk. How
    /// many bytes it took, and the outcome (an error ends the run after the
    /// chunk that caused it, as [`Self::argument_template_prefix`] does).
    pub(super) fn argument_run(
        &mut self,
        bytes: &[u8],
        build: bool,
        out: &mut Vec<Response>,
    ) -> (usize, Result<(), Box<Error>>) {
        if path_counters::disabled(Path::Template) {
            return (0, Ok(()));
        }
        let templates = std::mem::take(&mut self.templates.arguments);
        let run = templates.iter().find_map(|t| {
            let (ProviderIndex::Valid(index), None, None) =
                (t.fields.index, &t.fields.id, &t.fields.name)
            else {
                return None;
            };
            if !bytes.starts_with(t.event_before().as_bytes()) {
                return None;
            }
            self.calls.parser.continuing(index).map(|pos| (t, pos))
        });
        let mut taken = 0;
        let mut result = Ok(());
        if let Some((t, pos)) = run {
            // The bytes between the strings are the template's text (valid
            // UTF-8); the strings are validated as they are decoded.
            let (head, tail, between) = (
                t.event_before().as_bytes(),
                t.event_after().as_bytes(),
                t.between_events().as_bytes(),
            );
            let mut start = head.len();
            while let Some(end) = self.calls.parser.append_string(pos, bytes, start) {
                // One comparison to the next event's string, most of the time.
                let next = bytes[end..].starts_with(between);
                if !next && !bytes[end..].starts_with(tail) {
                    self.calls.parser.take_back();
                    break;
                }
                taken = end + tail.len();
                if let Err(e) = self.check_limits(Some(self.calls.parser.len_at(pos))) {
                    result = Err(Box::new(e));
                    break;
                }
                self.templates.note_chunk();
                if build {
                    let response = t.fields.header.response(
                        Vec::new(),
                        Vec::new(),
                        self.guard.sanitized.take(),
                    );
                    out.push(response);
                } else {
                    // Dropped unseen with its sanitisation note, as the
                    // pipeline drops it.
                    self.guard.sanitized = None;
                }
                if !next || !self.calls.parser.still_continuing(pos) {
                    break;
                }
                start = end + between.len();
            }
            if taken > 0 {
                self.note_template_header(&t.fields.header);
            }
        }
        self.templates.arguments = templates;
        (taken, result)
    }

    /// The header of the chunks just converted from a template, for the JS
    /// object path: the one the long way built from the template's chunk,
    /// whose fields they repeat.
    fn note_template_header(&mut self, header: &Header) {
        if let Some(chunk) = &header.chunk {
            self.chunk_header.note(chunk);
        }
    }
}

/// Where an argument chunk's string goes as the templates are tried: a
/// chunk that continues a call ([`ToolCallParser::continuing`]) is added
/// to it as it is decoded, the rest decoded into `scratch` for `feed`.
struct ArgumentHole<'p> {
    parser: &'p mut ToolCallParser,
    scratch: String,
    /// Where `scratch` holds lone surrogates as escapes.
    scratch_lone: LoneEscapes,
}

/// What an [`ArgumentHole`] kept of a chunk's string.
enum Kept {
    /// Added to the call it continues (at this slot position).
    Appended(usize),
    /// Decoded into the scratch string, to be fed.
    Scratch,
}

impl Fill<Fields> for ArgumentHole<'_> {
    type Kept = Kept;

    fn fill(&mut self, fields: &Fields, text: &str, start: usize) -> Option<(usize, Kept)> {
        let continuing = match (fields.index, &fields.id, &fields.name) {
            (ProviderIndex::Valid(index), None, None) => self.parser.continuing(index),
            _ => None,
        };
        match continuing {
            Some(pos) => self
                .parser
                .append_string(pos, text.as_bytes(), start)
                .map(|end| (end, Kept::Appended(pos))),
            None => {
                json::scan_json_text_into(text, start, &mut self.scratch, &mut self.scratch_lone)
                    .map(|end| (end, Kept::Scratch))
            }
        }
    }

    fn take_back(&mut self, kept: Kept) {
        match kept {
            Kept::Appended(_) => self.parser.take_back(),
            Kept::Scratch => {
                self.scratch.clear();
                self.scratch_lone = LoneEscapes::new();
            }
        }
    }
}
