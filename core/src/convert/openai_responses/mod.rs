//! The OpenAI Responses API stream → Gemini chunks, with the semantics of
//! Qwen Code's `openai-responses` content generator (0.23.3 and later):
//! `ResponsesPipeline.iterateBody`'s own line reader and
//! `convertResponsesEventToGemini` with its `ResponsesStreamState` (Qwen
//! Code packages/core/src/core/openaiResponsesContentGenerator/). Under
//! [`Profile::Qwen0233`] the text parts carry no message metadata, as in
//! 0.23.3; under any other profile they do, as from 0.23.4 on.
//!
//! One job a file: the stream's state and its public face here; `lines`
//! (the body's line reader), `frames` (a frame's data read, the short way
//! where it gives the same), `events` (one event converted), `messages`
//! (the message metadata of text parts), `message_item` (how the JS layer
//! learns of it), `calls` (the function calls, their
//! arguments, preparations and progress), `output_index` (an output index
//! as the reference's `Map`s key it), `usage` (`usageMetadata`),
//! `stream_error` (the errors of `response.failed` and `error`), `js_read`
//! (property reads as the reference's JavaScript makes them),
//! `held_progress` (the progress of bytes not pushed yet), `key_order`,
//! `seam` (the provider seam's calls) and `body` (a non-streaming body).

pub mod body;
mod calls;
mod events;
mod frames;
mod held_progress;
mod js_read;
pub mod key_order;
mod lines;
pub mod message_item;
mod messages;
mod output_index;
mod seam;
mod stream_error;
mod usage;

use std::rc::Rc;

use crate::convert::options::ConverterOptions;
use crate::convert::settings::Settings;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{self, write_str};
use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;
use crate::model::clock::{now_ms_shared, CallClock};
use crate::model::gemini::{Candidate, Part, Response, Usage};
use calls::Calls;
use lines::LineReader;
use messages::Messages;

/// Options of one Responses stream.
#[derive(Clone, Debug, Default)]
pub struct OpenAIResponsesOptions {
    /// [`Profile::Qwen0233`]: no message metadata on text parts (0.23.3).
    pub profile: Profile,
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    pub limits: Limits,
    /// The configured model (`this.config.model`), every chunk's
    /// `modelVersion`; `None`: the key holds `undefined`.
    pub model: Option<String>,
    /// Yield a preparation-only chunk at each function call's
    /// `output_item.added` (once per call id), which stock Qwen does not:
    /// off, the output is stock's.
    pub preparations: bool,
}

impl OpenAIResponsesOptions {
    /// This provider's options from a host's (`crate::convert::settings`):
    /// `model` (a string) and `preparations` (`false` when absent).
    pub fn read(o: &ConverterOptions) -> Result<OpenAIResponsesOptions, Error> {
        let s = Settings::parse(o.settings.as_deref())?;
        Ok(OpenAIResponsesOptions {
            profile: o.profile,
            limits: o.limits,
            model: s.text(&["model"])?,
            preparations: s.flag(&["preparations"])?,
        })
    }
}

/// One request's stream: its reader and the reference's
/// `ResponsesStreamState`.
pub struct OpenAIResponsesStream {
    options: OpenAIResponsesOptions,
    /// `modelVersion` as JSON text.
    model: Option<Rc<str>>,
    lines: LineReader,
    finished: bool,
    /// `state.responseId` as JSON text.
    response_id: Option<Rc<str>>,
    messages: Messages,
    calls: Calls,
}

impl OpenAIResponsesStream {
    /// A fresh `ResponsesStreamState` and reader, as `connectStream` makes
    /// one per request.
    pub fn new(options: OpenAIResponsesOptions) -> Self {
        let model = options.model.as_deref().map(|m| {
            let mut text = String::new();
            write_str(&mut text, m);
            Rc::from(text)
        });
        OpenAIResponsesStream {
            lines: LineReader::new(options.limits.max_buffered_bytes),
            model,
            finished: false,
            response_id: None,
            messages: Messages::default(),
            calls: Calls::default(),
            options,
        }
    }

    /// `end()` was called or the stream failed.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Raw bytes of the SSE body, split anywhere. Any error finishes the
    /// stream, as the reference's generator ends with its throw.
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.check_open()?;
        let _clock = CallClock::start();
        let result = self.read_lines(bytes, out);
        // The error says so: a caller reads `fatal` to know the stream is over.
        result.map_err(|mut e| {
            self.finished = true;
            e.fatal = true;
            e
        })
    }

    /// One event object (`{type, ...}`, as a reader that parsed its `data:`
    /// yields it) as JSON text: converted by its `type`, as `iterateBody`
    /// converts a `data:` line without an `event:` line. Text that is not
    /// JSON is `INVALID_JSON` and leaves the stream usable.
    pub fn push_event_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        self.check_open()?;
        let _clock = CallClock::start();
        let result = match self.unframed_short(text, out) {
            Some(result) => result,
            None => {
                let value = json::parse(text)?;
                self.unframed(&value, text, out)
            }
        };
        if result.as_ref().is_err_and(|e| e.fatal) {
            self.finished = true;
        }
        result
    }

    /// The end of the body: the last unterminated `data:` line and the
    /// frame still open are converted. Finished afterwards.
    pub fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        self.check_open()?;
        let _clock = CallClock::start();
        let result = self.read_last_lines(out);
        self.finished = true;
        result
    }

    /// The body failed: the reference yields nothing more and rethrows.
    pub fn upstream_failed(&mut self) {
        self.finished = true;
    }

    fn check_open(&self) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(
                ErrorCode::Finished,
                "the converter is finished: end() was called or the stream failed",
            ));
        }
        Ok(())
    }

    /// 0.23.4 and later keep message metadata.
    fn tracks_messages(&self) -> bool {
        self.options.profile != Profile::Qwen0233
    }

    /// Bytes held in all: past `maxBufferedBytes`, `LIMIT_EXCEEDED`.
    fn check_buffered(&self) -> Result<(), Error> {
        let max = self.options.limits.max_buffered_bytes;
        if self.calls.buffered() + self.lines.buffered() > max {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("the converter holds more than maxBufferedBytes ({max} bytes)"),
            ));
        }
        Ok(())
    }

    /// `makeChunkResponse(model, state, parts, finishReason)`, with
    /// `makeFinalResponse`'s usage.
    fn chunk(
        &self,
        parts: Vec<Part>,
        finish_reason: Option<&'static str>,
        usage: Option<Usage>,
    ) -> Response {
        Response {
            key_order: &key_order::KEY_ORDER,
            response_id: self.response_id.clone(),
            create_time: now_ms_shared(),
            model_version: self.model.clone(),
            candidate: Some(Candidate {
                parts,
                finish_reason,
            }),
            usage,
            preparations: Vec::new(),
            sanitized: None,
        }
    }
}
