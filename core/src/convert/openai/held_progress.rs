//! The argument progress of bytes that have reached the process but not the
//! converter: the Qwen preload holds back what the OpenAI SDK's decoder has
//! not handed on yet (lib/qwen/sdk-frames.mjs: a frame still arriving, and
//! the `\r` LineDecoder holds, which leaves a frame ended by `\r\r`
//! undispatched), so the Gemini output and its timing stay stock's. Those
//! bytes are read here without being converted: each complete chunk's
//! argument fragments count toward the call they continue, and nothing
//! else changes. A frame still arriving counts once it is complete, as the
//! SDK dispatches it then.

use super::chunk::{first, provider_index};
use super::tool_call_parser::{HeldArguments, ProviderIndex};
use super::OpenAIStream;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{self, Value};
use crate::model::argument_progress::ArgumentProgress;

impl OpenAIStream {
    /// [`Self::argument_progress`] with `held`, the bytes of the body after
    /// those pushed so far, counted as if pushed, the converter unchanged.
    /// A held chunk's fragment counts where `addChunk` would only append
    /// it to a call already open (no id, no name: the bulk of a streamed
    /// call; [`super::tool_call_parser::ToolCallParser::hold_continuation`]);
    /// a fragment with an id or a name ends the count for its index (it
    /// may open another call). Counting stops where the SDK would stop
    /// handing chunks on (`[DONE]`, an in-band error, a frame it cannot
    /// parse).
    pub fn argument_progress_with_held(&mut self, held: &[u8]) -> Vec<ArgumentProgress> {
        if self.is_finished() {
            return Vec::new();
        }
        let mut more = HeldArguments::default();
        if !held.is_empty() && !self.lifecycle.done && !self.calls.prepared.is_empty() {
            let parser = &self.calls.parser;
            let mut ended: Vec<u64> = Vec::new();
            // The peek's error only ends the count.
            let _ = self.lifecycle.input.peek_events(held, |e| {
                // As `sse_events::sdk_event` follows `Stream.fromSSEResponse`.
                if e.data.starts_with("[DONE]") {
                    return Err(stop());
                }
                if e.event.is_some_and(|n| n.starts_with("thread.")) {
                    return Ok(());
                }
                let chunk = json::parse(e.data)?;
                if chunk.get("error").is_some_and(Value::truthy) {
                    return Err(stop());
                }
                let Some(choice) = chunk.get("choices").and_then(first).filter(|c| c.truthy())
                else {
                    return Ok(());
                };
                let Value::Arr(calls) = choice.at("delta").at("tool_calls") else {
                    return Ok(());
                };
                for call in calls {
                    let ProviderIndex::Valid(index) = provider_index(call.get("index")) else {
                        continue;
                    };
                    let function = call.at("function");
                    if call.at("id").truthy() || !function.at("name").is_null() {
                        ended.push(index);
                        continue;
                    }
                    let Some(text) = function.at("arguments").as_jstr() else {
                        continue;
                    };
                    if ended.contains(&index) {
                        continue;
                    }
                    let (text, _) = text.json_text();
                    if !parser.hold_continuation(&mut more, index, &text) {
                        ended.push(index);
                    }
                }
                Ok(())
            });
        }
        self.calls.progress(&more)
    }
}

fn stop() -> Error {
    Error::new(ErrorCode::StreamError, "held chunks stop here")
}
