//! `convertOpenAIChunkToGemini` (Qwen Code 0.21.2,
//! `openaiContentGenerator/converter.ts`; docs/behaviour.md §3.2): one
//! chunk's JSON text converted the long way, through its tree.

use std::rc::Rc;

use super::chunk::{first, FirstOrNull};
use super::finish_reason::map_finish_reason;
use super::tagged::TaggedThinkingParser;
use super::tags::*;
use super::text_delta::{self, estimate_token_units};
use super::usage;
use super::OpenAIStream;
use crate::convert::openai::chunk_header::ChunkHeader;
use crate::convert::openai::key_order::KEY_ORDER;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::js_trim_start;
use crate::foundations::json::{self, Value};
use crate::model::clock::now_ms_string;
use crate::model::gemini::{Candidate, Part, Preparation, Response};

impl OpenAIStream {
    /// One chunk's JSON text → its response: the template path when the chunk
    /// fits a template and the state allows it, else the long way (which
    /// keeps the chunk as a template when it qualifies). `sse`: the SDK's
    /// in-band error check applies; the pipeline's `error_finish` check
    /// applies in every form when it is on.
    pub(super) fn convert_text(&mut self, text: &str, sse: bool) -> Result<Response, Error> {
        if self.is_quiet() {
            let mut one = std::mem::take(&mut self.templates.out);
            let hit = self.template_chunk(text, true, &mut one);
            let response = one.pop();
            self.templates.out = one;
            if let (true, Some(response)) = (hit?, response) {
                return Ok(response);
            }
        }
        let chunk = json::parse(text)?;
        if chunk.is_null() {
            // The converter (and the pipeline's error_finish check) read
            // `chunk.choices` of it: a TypeError in the reference.
            return Err(Error::null_read(
                "a chunk must not be null",
                true,
                "choices",
            ));
        }
        if sse {
            if let Some(err) = chunk.get("error").filter(|v| v.truthy()) {
                let mut err = stream_error(err);
                err.provider_event = Some(text.into());
                return Err(err);
            }
        }
        if self.config.error_finish_throws {
            let choice = chunk.at("choices").as_first();
            if choice
                .at("finish_reason")
                .as_jstr()
                .is_some_and(|f| f.raw() == "error_finish")
            {
                let content = choice
                    .at("delta")
                    .at("content")
                    .as_text()
                    .unwrap_or_default();
                let message = crate::foundations::js_text::js_trim(&content);
                let mut err = Error::with_text(
                    ErrorCode::StreamError,
                    if message.is_empty() {
                        "Unknown stream error"
                    } else {
                        message
                    }
                    .to_owned(),
                );
                err.name = "StreamContentError";
                return Err(err);
            }
        }
        let response = self.convert(&chunk)?;
        // The object path follows chunks given one at a time
        // (`push_chunk_text`), not the SSE paths: only these note the header.
        let chunk_header = if sse {
            None
        } else {
            self.note_chunk_header(&chunk, &response)
        };
        self.templates
            .keep(text, &chunk, &response, chunk_header, &self.calls.ids);
        Ok(response)
    }

    /// `convertOpenAIChunkToGemini(chunk, ctx)` (docs/behaviour.md §3.2).
    pub(super) fn convert(&mut self, chunk: &Value<'_>) -> Result<Response, Error> {
        let mut preparations = Vec::new();
        // `if (choice)`: a falsy first choice converts as no choice.
        let candidate = match chunk.get("choices").and_then(first).filter(|c| c.truthy()) {
            Some(choice) => Some(self.convert_choice(choice, &mut preparations)?),
            None => None,
        };
        let created = chunk.at("created");
        Ok(Response {
            key_order: &KEY_ORDER,
            response_id: chunk.get("id").map(|id| json::to_json_string(id).into()),
            create_time: if created.truthy() {
                crate::foundations::js_text::js_to_string(created).into()
            } else {
                now_ms_string().into()
            },
            model_version: chunk
                .get("model")
                .filter(|m| m.truthy())
                .map(|m| json::to_json_string(m).into()),
            candidate,
            usage: chunk
                .get("usage")
                .filter(|u| u.truthy())
                .map(|u| usage::usage(u, self.deltas.reasoning.token_units)),
            preparations,
            sanitized: self.guard.sanitized.take(),
        })
    }

    /// Notes the header just built from a chunk with a truthy `created`,
    /// with the chunk's fields, for the JS object path
    /// (`crate::convert::openai::chunk_header`); returns it (`None` for a falsy `created`,
    /// whose `createTime` is the clock). The JS layer compares the fields'
    /// values, so a number is kept as its source text; the same fields as
    /// the header noted last (every chunk of a stream after its first)
    /// allocate nothing here.
    fn note_chunk_header(
        &mut self,
        chunk: &Value<'_>,
        response: &Response,
    ) -> Option<Rc<ChunkHeader>> {
        let created = chunk.at("created");
        if !created.truthy() {
            return None;
        }
        let model = || match &response.model_version {
            Some(model) => Some(model.clone()),
            None => chunk.get("model").map(|m| json::to_json_string(m).into()),
        };
        let same = self.chunk_header.current().is_some_and(|last| {
            let same_created = match created {
                Value::Num(n) => **n == *last.created,
                other => json::to_json_string(other) == *last.created,
            };
            same_created
                && last.id == response.response_id
                && last.model_version == response.model_version
                && (response.model_version.is_some() || last.model == model())
        });
        if !same {
            self.chunk_header.note_built(ChunkHeader {
                id: response.response_id.clone(),
                created: match created {
                    Value::Num(n) => (*n).into(),
                    other => json::to_json_string(other).into(),
                },
                model: model(),
                create_time: response.create_time.clone(),
                model_version: response.model_version.clone(),
            });
        }
        self.chunk_header.current().cloned()
    }

    /// One choice of a chunk (`convertOpenAIChunkToGemini`, docs/behaviour.md
    /// §3.2), in the reference's order: visible text, reasoning, tool-call
    /// deltas, the thinking-tag guard, then validation, holding and the
    /// complete calls at the finish.
    pub(super) fn convert_choice(
        &mut self,
        choice: &Value<'_>,
        preparations: &mut Vec<Preparation>,
    ) -> Result<Candidate, Error> {
        let delta = choice.at("delta");
        let finish_value = choice.at("finish_reason");
        let finish = finish_value.truthy();
        let mut parts: Vec<Part> = Vec::new();
        let mut content_parts = self.content_parts(delta, finish)?;
        self.reasoning_parts(delta, finish, &mut content_parts, &mut parts)?;
        self.tool_call_deltas(delta, preparations)?;
        self.guard.check(&mut parts, finish)?;
        let finish_reason = self.finish_choice(&mut parts, finish_value)?;
        Ok(Candidate {
            parts,
            finish_reason,
        })
    }

    /// Visible text (§3.2.1), through the tagged-thinking parser when it is
    /// on (`convertOpenAITextToParts`).
    pub(super) fn content_parts(
        &mut self,
        delta: &Value<'_>,
        finish: bool,
    ) -> Result<Vec<Part>, Error> {
        let mut content_parts = Vec::new();
        let after_reasoning = self.config.parsing.tagged_thinking_after_reasoning;
        if let Some(content) = delta.at("content").as_text() {
            // 0.24.4 (`convertOpenAIChunkToLlm`): a resent snapshot of
            // tagged content is dropped once the parser exists.
            let replayed = after_reasoning
                && self.tagged.parser.is_some()
                && self.deltas.text.is_snapshot(&content)
                && contains_thinking_tag(&content);
            let normalized = if replayed {
                self.deltas.text.take_snapshot(&content);
                ""
            } else {
                self.deltas.text.normalize(&content)
            };
            let candidate = if after_reasoning {
                let pending = self
                    .guard
                    .candidate
                    .as_ref()
                    .map_or("", |c| c.text.as_str());
                let candidate = format!("{pending}{normalized}");
                let reasoning_seen = self.guard.has_structured_reasoning
                    || delta
                        .get("reasoning_content")
                        .filter(|v| !v.is_null())
                        .map_or_else(|| delta.at("reasoning").truthy(), Value::truthy);
                (reasoning_seen
                    && leading_thinking_tag(&candidate)
                    && !js_trim_start(&candidate).starts_with("</"))
                .then_some(candidate)
            } else {
                None
            };
            if let Some(candidate) = candidate {
                self.guard.candidate = None;
                content_parts = self
                    .tagged
                    .parser
                    .get_or_insert_with(TaggedThinkingParser::default)
                    .parse(&candidate, finish);
            } else if !normalized.is_empty() || finish {
                content_parts = self.tagged.text_to_parts(normalized, finish);
            }
        } else if finish {
            content_parts = self.tagged.text_to_parts("", true);
        }
        if finish && after_reasoning && self.tagged.unclosed_thought() {
            return Err(Error::protocol_tag_leak());
        }
        Ok(content_parts)
    }

    /// Reasoning (§3.2.2): `reasoning_content ?? reasoning`, into `parts`,
    /// or buffered in a tagged stream until it is known whether the content
    /// carries tagged thinking; then the content parts, which go after it.
    pub(super) fn reasoning_parts(
        &mut self,
        delta: &Value<'_>,
        finish: bool,
        content_parts: &mut Vec<Part>,
        parts: &mut Vec<Part>,
    ) -> Result<(), Error> {
        if content_parts.iter().any(Part::is_thought) {
            // A tagged thought: buffered reasoning is dropped, buffered
            // content goes first.
            self.tagged.has_thought = true;
            self.tagged.pending_reasoning.clear();
            parts.append(&mut self.tagged.pending_content);
        }
        let reasoning = match delta.get("reasoning_content").filter(|v| !v.is_null()) {
            Some(v) => Some(v),
            None => delta.get("reasoning"),
        };
        let tagged = self.config.parsing.tagged_thinking;
        let reasoning = reasoning.filter(|v| v.truthy() && (!tagged || !self.tagged.has_thought));
        match reasoning {
            // `[].length === 0`: normalised to nothing.
            Some(Value::Arr(items)) if items.is_empty() => {}
            Some(v @ (Value::Num(_) | Value::Bool(_) | Value::Obj(_) | Value::Arr(_))) => {
                self.foreign_reasoning(v, parts)?;
            }
            _ => {}
        }
        if let Some(reasoning) = reasoning.and_then(Value::as_text) {
            let normalized = self.deltas.reasoning.normalize(&reasoning);
            if !normalized.is_empty() {
                self.deltas.reasoning.token_units += estimate_token_units(normalized);
                self.guard.has_structured_reasoning = true;
                if contains_thinking_tag(normalized) {
                    self.guard.has_thinking_tag_in_reasoning = true;
                }
                if !tagged {
                    parts.push(Part::reasoning(normalized));
                } else {
                    self.tagged.pending_reasoning.push_str(normalized);
                }
            }
        }
        if tagged && !self.tagged.has_thought && !self.tagged.pending_reasoning.is_empty() {
            self.tagged.pending_content.append(content_parts);
            if finish {
                parts.push(Part::reasoning(std::mem::take(
                    &mut self.tagged.pending_reasoning,
                )));
            }
        }
        if finish {
            parts.append(&mut self.tagged.pending_content);
        }
        parts.append(content_parts);
        Ok(())
    }

    /// Tool-call deltas and preparations (§3.2.3): `for (const toolCall of
    /// choice.delta.tool_calls)` when truthy. A string iterates its
    /// characters, which carry no call.
    pub(super) fn tool_call_deltas(
        &mut self,
        delta: &Value<'_>,
        preparations: &mut Vec<Preparation>,
    ) -> Result<(), Error> {
        match delta.at("tool_calls") {
            Value::Arr(calls) => {
                let bounds = super::bounds(&self.config, &self.lifecycle);
                for call in calls {
                    self.calls.delta(call, preparations, bounds)?;
                }
                Ok(())
            }
            v @ (Value::Num(_) | Value::Bool(_) | Value::Obj(_)) if v.truthy() => {
                Err(Error::type_error(
                    "tool_calls must be an array",
                    "choice.delta.tool_calls is not iterable",
                ))
            }
            _ => Ok(()),
        }
    }

    /// Validation, holding and complete calls (§3.2.4 steps 2–5): parts
    /// are held while a call is nameless or a tag candidate is pending, and
    /// at the finish the complete calls are appended. The finish reason.
    pub(super) fn finish_choice(
        &mut self,
        parts: &mut Vec<Part>,
        finish_value: &Value<'_>,
    ) -> Result<Option<&'static str>, Error> {
        let finish = finish_value.truthy();
        let finish_str = finish_value.as_str();
        let nameless = self.calls.parser.has_nameless_tool_call();
        let completed = if finish {
            self.calls
                .parser
                .completed_tool_calls(self.config.limits.max_repair_depth)?
        } else {
            Vec::new()
        };
        let truncated = finish && self.calls.parser.has_incomplete_tool_calls();
        if finish && self.guard.closing_pending() {
            if self.guard.has_thinking_tag_in_reasoning
                || finish_str.as_deref() != Some("tool_calls")
                || completed.is_empty()
                || nameless
                || self.calls.parser.has_conflicting_identity()
                || truncated
                || self.calls.parser.has_invalid_arguments()
            {
                return Err(Error::protocol_tag_leak());
            }
            let tag = self
                .guard
                .candidate
                .take()
                .and_then(|c| c.closing)
                .unwrap_or("think");
            self.guard.sanitized = Some((tag, completed.len()));
        }
        if finish
            && (self.calls.parser.has_invalid_index()
                || nameless
                || (finish_str.as_deref() == Some("tool_calls") && completed.is_empty()))
        {
            self.guard.held_parts = None;
            return Err(Error::malformed_tool_call());
        }
        let hold = !finish
            && (nameless
                || self.guard.has_thinking_tag_in_reasoning
                || self.guard.candidate.is_some());
        if hold {
            self.guard
                .held_parts
                .get_or_insert_with(Vec::new)
                .append(parts);
        } else if let Some(mut held) = self.guard.held_parts.take() {
            held.append(parts);
            *parts = held;
        }
        if !finish {
            return Ok(None);
        }
        for call in completed {
            let id_json = match call.id {
                Some(id) => self.calls.ids.json(&id),
                None => {
                    let id = self.calls.generated_id();
                    let mut id_json = String::with_capacity(id.len() + 2);
                    json::write_str(&mut id_json, &id);
                    id_json
                }
            };
            let mut name_json = String::with_capacity(call.name.len() + 2);
            json::write_str(&mut name_json, &call.name);
            parts.push(Part::FunctionCall {
                id: Some(id_json),
                name: Some(name_json),
                args: call.args,
                lifted: call.lifted.map(Rc::new),
            });
        }
        Ok(Some(
            if truncated && finish_str.as_deref() != Some("length") {
                "MAX_TOKENS"
            } else {
                map_finish_reason(finish_value, self.config.profile)
            },
        ))
    }

    /// A truthy reasoning delta that is not a string: the reference
    /// normalises and pushes the value as it is (`{text: 5, thought:
    /// true}`), and adds its token estimate: `NaN` for a value without
    /// `length`, an array's from its `length` (`text_delta.rs`).
    pub(super) fn foreign_reasoning(
        &mut self,
        v: &Value<'_>,
        parts: &mut Vec<Part>,
    ) -> Result<(), Error> {
        let text = crate::foundations::js_text::js_to_string(v);
        let delta = match v {
            Value::Arr(items) => text_delta::ForeignDelta::Array {
                len: items.len(),
                text: &text,
            },
            _ => text_delta::ForeignDelta::Other { text: &text },
        };
        if self.deltas.reasoning.normalize_foreign(delta) == text_delta::Foreign::Throws {
            return Err(Error::type_error(
                "reasoning must be a string",
                "rawDelta.startsWith is not a function",
            ));
        }
        self.deltas.reasoning.token_units += match delta {
            text_delta::ForeignDelta::Array { len, text } => {
                text_delta::estimate_array_token_units(len, text).ok_or_else(|| {
                    Error::type_error(
                        "reasoning must be a string",
                        "text.charCodeAt is not a function",
                    )
                })?
            }
            text_delta::ForeignDelta::Other { .. } => f64::NAN,
        };
        self.guard.has_structured_reasoning = true;
        if contains_thinking_tag(&text) {
            self.guard.has_thinking_tag_in_reasoning = true;
        }
        if !self.config.parsing.tagged_thinking {
            parts.push(Part::Literal {
                kind: crate::model::gemini::LiteralKind::Reasoning,
                json: json::to_json_string(v),
            });
        } else {
            self.tagged.pending_reasoning.push_str(&text);
        }
        Ok(())
    }
}

/// The OpenAI SDK's in-band error (`Stream.fromSSEResponse`: `data.error`)
/// as a `STREAM_ERROR` carrying the provider's error object.
fn stream_error(err: &Value<'_>) -> Error {
    let message = err
        .at("message")
        .as_text()
        .map(|m| m.into_owned())
        .unwrap_or_else(|| "provider stream error".to_owned());
    let mut e = Error::with_text(ErrorCode::StreamError, message);
    e.provider_error = Some(json::to_json_string(err).into());
    e
}
