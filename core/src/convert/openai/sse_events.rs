//! The OpenAI SSE body: events as the OpenAI SDK that Qwen Code bundles
//! hands them on (`[DONE]`, `thread.*` events, the in-band error check),
//! and the byte path, runs of argument-only events taken whole.

use super::OpenAIStream;
use crate::convert::path_counters::{self, Path};
use crate::convert::stream_input::{SseConsumer, StreamInput};
use crate::foundations::error::Error;
use crate::foundations::json::{self};
use crate::foundations::sse::{Rest, SseEvent};
use crate::model::gemini::Response;

impl SseConsumer for OpenAIStream {
    fn input(&mut self) -> &mut StreamInput {
        &mut self.lifecycle.input
    }

    fn sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        self.on_sse_event(e, out)
    }

    /// Runs of argument-only chunks that fit a template, each written as
    /// the API writes it (`data: `, the chunk, a blank line, in `\n`),
    /// taken without line framing (the byte path) while the template path is
    /// open; anything
    /// else is left to the decoder. A chunk's text holds no line break (the
    /// template came from one `data:` line, and the scanned string stops at
    /// control characters), so such a run is exactly these events. The bytes
    /// are not validated beforehand: a run of one call's chunks compares
    /// them with its template's text and validates the strings it decodes
    /// ([`Self::argument_run`]); any other chunk is read from text validated
    /// ahead of it ([`Rest::text_from`]).
    fn raw_sse_events(
        &mut self,
        rest: &mut Rest<'_>,
        out: &mut Vec<Response>,
    ) -> (usize, Result<(), Error>) {
        const DATA: &str = "data: ";
        const END: &str = "\n\n";
        let bytes = rest.bytes();
        if path_counters::disabled(Path::Byte) {
            return (0, Ok(()));
        }
        let build = !self.config.drop_empty;
        let chunks_before = self.templates.converted;
        let mut taken = 0;
        while !self.lifecycle.done && self.is_quiet() {
            let (run, result) = self.argument_run(&bytes[taken..], build, out);
            taken += run;
            if let Err(e) = result {
                self.note_byte_path_chunks(chunks_before);
                return (taken, Err(*e));
            }
            if !bytes[taken..].starts_with(DATA.as_bytes()) {
                break;
            }
            let Some(data) = rest.text_from(taken, taken).strip_prefix(DATA) else {
                break;
            };
            let Some((len, result)) =
                self.template_prefix(data, build, |rest| rest.starts_with(END), out)
            else {
                break;
            };
            taken += DATA.len() + len + END.len();
            if let Err(e) = result {
                self.note_byte_path_chunks(chunks_before);
                return (taken, Err(*e));
            }
        }
        self.note_byte_path_chunks(chunks_before);
        (taken, Ok(()))
    }
}

impl OpenAIStream {
    /// Raw bytes of the SSE body: one response per `data:` event until
    /// `[DONE]`. An in-band `{"error": …}` payload is a `STREAM_ERROR`, as
    /// the OpenAI SDK throws (`Stream.fromSSEResponse`: `data.error`).
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_sse(bytes, out)
    }

    pub(super) fn on_sse_event(
        &mut self,
        e: SseEvent<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let (event, data) = (e.event, e.data);
        self.sdk_event(e, out)
            .map_err(|err| err.in_frame(event, data))
    }

    /// One SSE event, as the OpenAI SDK that Qwen Code bundles hands it on.
    pub(super) fn sdk_event(
        &mut self,
        e: SseEvent<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        if self.lifecycle.done {
            return Ok(());
        }
        if e.data.starts_with("[DONE]") {
            self.lifecycle.done = true;
            return Ok(());
        }
        // The OpenAI SDK (5.11.0, `Stream.fromSSEResponse`) yields a
        // `thread.*` event as `{event, data}`, without its in-band error check.
        if let Some(name) = e.event.filter(|n| n.starts_with("thread.")) {
            json::parse(e.data)?;
            let mut text = String::with_capacity(e.data.len() + name.len() + 20);
            text.push_str("{\"event\":");
            json::write_str(&mut text, name);
            text.push_str(",\"data\":");
            text.push_str(e.data);
            text.push('}');
            let response = self.convert_text(&text, false)?;
            self.yield_sse(response, out);
            return Ok(());
        }
        if self.config.drop_empty && self.is_quiet() && self.template_chunk(e.data, false, out)? {
            return Ok(());
        }
        let response = self.convert_text(e.data, true)?;
        self.yield_sse(response, out);
        Ok(())
    }

    /// A response of the SSE paths, unless `drop_empty` leaves it out.
    pub(super) fn yield_sse(&mut self, response: Response, out: &mut Vec<Response>) {
        if !(self.config.drop_empty && response.is_dropped_by_pipeline()) {
            out.push(response);
        }
    }
}

impl OpenAIStream {
    /// The chunks the byte path converted since `chunks_before` (they went
    /// through the template path), counted in test builds.
    fn note_byte_path_chunks(&self, chunks_before: u64) {
        for _ in chunks_before..self.templates.converted {
            path_counters::taken(Path::Byte);
        }
    }
}
