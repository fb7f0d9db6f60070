//! One event, converted as `convertResponsesEventToGemini(event, model,
//! state)` converts it (Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts),
//! with its property reads, its `TypeError`s and its thrown stream errors;
//! an event type it does not name converts to nothing.

use super::calls::resolve_arguments;
use super::js_read::{is_str, js_string, json, nullish_or, read, read_opt, truthy};
use super::output_index::OutputIndex;
use super::stream_error::stream_error;
use super::usage::usage_metadata;
use super::OpenAIResponsesStream;
use crate::foundations::error::Error;
use crate::foundations::json::Value;
use crate::model::gemini::{LiteralKind, Part};

impl OpenAIResponsesStream {
    /// The event named `event` with its parsed data `data` (`text`: the
    /// data's JSON text).
    pub(super) fn event(
        &mut self,
        event: &str,
        data: &Value<'_>,
        text: &str,
        out: &mut Vec<crate::model::gemini::Response>,
    ) -> Result<(), Error> {
        let d = Some(data);
        match event {
            "response.created" => {
                let envelope = envelope(data, event)?;
                if truthy(envelope.get("id")) {
                    self.response_id = json(envelope.get("id")).map(Into::into);
                }
            }
            "response.output_item.added" => {
                let item = read(d, "item", event)?;
                let kind = read(item, "type", event)?;
                let index = || OutputIndex::of(data.get("output_index"));
                if let Some(item) = item.filter(|_| is_str(kind, "function_call")) {
                    let prepared = self.calls.open(
                        index(),
                        item.get("call_id"),
                        item.get("name"),
                        self.options.preparations,
                    );
                    if let Some(p) = prepared {
                        let mut chunk = self.chunk(Vec::new(), None, None);
                        chunk.preparations.push(p);
                        out.push(chunk);
                    }
                } else if let Some(item) = item.filter(|_| is_str(kind, "message")) {
                    if self.tracks_messages() {
                        self.messages.update(index(), item);
                    }
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let message = if self.tracks_messages() {
                    self.messages.text_part(data, event)?
                } else {
                    read(d, "delta", event)?;
                    None
                };
                let part = Part::Value {
                    kind: LiteralKind::Text,
                    json: json(data.get("delta")),
                    message,
                };
                out.push(self.chunk(vec![part], None, None));
            }
            "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                let delta = read(d, "delta", event)?;
                // `createOpenAIReasoningThoughtPart(data.delta)` marks its
                // part as an OpenAI reasoning thought; the summary's is a
                // plain thought.
                let kind = if event == "response.reasoning_text.delta" {
                    LiteralKind::Reasoning
                } else {
                    LiteralKind::Thought
                };
                let part = Part::Value {
                    kind,
                    json: json(delta),
                    message: None,
                };
                out.push(self.chunk(vec![part], None, None));
            }
            "response.function_call_arguments.delta" => {
                let index = OutputIndex::of(read(d, "output_index", event)?);
                self.calls
                    .append(&index, data.get("delta"), &self.options.limits)?;
                self.check_buffered()?;
            }
            "response.output_item.done" => {
                let item = read(d, "item", event)?;
                let kind = read(item, "type", event)?;
                let Some(item) = item else { return Ok(()) };
                if is_str(kind, "message") && self.tracks_messages() {
                    self.messages
                        .update(OutputIndex::of(data.get("output_index")), item);
                } else if is_str(kind, "function_call") {
                    self.call_done(data, item, out)?;
                } else if is_str(kind, "reasoning") {
                    let encrypted = item.get("encrypted_content");
                    if !truthy(encrypted) {
                        return Ok(());
                    }
                    // encodeReasoningSignature: JSON.stringify({id, encrypted_content}).
                    let mut signature = String::from("{");
                    if let Some(id) = json(item.get("id")) {
                        signature.push_str("\"id\":");
                        signature.push_str(&id);
                        signature.push(',');
                    }
                    signature.push_str("\"encrypted_content\":");
                    signature.push_str(&json(encrypted).unwrap_or_default());
                    signature.push('}');
                    out.push(self.chunk(vec![Part::ThoughtSignature(signature)], None, None));
                }
            }
            "response.completed" | "response.incomplete" => {
                let envelope = envelope(data, event)?;
                if self.tracks_messages() {
                    let what = if event == "response.completed" {
                        "output"
                    } else {
                        "envelope.output"
                    };
                    self.update_from_output(envelope.get("output"), what, event)?;
                }
                if truthy(envelope.get("id")) {
                    self.response_id = json(envelope.get("id")).map(Into::into);
                }
                let reason = if event == "response.completed" {
                    Some(STOP)
                } else {
                    let reason = read_opt(envelope.get("incomplete_details"), "reason");
                    match reason {
                        None | Some(Value::Null) => Some("MAX_TOKENS"),
                        Some(r) if r.truthy() => Some(map_finish_reason(&js_string(Some(r)))),
                        Some(_) => None,
                    }
                };
                let usage = usage_metadata(envelope.get("usage"));
                out.push(self.chunk(Vec::new(), reason, usage));
            }
            "response.failed" => {
                let envelope = envelope(data, event)?;
                let error = envelope.get("error");
                let message = if truthy(error) {
                    format!(
                        "Responses API failed: {}: {}",
                        js_string(read_opt(error, "code")),
                        js_string(read_opt(error, "message"))
                    )
                } else {
                    "Responses API failed: Response failed".to_owned()
                };
                return Err(stream_error(
                    message,
                    read_opt(error, "code"),
                    read_opt(error, "type"),
                    text,
                ));
            }
            "error" => {
                let error = read(d, "error", event)?;
                let code = nullish_or(read_opt(error, "code"), data.get("code"));
                let message = nullish_or(read_opt(error, "message"), data.get("message"));
                // `[code, message].filter(Boolean).join(": ") || data.error?.type || "Unknown error"`.
                let detail: Vec<String> = [code, message]
                    .into_iter()
                    .filter(|v| truthy(*v))
                    .map(js_string)
                    .collect();
                let kind = read_opt(error, "type");
                let detail = if !detail.is_empty() {
                    detail.join(": ")
                } else if truthy(kind) {
                    js_string(kind)
                } else {
                    "Unknown error".to_owned()
                };
                return Err(stream_error(
                    format!("Responses API error: {detail}"),
                    code,
                    kind,
                    text,
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// `output_item.done` of a `function_call` item: its buffer's id and
    /// name (else the item's), and its arguments resolved.
    fn call_done(
        &mut self,
        data: &Value<'_>,
        item: &Value<'_>,
        out: &mut Vec<crate::model::gemini::Response>,
    ) -> Result<(), Error> {
        let depth = self.options.limits.max_repair_depth;
        let buf = self.calls.close(&OutputIndex::of(data.get("output_index")));
        // `buf?.id ?? fc.call_id`: the buffer's value unless it is null or
        // undefined.
        let nullish = |v: &Option<String>| v.as_deref().is_none_or(|t| t == "null");
        let pick = |held: Option<&Option<String>>, key: &str| match held {
            Some(v) if !nullish(v) => v.clone(),
            _ => json(item.get(key)),
        };
        let id = pick(buf.map(|b| &b.id), "call_id");
        let name = pick(buf.map(|b| &b.name), "name");
        let args = resolve_arguments(buf.map(|b| b.args()), item.get("arguments"), depth)?;
        let part = Part::FunctionCall {
            id,
            name,
            args,
            lifted: None,
        };
        out.push(self.chunk(vec![part], None, None));
        Ok(())
    }

    /// `output?.forEach((item, index) => { if (item.type === "message")
    /// state.updateMessage(index, item) })`; `what` names `output` as V8's
    /// message does.
    fn update_from_output(
        &mut self,
        output: Option<&Value<'_>>,
        what: &str,
        event: &str,
    ) -> Result<(), Error> {
        match output {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Arr(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if is_str(read(Some(item), "type", event)?, "message") {
                        self.messages.update(OutputIndex::position(i), item);
                    }
                }
                Ok(())
            }
            Some(_) => Err(Error::type_error(
                super::js_read::unreadable(event),
                format!("{what}?.forEach is not a function"),
            )),
        }
    }
}

const STOP: &str = "STOP";

/// `raw["response"] ?? raw`.
fn envelope<'v, 'a>(raw: &'v Value<'a>, event: &str) -> Result<&'v Value<'a>, Error> {
    let response = read(Some(raw), "response", event)?;
    Ok(nullish_or(response, Some(raw)).unwrap_or(raw))
}

/// `mapFinishReason(reason)` for a truthy reason, as its property key.
/// Deliberately not followed: a reason that names a property every JS
/// object inherits (`constructor`, `toString`, `__proto__`, …) makes
/// Qwen's `finishReason` that function or `Object.prototype`; it is `STOP`
/// here, as for any other unknown reason.
fn map_finish_reason(reason: &str) -> &'static str {
    match reason {
        "length" | "max_output_tokens" => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        _ => STOP,
    }
}
