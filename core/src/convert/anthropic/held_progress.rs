//! The argument progress of bytes that have reached the process but not the
//! converter: the Qwen preload holds back the frames the Anthropic SDK's
//! decoder has not handed on yet (lib/qwen/sdk-frames.mjs: the Anthropic SDK Qwen Code
//! bundles cuts a frame only with one more byte after its blank line), so the
//! Gemini output and its timing stay stock's. Those frames are read here
//! without being converted: each complete `input_json_delta` event among
//! them counts toward the open block of its index, as
//! [`super::events`] would append it, and nothing else changes. A frame
//! still arriving (no blank line yet) counts once it is complete, as the
//! SDK dispatches it then: its `partial_json` is not known to be one until
//! the event's JSON is whole.

use super::events::{append_fragment, index_key};
use super::sse_events::yields_event;
use super::AnthropicStream;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{self, LoneEscapes};
use crate::model::argument_progress::ArgumentProgress;

impl AnthropicStream {
    /// [`Self::argument_progress`] with `held`, the bytes of the body after
    /// those pushed so far, counted as if pushed: the held events' argument
    /// fragments add to their open blocks' counts, the converter unchanged.
    /// Counting stops where the SDK would stop handing events on (an
    /// `error` event, a frame it cannot parse); a held event that opens or
    /// closes a block ends the count for its index (what follows belongs to
    /// a card not prepared yet).
    pub fn argument_progress_with_held(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        if self.is_finished() {
            return Vec::new();
        }
        let open = &self.blocks.open;
        let mut more = vec![String::new(); open.len()];
        if !held.is_empty() && open.iter().any(|b| b.prepared.is_some()) {
            let mut ended: Vec<String> = Vec::new();
            // The peek's error only ends the count.
            let _ = self.input.peek_events(held, |e| {
                // The events the SDK hands on by name, as conversion takes them.
                if e.event == Some("error") {
                    return Err(stop());
                }
                if !yields_event(e.event) {
                    return Ok(());
                }
                let ev = json::parse(e.data)?;
                let key = || index_key(&ev);
                // Matched on the raw text, as `events::event` matches them.
                match ev.at("type").as_jstr().map(|t| t.raw()) {
                    Some("content_block_start" | "content_block_stop") => ended.push(key()),
                    Some("content_block_delta") => {
                        let delta = ev.at("delta");
                        if delta.is_null() {
                            // `event.delta.type` of it: the reference throws.
                            return Err(stop());
                        }
                        if delta.at("type").as_jstr().map(|t| t.raw()) != Some("input_json_delta") {
                            return Ok(());
                        }
                        let fragment = delta.at("partial_json");
                        let key = key();
                        if !fragment.truthy() || ended.contains(&key) {
                            return Ok(());
                        }
                        if let Some(pos) = open.iter().position(|b| b.key == key) {
                            // Lone surrogates stay escapes, as the block's own text keeps them.
                            append_fragment(fragment, &mut more[pos], &mut LoneEscapes::new());
                        }
                    }
                    _ => {}
                }
                Ok(())
            });
        }
        self.blocks.progress(&more)
    }
}

fn stop() -> Error {
    Error::new(ErrorCode::StreamError, "held events stop here")
}
