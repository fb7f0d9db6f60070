//! The argument progress of the open calls, with bytes of the body that
//! have reached the process but not the converter counted as if pushed
//! (a host holds them back where its own reader holds them), without
//! converting them: each complete `response.function_call_arguments.delta`
//! among them adds to its open call, and an `output_item.added` or
//! `output_item.done` of an index ends the count for it.

use std::collections::HashSet;

use super::js_read::read;
use super::lines::FrameSink;
use super::output_index::OutputIndex;
use super::OpenAIResponsesStream;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::append_js_string_to_arguments;
use crate::foundations::json::{self, LoneEscapes};
use crate::model::argument_progress::ArgumentProgress;

impl OpenAIResponsesStream {
    /// The progress of each open call that yielded a preparation, in the
    /// order they opened, `held` counted as if pushed; nothing once the
    /// stream is finished.
    pub fn argument_progress_with_held(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        if self.finished {
            return Vec::new();
        }
        let mut counted = Held {
            stream: self,
            more: Vec::new(),
            ended: HashSet::new(),
        };
        if !held.is_empty() {
            let mut lines = counted.stream.lines.clone();
            // An error only ends the count.
            let _ = lines.push(held, &mut counted);
        }
        let more = std::mem::take(&mut counted.more);
        self.calls.progress(&more)
    }
}

struct Held<'a> {
    stream: &'a OpenAIResponsesStream,
    /// Argument text not pushed yet, by call buffer.
    more: Vec<(usize, String)>,
    /// Buffers whose count ended.
    ended: HashSet<usize>,
}

impl FrameSink for Held<'_> {
    fn frame(&mut self, event: Option<&str>, data: &str) -> Result<(), Error> {
        let Ok(value) = json::parse(data) else {
            return Ok(());
        };
        let kind = match event {
            Some(e) => e.to_owned(),
            None => match read(Some(&value), "type", "data")?.and_then(json::Value::as_str) {
                Some(k) => k.into_owned(),
                None => return Ok(()),
            },
        };
        let index = || OutputIndex::of(value.get("output_index"));
        match kind.as_str() {
            "response.output_item.added" | "response.output_item.done" => {
                if let Some(at) = self.stream.calls.open_at(&index()) {
                    self.ended.insert(at);
                }
            }
            "response.function_call_arguments.delta" => {
                if value.is_null() {
                    return Err(stop());
                }
                let Some(at) = self.stream.calls.open_at(&index()) else {
                    return Ok(());
                };
                if self.ended.contains(&at) {
                    return Ok(());
                }
                let mut text = String::new();
                match value.get("delta") {
                    None => text.push_str("undefined"),
                    Some(delta) => {
                        append_js_string_to_arguments(delta, &mut text, &mut LoneEscapes::new())
                    }
                }
                match self.more.iter_mut().find(|(i, _)| *i == at) {
                    Some((_, more)) => more.push_str(&text),
                    None => self.more.push((at, text)),
                }
            }
            "response.failed" | "error" => return Err(stop()),
            _ => {}
        }
        Ok(())
    }
}

fn stop() -> Error {
    Error::new(ErrorCode::InvalidEvent, "the count stops here")
}
