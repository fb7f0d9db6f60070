//! The state machine of `processStream` (docs/behaviour.md §2.3): one
//! parsed event at a time, each event type its own step.

use std::borrow::Cow;
use std::rc::Rc;

use super::arg_limits::Block;
use super::AnthropicStream;
use crate::convert::anthropic::held_calls::Closed;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::{append_js_string_to_arguments, js_to_string};
use crate::foundations::json::{self, LoneEscapes, Value};
use crate::foundations::profile::Profile;
use crate::foundations::repair::safe_json_parse;
use crate::model::argument_progress::LineCount;
use crate::model::gemini::{LiteralKind, Part, Preparation, Response};
use crate::model::lifted::lift_checked;

/// The deepest arrays and objects that V8's `JSON.stringify` writes where
/// the reference stringifies a `tool_use` block's `input`: measured in the
/// published Qwen Code 0.21.10 and 0.24.4 (Node 20), which throw
/// `RangeError: Maximum call stack size exceeded` from 4,111 to 4,113
/// levels, by release and by whether the innermost are arrays or objects.
pub(super) const JS_STRINGIFY_DEPTH: usize = 4111;

impl AnthropicStream {
    /// One event (docs/behaviour.md §2.3).
    pub(super) fn event(&mut self, ev: &Value<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        if ev.is_null() {
            // `processStream` reads `event.type` of it: a TypeError there.
            return Err(Error::null_read("an event must not be null", true, "type"));
        }
        let Some(kind) = ev.at("type").as_jstr() else {
            return Ok(());
        };
        match kind.raw() {
            "content_block_delta" => self.content_block_delta(ev, out),
            "message_start" => self.message_start(ev),
            "content_block_start" => self.content_block_start(ev, out),
            "content_block_stop" => self.content_block_stop(ev, out),
            "message_delta" => self.message_delta(ev, out),
            "message_stop" => self.message_stop(out),
            "error" => {
                self.message.failed_in_band = true;
                Err(stream_error(ev))
            }
            _ => Ok(()),
        }
    }

    /// `message_start`: the header, and the usage the next chunk carries.
    pub(super) fn message_start(&mut self, ev: &Value<'_>) -> Result<(), Error> {
        let message = required(ev, "message", "id")?;
        self.message.header_shown = false;
        if let Some(id) = present(message.get("id")) {
            self.message.id = Some(json::to_json_string(id).into());
        }
        // `model = message.model ?? model`, shown as `model ||
        // undefined`: a falsy model replaces the last one and shows
        // none.
        if let Some(model) = present(message.get("model")) {
            self.message.model = model.truthy().then(|| json::to_json_string(model).into());
        }
        self.usage.read_message_start(message.at("usage"));
        Ok(())
    }

    /// `content_block_start`: a block opens; a `tool_use` block with an id
    /// and a name yields its preparation.
    pub(super) fn content_block_start(
        &mut self,
        ev: &Value<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let block = required(ev, "content_block", "type")?;
        if matches!(block, Value::Num(_) | Value::Str(_) | Value::Bool(_)) {
            // `"id" in event.content_block` of a primitive.
            return Err(Error::type_error(
                "content_block_start event whose `content_block` is not an object",
                format!(
                    "Cannot use 'in' operator to search for 'id' in {}",
                    js_to_string(block)
                ),
            ));
        }
        let key = index_key(ev);
        let ty = block.at("type");
        let kind = if ty.truthy() {
            js_to_string(ty)
        } else {
            "text".to_owned()
        };
        let id = block.get("id");
        let name = block.get("name");
        let mut input_json = String::new();
        if kind == "tool_use" {
            if let Some(input) = block.get("input") {
                // The reference's `JSON.stringify(event.content_block.input)`
                // (anthropicContentGenerator.ts, processStream) recurses in
                // V8 and throws past [`JS_STRINGIFY_DEPTH`].
                if json::nests_deeper_than(input, JS_STRINGIFY_DEPTH) {
                    return Err(Error::stack_overflow(format!(
                        "tool_use input nested deeper than JSON.stringify takes ({JS_STRINGIFY_DEPTH} levels)"
                    )));
                }
                json::stringify(input, &mut input_json);
                if input_json == "{}" {
                    input_json.clear();
                }
            }
        }
        self.blocks.add(
            input_json.len(),
            &self.options.limits,
            self.input.buffered(),
        )?;
        let preparation = match (
            kind.as_str(),
            id.and_then(Value::as_str),
            name.and_then(Value::as_str),
        ) {
            ("tool_use", Some(id), Some(name)) if !id.is_empty() && !name.is_empty() => {
                Some(Preparation {
                    call_id: id.into_owned(),
                    tool_name: name.into_owned(),
                    call_id_json: None,
                })
            }
            _ => None,
        };
        let block = Block {
            key,
            kind,
            id: id.map(json::to_json_string),
            name: name.map(json::to_json_string),
            input_json,
            // `JSON.stringify` of the input writes a lone surrogate as
            // its escape text, as the reference's does: nothing to note.
            lone: LoneEscapes::new(),
            prepared: preparation
                .as_ref()
                .map(|p| (p.call_id.clone(), p.tool_name.clone())),
            lines: LineCount::default(),
        };
        match self.blocks.open.iter_mut().find(|b| b.key == block.key) {
            Some(existing) => {
                self.blocks.buffered_args -= existing.input_json.len();
                *existing = block;
            }
            None => self.blocks.open.push(block),
        }
        if let Some(p) = preparation {
            let mut chunk = self.chunk(None);
            chunk.preparations.push(p);
            out.push(chunk);
        }
        Ok(())
    }

    /// `content_block_stop`: a `tool_use` block's call, yielded (0.21.2) or held
    /// for the stop reason (0.24.4).
    pub(super) fn content_block_stop(
        &mut self,
        ev: &Value<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let key = index_key(ev);
        let Some(pos) = self.blocks.open.iter().position(|b| b.key == key) else {
            return Ok(());
        };
        let mut block = self.blocks.open.remove(pos);
        self.blocks.buffered_args -= block.input_json.len();
        if block.kind == "tool_use" && self.options.profile == Profile::Qwen024 {
            let empty = block.input_json.is_empty();
            let bytes = block.input_json.len();
            let closed = self.held.close(std::mem::take(&mut block.input_json));
            if let Closed::Call(args, lifted) = closed {
                // Held arguments stay buffered data until the stop
                // reason: the bytes just released are taken back.
                self.blocks.buffered_args += bytes;
                let part = Part::FunctionCall {
                    id: block.id,
                    name: block.name,
                    args: Rc::new(args),
                    lifted: lifted.map(Rc::new),
                };
                let chunk = self.chunk(Some(part));
                self.held.hold(chunk, empty, bytes);
            }
        } else if block.kind == "tool_use" {
            let source = if block.input_json.is_empty() {
                "{}"
            } else {
                block.input_json.as_str()
            };
            // Large arguments are validated in the pass that lifts
            // their large strings (an object it accepts is valid as
            // gathered); the rest, and what that pass does not
            // decide, as `safeJsonParse` does.
            let (repaired, lifted) = match lift_checked(source) {
                Some(lifted) => (None, lifted.map(Rc::new)),
                None => {
                    let repaired = match safe_json_parse(
                        source,
                        &block.lone,
                        self.options.limits.max_repair_depth,
                    )? {
                        // Valid as gathered: the buffer itself is handed out.
                        Some((Cow::Borrowed(_), _)) if !block.input_json.is_empty() => None,
                        Some((text, _)) => Some(text.into_owned()),
                        None => Some("{}".to_owned()),
                    };
                    (repaired, None)
                }
            };
            let args = repaired.unwrap_or_else(|| std::mem::take(&mut block.input_json));
            let part = Part::FunctionCall {
                id: block.id,
                name: block.name,
                args: Rc::new(args),
                lifted,
            };
            let chunk = self.chunk(Some(part));
            out.push(chunk);
        }
        Ok(())
    }

    /// `message_delta`: the stop reason and the usage of the finish chunk.
    pub(super) fn message_delta(
        &mut self,
        ev: &Value<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let delta = required(ev, "delta", "stop_reason")?;
        let stop = delta.at("stop_reason");
        if stop.truthy() {
            let reason = js_to_string(stop);
            if self.options.profile == Profile::Qwen024 {
                // Compared with `===`: a reason of another type is
                // neither `tool_use` nor `max_tokens`.
                let compared = if matches!(stop, Value::Str(_)) {
                    reason.as_str()
                } else {
                    ""
                };
                self.confirm_calls(compared, out)?;
            }
            self.message.finish_reason = Some(reason);
        }
        let usage = ev.get("usage");
        self.usage.read_message_delta(usage);
        if self.message.finish_reason.is_some() || usage.is_some_and(Value::truthy) {
            self.usage.message_start_pending = false;
            out.push(self.finish_chunk());
        }
        Ok(())
    }

    /// `message_stop`: a finish chunk when usage was reported.
    pub(super) fn message_stop(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        if self.usage.any_reported() {
            self.usage.message_start_pending = false;
            out.push(self.finish_chunk());
        }
        Ok(())
    }

    /// 0.24.4 at a stop reason: the held calls are yielded, dropped with the
    /// open `tool_use` blocks (`max_tokens` truncation), or rejected.
    pub(super) fn confirm_calls(
        &mut self,
        reason: &str,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let before = out.len();
        let held_before = self.held.held_bytes();
        let dropped_blocks = self
            .held
            .confirm(reason, self.blocks.has_open_tool_block(), out)?;
        self.blocks.buffered_args -= held_before - self.held.held_bytes();
        if dropped_blocks {
            let dropped: usize = self
                .blocks
                .open
                .iter()
                .filter(|b| b.kind == "tool_use")
                .map(|b| b.input_json.len())
                .sum();
            self.blocks.buffered_args -= dropped;
            self.blocks.open.retain(|b| b.kind != "tool_use");
        }
        self.message.payload |= out.len() > before;
        Ok(())
    }

    pub(super) fn content_block_delta(
        &mut self,
        ev: &Value<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let delta = required(ev, "delta", "type")?;
        let Some(delta_type) = delta.at("type").as_jstr() else {
            return Ok(());
        };
        match delta_type.raw() {
            "input_json_delta" => {
                let key = index_key(ev);
                let Some(pos) = self.blocks.open.iter().position(|b| b.key == key) else {
                    return Ok(());
                };
                let fragment = delta.at("partial_json");
                if !fragment.truthy() {
                    return Ok(());
                }
                let append =
                    |buf: &mut String, lone: &mut LoneEscapes| append_fragment(fragment, buf, lone);
                let input_bytes = self.input.buffered();
                self.blocks
                    .append_at(pos, append, &self.options.limits, input_bytes)
            }
            // `const text = "text" in event.delta ? event.delta.text : ""`,
            // then `if (text)`: a truthy value of any type makes the part.
            "text_delta" => {
                let part = match delta.at("text") {
                    Value::Str(text) if !text.is_empty() => Part::text(text.text()),
                    v if v.truthy() => literal(LiteralKind::Text, v),
                    _ => return Ok(()),
                };
                let chunk = self.chunk(Some(part));
                self.message.payload = true;
                out.push(chunk);
                Ok(())
            }
            "thinking_delta" => {
                let part = match delta.at("thinking") {
                    Value::Str(text) if !text.is_empty() => Part::thought(text.text()),
                    v if v.truthy() => literal(LiteralKind::Thought, v),
                    _ => return Ok(()),
                };
                let chunk = self.chunk(Some(part));
                self.message.payload = true;
                out.push(chunk);
                Ok(())
            }
            "signature_delta" => {
                let key = index_key(ev);
                if !self.blocks.open.iter().any(|b| b.key == key) {
                    return Ok(());
                }
                let part = match delta.at("signature") {
                    Value::Str(sig) if !sig.is_empty() => {
                        Part::ThoughtSignature(sig.text().into_owned())
                    }
                    v if v.truthy() => literal(LiteralKind::Signature, v),
                    _ => return Ok(()),
                };
                let chunk = self.chunk(Some(part));
                self.message.payload = true;
                out.push(chunk);
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// An in-band `error` event: the SDK throws `APIError(body)`.
pub(super) fn stream_error(ev: &Value<'_>) -> Error {
    let body = ev.get("error").unwrap_or(ev);
    let message = body
        .at("message")
        .as_text()
        .map(|m| m.into_owned())
        .unwrap_or_else(|| "provider stream error".to_owned());
    let mut provider = String::new();
    json::stringify(body, &mut provider);
    let mut err = Error::with_text(ErrorCode::StreamError, message);
    err.provider_error = Some(provider.into());
    err
}

/// A sub-object the reference dereferences unguarded, reading `read` of it
/// first (`event.message.id`): without it the reference throws V8's
/// TypeError (kept as the error's `host_error`); here the event is rejected
/// with `INVALID_EVENT` and the converter stays usable.
fn required<'v, 'a>(ev: &'v Value<'a>, key: &str, read: &str) -> Result<&'v Value<'a>, Error> {
    match ev.get(key) {
        Some(v) if !v.is_null() => Ok(v),
        v => {
            let ty = ev.at("type").as_str().unwrap_or_default().into_owned();
            Err(Error::null_read(
                format!("{ty} event without `{key}`"),
                v.is_some(),
                read,
            ))
        }
    }
}

/// A part made from a delta's non-string value, as it is.
fn literal(kind: LiteralKind, v: &Value<'_>) -> Part {
    Part::Literal {
        kind,
        json: json::to_json_string(v),
    }
}

/// `x ?? fallback` reads: present and not null.
fn present<'v, 'a>(v: Option<&'v Value<'a>>) -> Option<&'v Value<'a>> {
    v.filter(|v| !v.is_null())
}

/// `inputJson += event.delta.partial_json` of a truthy fragment: a string
/// is appended as its text, a value of another type as its
/// `String(value)` (`[object Object]`).
pub(super) fn append_fragment(fragment: &Value<'_>, buf: &mut String, lone: &mut LoneEscapes) {
    match fragment.as_jstr() {
        Some(s) => s.append_json_text_to(buf, lone),
        None => append_js_string_to_arguments(fragment, buf, lone),
    }
}

/// The Map key of `event.index ?? 0`.
pub(super) fn index_key(ev: &Value<'_>) -> String {
    match present(ev.get("index")) {
        Some(Value::Num(n)) if !n.contains(['.', 'e', 'E', '-']) && n.len() < 16 => (*n).to_owned(),
        Some(v) => json::to_json_string(v),
        None => "0".to_owned(),
    }
}
