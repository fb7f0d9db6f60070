//! The byte path: the hot `content_block_delta` events (`input_json_delta`,
//! `text_delta`, `thinking_delta`) recognised by the exact shape the API
//! writes them in and converted without building a DOM, in an SSE run
//! handed over whole or one event at a time. Any other spelling takes
//! the state machine ([`super::events`]).

use super::AnthropicStream;
use crate::convert::anthropic::prefix;
use crate::convert::path_counters::{self, Path};
use crate::foundations::error::Error;
use crate::foundations::json::{self};
use crate::model::gemini::{Part, Response};

/// A hot event taken from the bytes: its length and the outcome of
/// converting it. The error is boxed so the outcome stays two words: a large
/// `Result` returned through the event loop spilled to the stack and stalled
/// on store forwarding at every event (~12% of the core's samples).
type Taken = (usize, Result<(), Box<Error>>);

impl AnthropicStream {
    /// The hot event of a tool-heavy stream, as the Anthropic API serialises
    /// it: `{"type":"content_block_delta","index":N,"delta":{"type":
    /// "input_json_delta","partial_json":"…"}}`. Recognised by its exact
    /// shape and appended without building a DOM; any other spelling takes
    /// the general path. Returns whether the event was consumed.
    pub(super) fn byte_path_event(
        &mut self,
        data: &str,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        match self.hot_event(data, str::is_empty, out) {
            None => Ok(false),
            Some((_, result)) => result.map(|()| true).map_err(|e| *e),
        }
    }

    /// A hot event at the start of `data`, followed by text that `rest_ok`
    /// accepts: [`Self::input_json_delta`] or [`Self::text_delta`]. The one
    /// entry of the byte path, counted in test builds.
    pub(super) fn hot_event(
        &mut self,
        data: &str,
        rest_ok: impl Fn(&str) -> bool,
        out: &mut Vec<Response>,
    ) -> Option<Taken> {
        if path_counters::disabled(Path::Byte) {
            return None;
        }
        let taken = self
            .input_json_delta(data, &rest_ok)
            .or_else(|| self.text_delta(data, &rest_ok, out))?;
        path_counters::taken(Path::Byte);
        Some(taken)
    }

    /// The hot events of a text-heavy stream, as the API serialises them:
    /// `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta",
    /// "text":"…"}}` (or `thinking_delta` / `"thinking"`), followed by text
    /// that `rest_ok` accepts. Converted as `content_block_delta` does (the
    /// index plays no part for these deltas) without building a DOM. Returns
    /// the length of the event's JSON; `None`, with nothing changed, for any
    /// other shape.
    pub(super) fn text_delta(
        &mut self,
        data: &str,
        rest_ok: impl Fn(&str) -> bool,
        out: &mut Vec<Response>,
    ) -> Option<Taken> {
        const TEXT: &str = ",\"delta\":{\"type\":\"text_delta\",\"text\":\"";
        const THINKING: &str = ",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"";
        const TAIL: &str = "\"}}";
        let (_, rest) = delta_head(data)?;
        let (thought, body) = match prefix::strip(rest, TEXT) {
            Some(body) => (false, body),
            None => (true, prefix::strip(rest, THINKING)?),
        };
        let (end, escaped) = json::scan_string(body.as_bytes(), 0)?;
        let after = &body[end..];
        if !after.starts_with(TAIL) || !rest_ok(&after[TAIL.len()..]) {
            return None;
        }
        if end > 0 {
            let text = json::JStr::from_scanned(&body[..end], escaped).text();
            let part = if thought {
                Part::thought(text)
            } else {
                Part::text(text)
            };
            let chunk = self.chunk(Some(part));
            self.message.payload = true;
            out.push(chunk);
        }
        Some((data.len() - body.len() + end + TAIL.len(), Ok(())))
    }

    /// The hot event at the start of `data`, followed by text that `rest_ok`
    /// accepts: its fragment appended to its block (scanned and decoded in
    /// one pass). Returns the length of the event's JSON and the outcome of
    /// the append (limits); `None`, with nothing changed, when `data` does
    /// not start with the hot event.
    pub(super) fn input_json_delta(
        &mut self,
        data: &str,
        rest_ok: impl Fn(&str) -> bool,
    ) -> Option<Taken> {
        const MID: &str = ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"";
        const TAIL: &str = "\"}}";
        let (index, rest) = delta_head(data)?;
        let body = prefix::strip(rest, MID)?;
        // The event's length, given where its string ends in `body`.
        let len = |end: usize| data.len() - body.len() + end + TAIL.len();
        let shaped =
            |end: usize| body[end..].starts_with(TAIL) && rest_ok(&body[end + TAIL.len()..]);
        let Some(pos) = self
            .blocks
            .open
            .iter()
            .position(|b| prefix::same(&b.key, index))
        else {
            // No such block: a valid event is ignored.
            let (end, _) = json::scan_string(body.as_bytes(), 0)?;
            return shaped(end).then(|| (len(end), Ok(())));
        };
        // Taken back when the event turns out to have another shape.
        let block = &mut self.blocks.open[pos];
        let before = block.input_json.len();
        let end = json::scan_json_text_into(body, 0, &mut block.input_json, &mut block.lone)?;
        if !shaped(end) {
            block.input_json.truncate(before);
            block.lone.truncate(before);
            return None;
        }
        let result = if end > 0 {
            self.blocks
                .check_limits(pos, before, &self.options.limits, self.input.buffered())
                .map_err(Box::new)
        } else {
            Ok(())
        };
        Some((len(end), result))
    }
}

/// `{"type":"content_block_delta","index":N` at the start of `data`, N a
/// plain integer as the API writes it: N and the rest.
fn delta_head(data: &str) -> Option<(&str, &str)> {
    const HEAD: &str = "{\"type\":\"content_block_delta\",\"index\":";
    let rest = prefix::strip(data, HEAD)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 15 || (digits > 1 && rest.starts_with('0')) {
        return None;
    }
    Some(rest.split_at(digits))
}
