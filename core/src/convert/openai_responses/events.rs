//! One event, converted as `convertResponsesEventToGemini(event, model,
//! state)` converts it (Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts),
//! with its property reads, its `TypeError`s and its thrown stream errors;
//! an event type it does not name converts to nothing ([`Event::named`]).

use std::rc::Rc;

use super::calls::resolve_arguments;
use super::js_read::{is_str, js_string, json, nullish_or, read, read_opt, truthy};
use super::output_index::OutputIndex;
use super::stream_error::stream_error;
use super::usage::usage_metadata;
use super::OpenAIResponsesStream;
use crate::foundations::error::Error;
use crate::foundations::json::Value;
use crate::model::gemini::{LiteralKind, Part};

/// An event type `convertResponsesEventToGemini` converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Event {
    Created,
    OutputItemAdded,
    /// `response.output_text.delta` and `response.refusal.delta`.
    TextDelta,
    ReasoningTextDelta,
    ReasoningSummaryTextDelta,
    ArgumentsDelta,
    OutputItemDone,
    Completed,
    Incomplete,
    Failed,
    Error,
}

impl Event {
    /// The event type `name` is; `None` for one the converter converts to
    /// nothing, whatever its data.
    pub(super) fn named(name: &str) -> Option<Event> {
        Some(match name {
            "response.created" => Event::Created,
            "response.output_item.added" => Event::OutputItemAdded,
            "response.output_text.delta" | "response.refusal.delta" => Event::TextDelta,
            "response.reasoning_text.delta" => Event::ReasoningTextDelta,
            "response.reasoning_summary_text.delta" => Event::ReasoningSummaryTextDelta,
            "response.function_call_arguments.delta" => Event::ArgumentsDelta,
            "response.output_item.done" => Event::OutputItemDone,
            "response.completed" => Event::Completed,
            "response.incomplete" => Event::Incomplete,
            "response.failed" => Event::Failed,
            "error" => Event::Error,
            _ => return None,
        })
    }

    /// A hot event: a delta, most of a stream, converted from its
    /// [`HotFields`] alone, so its data need not be parsed into a tree
    /// (`json::flat_fields`).
    pub(super) fn is_hot(self) -> bool {
        match self {
            Event::TextDelta
            | Event::ReasoningTextDelta
            | Event::ReasoningSummaryTextDelta
            | Event::ArgumentsDelta => true,
            Event::Created
            | Event::OutputItemAdded
            | Event::OutputItemDone
            | Event::Completed
            | Event::Incomplete
            | Event::Failed
            | Event::Error => false,
        }
    }
}

/// The keys of [`HotFields`], in its order, and `type`, which names the
/// event of a `data:` line read on its own.
pub(super) const HOT_KEYS: [&str; 4] = ["output_index", "item_id", "delta", "type"];

/// What a hot event's conversion reads of its data: everything
/// [`OpenAIResponsesStream::hot_event`] can see (`None`: `undefined`).
pub(super) struct HotFields<'v, 'a> {
    pub(super) output_index: Option<&'v Value<'a>>,
    pub(super) item_id: Option<&'v Value<'a>>,
    pub(super) delta: Option<&'v Value<'a>>,
}

impl<'v, 'a> HotFields<'v, 'a> {
    /// The fields of a parsed event.
    fn of(data: &'v Value<'a>) -> Self {
        HotFields {
            output_index: data.get("output_index"),
            item_id: data.get("item_id"),
            delta: data.get("delta"),
        }
    }

    /// The fields as `json::flat_fields` read them by [`HOT_KEYS`].
    pub(super) fn read(fields: &'v [Option<Value<'a>>; 4]) -> Self {
        HotFields {
            output_index: fields[0].as_ref(),
            item_id: fields[1].as_ref(),
            delta: fields[2].as_ref(),
        }
    }
}

impl OpenAIResponsesStream {
    /// The event `kind`, named `event`, with its parsed data `data`
    /// (`text`: the data's JSON text).
    pub(super) fn event(
        &mut self,
        kind: Event,
        event: &str,
        data: &Value<'_>,
        text: &str,
        out: &mut Vec<crate::model::gemini::Response>,
    ) -> Result<(), Error> {
        let d = Some(data);
        match kind {
            Event::Created => {
                let envelope = envelope(data, event)?;
                if truthy(envelope.get("id")) {
                    self.response_id = json(envelope.get("id")).map(Into::into);
                }
            }
            Event::OutputItemAdded => {
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
            Event::TextDelta
            | Event::ReasoningTextDelta
            | Event::ReasoningSummaryTextDelta
            | Event::ArgumentsDelta => {
                // The first property read throws on `null` data (V8's
                // `TypeError`); on any other data that is not an object
                // every read is `undefined`.
                let first = match kind {
                    Event::TextDelta if self.tracks_messages() => "output_index",
                    Event::ArgumentsDelta => "output_index",
                    _ => "delta",
                };
                read(d, first, event)?;
                return self.hot_event(kind, &HotFields::of(data), out);
            }
            Event::OutputItemDone => {
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
            Event::Completed | Event::Incomplete => {
                let envelope = envelope(data, event)?;
                if self.tracks_messages() {
                    let what = if kind == Event::Completed {
                        "output"
                    } else {
                        "envelope.output"
                    };
                    self.update_from_output(envelope.get("output"), what, event)?;
                }
                if truthy(envelope.get("id")) {
                    self.response_id = json(envelope.get("id")).map(Into::into);
                }
                let reason = if kind == Event::Completed {
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
            Event::Failed => {
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
            Event::Error => {
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
        }
        Ok(())
    }

    /// A hot event ([`Event::is_hot`]) from its fields, its data known to
    /// be readable (not `null`).
    pub(super) fn hot_event(
        &mut self,
        kind: Event,
        fields: &HotFields<'_, '_>,
        out: &mut Vec<crate::model::gemini::Response>,
    ) -> Result<(), Error> {
        let part_kind = match kind {
            Event::ArgumentsDelta => {
                let index = OutputIndex::of(fields.output_index);
                self.calls
                    .append(&index, fields.delta, &self.options.limits)?;
                return self.check_buffered();
            }
            Event::TextDelta => LiteralKind::Text,
            // `createOpenAIReasoningThoughtPart(data.delta)` marks its part
            // as an OpenAI reasoning thought; the summary's is a plain
            // thought.
            Event::ReasoningTextDelta => LiteralKind::Reasoning,
            _ => LiteralKind::Thought,
        };
        let message = if kind == Event::TextDelta && self.tracks_messages() {
            self.messages.text_part(fields.output_index, fields.item_id)
        } else {
            None
        };
        let part = Part::Value {
            kind: part_kind,
            json: json(fields.delta),
            message,
        };
        out.push(self.chunk(vec![part], None, None));
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
        let (args, lifted) =
            resolve_arguments(buf.map(|b| b.args()), item.get("arguments"), depth)?;
        let part = Part::FunctionCall {
            id,
            name,
            args,
            lifted: lifted.map(Rc::new),
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
