//! A frame's data converted as `iterateBody` converts it (Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-pipeline.ts):
//! `JSON.parse` of the data, where a `SyntaxError` skips the frame, then
//! `convertResponsesEventToGemini` by the `event:` line's type, else by the
//! data's own `type`.
//!
//! The short way wherever it gives the same (`Path::Fields`): a frame whose
//! type the converter converts to nothing (`Event::named`) is not parsed at
//! all, since its data can change nothing; a hot event, a delta and most of
//! a stream, is read field by field (`json::flat_fields`), not into a tree.
//! Data the field reader declines (a field it reads holding an array or an
//! object, an escaped key, text that is not JSON) is parsed the long way,
//! which decides.

use super::events::{Event, HotFields, HOT_KEYS};
use super::js_read;
use super::lines::{FrameSink, LineReader};
use super::OpenAIResponsesStream;
use crate::convert::path_counters::{self, Path};
use crate::foundations::error::Error;
use crate::foundations::json::{self, Value};
use crate::model::gemini::Response;

/// The stream and its output as the line reader's sink.
struct Frames<'a> {
    stream: &'a mut OpenAIResponsesStream,
    out: &'a mut Vec<Response>,
}

impl FrameSink for Frames<'_> {
    fn frame(&mut self, event: Option<&str>, data: &str) -> Result<(), Error> {
        match event {
            Some(event) => self.stream.named_frame(event, data, self.out),
            None => match self.stream.unframed_short(data, self.out) {
                Some(result) => result,
                None => match json::parse(data) {
                    Ok(value) => self.stream.unframed(&value, data, self.out),
                    Err(_) => Ok(()),
                },
            },
        }
    }
}

impl OpenAIResponsesStream {
    /// Raw body bytes through the line reader, each frame converted.
    pub(super) fn read_lines(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let mut lines = std::mem::replace(&mut self.lines, LineReader::new(0));
        let result = lines.push(bytes, &mut Frames { stream: self, out });
        self.lines = lines;
        result
    }

    /// The end of the body: the line reader's last line and open frame.
    pub(super) fn read_last_lines(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        let mut lines = std::mem::replace(&mut self.lines, LineReader::new(0));
        let result = lines.finish(&mut Frames { stream: self, out });
        self.lines = lines;
        result
    }

    /// A frame with an `event:` line naming `event`.
    fn named_frame(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let short = !path_counters::disabled(Path::Fields);
        let kind = match Event::named(event) {
            Some(kind) => kind,
            None if short => {
                path_counters::taken(Path::Fields);
                return Ok(());
            }
            None => return self.long_way(None, event, data, out),
        };
        if short && kind.is_hot() {
            if let Some(fields) = json::flat_fields(data, &HOT_KEYS) {
                path_counters::taken(Path::Fields);
                return self.hot_event(kind, &HotFields::read(&fields), out);
            }
        }
        self.long_way(Some(kind), event, data, out)
    }

    /// The data parsed into a tree, then converted (`kind`: `None` converts
    /// nothing).
    fn long_way(
        &mut self,
        kind: Option<Event>,
        event: &str,
        data: &str,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        match (kind, json::parse(data)) {
            (Some(kind), Ok(value)) => self.event(kind, event, &value, data, out),
            _ => Ok(()),
        }
    }

    /// A `data:` value read on its own, the short way: `None` where it must
    /// be parsed into a tree ([`Self::unframed`]).
    pub(super) fn unframed_short(
        &mut self,
        data: &str,
        out: &mut Vec<Response>,
    ) -> Option<Result<(), Error>> {
        if path_counters::disabled(Path::Fields) {
            return None;
        }
        let fields = json::flat_fields(data, &HOT_KEYS)?;
        let name = fields[3].as_ref().and_then(Value::as_str);
        let name = name.as_deref().filter(|name| !name.is_empty());
        match name.map(Event::named) {
            // No type, or one that converts to nothing.
            None | Some(None) => {
                path_counters::taken(Path::Fields);
                Some(Ok(()))
            }
            Some(Some(kind)) if kind.is_hot() => {
                path_counters::taken(Path::Fields);
                Some(self.hot_event(kind, &HotFields::read(&fields), out))
            }
            Some(Some(_)) => None,
        }
    }

    /// A `data:` value read on its own: `data["type"]` names the event
    /// when it is truthy (only a string names one the converter knows).
    pub(super) fn unframed(
        &mut self,
        data: &Value<'_>,
        text: &str,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let kind = js_read::read(Some(data), "type", "data")?;
        match kind.and_then(Value::as_str) {
            Some(name) if !name.is_empty() => match Event::named(&name) {
                Some(kind) => self.event(kind, &name, data, text, out),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}
