//! The Anthropic Messages stream → Gemini chunks, with the semantics of
//! `AnthropicContentGenerator.processStream` in Qwen Code 0.21.2 (docs/behaviour.md §2),
//! or in 0.24.4 under [`Profile::Qwen024`] (tool calls confirmed by the stop
//! reason, see [`crate::deferred_calls`]), plus SSE framing with the
//! Anthropic SDK's event handling (§2.1).

use std::borrow::Cow;
use std::rc::Rc;

use crate::deferred_calls::{Closed, DeferredCalls};
use crate::error::{Error, ErrorCode};
use crate::feed::{Feed, SseConsumer};
use crate::gemini::{
    now_ms_shared, Candidate, Flavor, LiteralKind, Part, Preparation, Response, UsageProvenance,
};
use crate::js_text::js_to_string;
use crate::js_value::JsValue;
use crate::json::{self, Value};
use crate::lifted::lift_checked;
use crate::limits::Limits;
use crate::prefix;
use crate::profile::Profile;
use crate::repair::safe_json_parse;
use crate::sse::{Bom, Rest, SseEvent};
use crate::state::{State, MAX_GATHER_INDEX};

/// One open content block (docs/behaviour.md §2.2 `blocks`).
struct Block {
    /// The block's `index` as JSON text: JS Map keys compare by value.
    key: String,
    kind: String,
    /// `id` / `name` as JSON text when the keys exist on the block.
    id: Option<String>,
    name: Option<String>,
    input_json: String,
}

/// The token counts as the reference holds them: whatever value the
/// provider sent where it does not check the type (`message_start`'s
/// counts, `message_delta`'s `output_tokens`: a string, `null`, …), added
/// and compared with JS operators in `buildAnthropicUsageMetadata`.
#[derive(Default)]
struct Usage {
    cached: JsValue,
    cache_creation: JsValue,
    prompt: JsValue,
    completion: JsValue,
    cached_reported: bool,
    cache_creation_reported: bool,
    prompt_reported: bool,
    completion_reported: bool,
}

impl Usage {
    fn any_reported(&self) -> bool {
        self.prompt_reported
            || self.completion_reported
            || self.cached_reported
            || self.cache_creation_reported
    }

    /// `buildAnthropicUsageMetadata` (docs/behaviour.md §2.5): the JSON text and the
    /// provenance it attaches.
    fn metadata(&self) -> crate::gemini::Usage {
        crate::gemini::Usage {
            json: self.metadata_json(),
            provenance: UsageProvenance::Anthropic {
                cached_input_tokens_reported: self.cached_reported,
                cache_creation_input_tokens: self
                    .cache_creation_reported
                    .then(|| self.cache_creation.as_number()),
            },
        }
    }

    fn metadata_json(&self) -> String {
        let looks_like_openai = !self.cache_creation_reported
            && self.cache_creation.is_zero()
            && self.cached.is_positive()
            && self.prompt.at_least(&self.cached);
        let prompt_total = if looks_like_openai {
            self.prompt.clone()
        } else {
            self.prompt.add(&self.cached).add(&self.cache_creation)
        };
        let mut out = String::with_capacity(96);
        out.push_str("{\"promptTokenCount\":");
        out.push_str(prompt_total.json());
        out.push_str(",\"cachedContentTokenCount\":");
        out.push_str(self.cached.json());
        if self.completion_reported {
            out.push_str(",\"candidatesTokenCount\":");
            out.push_str(self.completion.json());
            out.push_str(",\"totalTokenCount\":");
            out.push_str(prompt_total.add(&self.completion).json());
        }
        out.push('}');
        out
    }
}

/// Options of one Anthropic stream. There is no configured model: both
/// releases take `modelVersion` from `message_start` only (without one it
/// is absent, whatever model the request named).
#[derive(Clone, Debug, Default)]
pub struct AnthropicOptions {
    /// The release followed: when tool calls are emitted and how their
    /// arguments are parsed ([`Profile`]).
    pub profile: Profile,
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    pub limits: Limits,
}

/// One request's stream state (docs/behaviour.md §2.2).
pub struct AnthropicStream {
    message_id: Option<Rc<str>>,
    model: Option<Rc<str>>,
    usage: Usage,
    message_start_usage_pending: bool,
    finish_reason: Option<String>,
    blocks: Vec<Block>,
    feed: Feed,
    limits: Limits,
    buffered_args: usize,
    profile: Profile,
    /// Calls held for the stop reason (`Profile::Qwen024`).
    deferred: DeferredCalls,
    /// A chunk with a text, thought, signature or call part was yielded
    /// (`responseHasAssistantPayload` over the yielded chunks, 0.24.4).
    payload: bool,
    /// The stream ended with an in-band `error` event, whose held calls
    /// `upstream_failed` may still yield (0.24.4: the SDK's error is the
    /// source's failure).
    failed_in_band: bool,
    /// The last yielded chunk has the current header (see [`Self::wire_state`]).
    header_shown: bool,
}

impl SseConsumer for AnthropicStream {
    fn feed(&mut self) -> &mut Feed {
        &mut self.feed
    }

    fn sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        self.on_sse_event(e, out)
    }

    /// Runs of the hot event exactly as the API sends it (`event:` line,
    /// `data:` line, blank line, all ending in `\n`), taken without line
    /// framing; anything else is left to the decoder.
    fn raw_sse_events(
        &mut self,
        rest: &mut Rest<'_>,
        out: &mut Vec<Response>,
    ) -> (usize, Result<(), Error>) {
        const EVENT: &str = "event: content_block_delta\ndata: ";
        const END: &str = "\n\n";
        let text = rest.text();
        let mut taken = 0;
        while let Some(data) = prefix::strip(&text[taken..], EVENT) {
            let ends = |rest: &str| rest.starts_with(END);
            let Some((len, result)) = self
                .input_json_delta(data, ends)
                .or_else(|| self.text_delta(data, ends, out))
            else {
                break;
            };
            taken += EVENT.len() + len + END.len();
            if let Err(e) = result {
                return (taken, Err(*e));
            }
        }
        (taken, Ok(()))
    }
}

impl AnthropicStream {
    /// The state of a fresh request, as `processStream` starts it (Qwen Code
    /// packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts):
    /// no message, no open block, zero usage.
    pub fn new(options: AnthropicOptions) -> Self {
        AnthropicStream {
            message_id: None,
            model: None,
            usage: Usage::default(),
            message_start_usage_pending: false,
            finish_reason: None,
            blocks: Vec::new(),
            feed: Feed::new(options.limits.max_buffered_bytes, Bom::Never),
            limits: options.limits,
            buffered_args: 0,
            profile: options.profile,
            deferred: DeferredCalls::default(),
            payload: false,
            failed_in_band: false,
            header_shown: false,
        }
    }

    /// The state the JS fast paths depend on (`crate::state::State`), after a call
    /// that yielded `yielded`. `header`: no `message_start` usage is pending
    /// and the last chunk yielded has the current response id and model, so
    /// a text or thinking delta converts to one chunk with that header.
    /// `gather`: the last open block and how many bytes of arguments it can
    /// still take ([`Self::args_budget`]).
    pub fn wire_state(&mut self, yielded: &[Response]) -> State {
        if let Some(last) = yielded.last() {
            self.header_shown = last.flavor == Flavor::Anthropic
                && last.response_id == self.message_id
                && last.model_version == self.model;
        }
        if self.feed.is_finished() {
            return State::FINISHED;
        }
        let gather = self.blocks.last().and_then(|b| {
            let index: u32 = b.key.parse().ok()?;
            (index < MAX_GATHER_INDEX && b.key == index.to_string()).then_some(index)
        });
        State {
            header: self.header_shown && !self.message_start_usage_pending,
            payload: self.payload,
            gather,
            budget: gather.map_or(0, |i| self.args_budget(&i.to_string()).unwrap_or(0)),
            ..State::default()
        }
    }

    /// The release this stream follows (from [`AnthropicOptions::profile`]).
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// `end()` was called or a fatal error occurred: every further call is
    /// `FINISHED`.
    pub fn is_finished(&self) -> bool {
        self.feed.is_finished()
    }

    /// One SDK event given as JSON text.
    pub fn push_event_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        self.feed.check_open()?;
        let result = json::parse(text).and_then(|ev| self.event(&ev, out));
        let result = result.map_err(|mut e| {
            if e.provider_error.is_some() && e.provider_event.is_none() {
                e.provider_event = Some(text.into());
            }
            e
        });
        self.feed.settle(result)
    }

    /// Raw bytes of the SSE response body, split anywhere.
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_sse(bytes, out)
    }

    /// End of input: flushes a final unterminated SSE event. The converter is
    /// finished afterwards.
    pub fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        self.finish_sse(out)?;
        if self.profile == Profile::Qwen024 {
            self.deferred
                .at_end(self.has_open_tool_block(), self.payload)?;
        }
        Ok(())
    }

    /// The source of the events failed; `retryable`: with what 0.24.4
    /// classifies as a retryable stream transport error (the caller
    /// classifies it). Under `Profile::Qwen024` the held calls are then
    /// yielded when each was confirmed complete, as 0.24.4's `processStream`
    /// does before it rethrows. The converter is finished (a finished one
    /// yields nothing, unless an in-band `error` event finished it: that is
    /// the SDK's error, the source's failure in the reference).
    pub fn upstream_failed(
        &mut self,
        retryable: bool,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        if self.feed.is_finished() && !std::mem::take(&mut self.failed_in_band) {
            return Ok(());
        }
        if retryable && self.profile == Profile::Qwen024 {
            let open = self.has_open_tool_block();
            self.deferred.on_upstream_failure(open, out);
        }
        self.feed.finish();
        Ok(())
    }

    /// A text or thought chunk was built by the JS layer from an SDK event.
    pub fn note_payload(&mut self) {
        self.payload = true;
    }

    fn has_open_tool_block(&self) -> bool {
        self.blocks.iter().any(|b| b.kind == "tool_use")
    }

    /// `input_json_delta` fragments for block `index` (JS number text),
    /// gathered and joined by the JS layer from SDK event objects. With
    /// `json_encoded` they come as one JSON string literal (the JS layer's
    /// transport for text holding lone surrogates).
    pub fn append_input(
        &mut self,
        index: &str,
        fragments: &str,
        json_encoded: bool,
    ) -> Result<(), Error> {
        self.feed.check_open()?;
        let result = if json_encoded {
            match json::parse(fragments) {
                Ok(Value::Str(s)) => self.append_to_block(index, |buf| s.append_json_text_to(buf)),
                Ok(_) => Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "encoded fragments must be a JSON string",
                )),
                Err(e) => Err(e),
            }
        } else {
            self.append_to_block(index, |buf| buf.push_str(fragments))
        };
        self.feed.settle(result)
    }

    /// How many more bytes of arguments block `index` (JS number text) can
    /// take before a limit fails; `None` when there is no such block (its
    /// fragments are dropped, so no limit applies). The JS layer gathers
    /// fragments within this budget before handing them over, so a limit
    /// still fails at the event that crosses it.
    pub fn args_budget(&self, index: &str) -> Option<usize> {
        let block = self.blocks.iter().find(|b| b.key == index)?;
        let call = self
            .limits
            .max_call_bytes
            .saturating_sub(block.input_json.len());
        let buffered = self
            .limits
            .max_buffered_bytes
            .saturating_sub(self.buffered_args + self.feed.buffered());
        Some(call.min(buffered))
    }

    /// `content_block_stop` for block `index` (JS number text) of a
    /// `tool_use` block whose `input_json_delta` fragments the JS layer held
    /// instead of handing them over, and which `JSON.parse` accepts as they
    /// are: `arg_bytes` UTF-8 bytes of them. The limits and the chunk are the
    /// long way's (append, then stop), except that `{}` stands in for the
    /// arguments, which the JS layer puts in from its own parse. `Ok(false)`
    /// (nothing changed) when the block is not such a block: unknown, not
    /// `tool_use`, or holding arguments here already.
    pub fn stop_with_held_args(
        &mut self,
        index: &str,
        arg_bytes: usize,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        self.feed.check_open()?;
        if self.profile == Profile::Qwen024 {
            // The call is held for the stop reason: the long way.
            return Ok(false);
        }
        let Some(pos) = self
            .blocks
            .iter()
            .position(|b| b.key == index && b.kind == "tool_use" && b.input_json.is_empty())
        else {
            return Ok(false);
        };
        let result = self.held_args_limits(arg_bytes).map(|()| {
            let block = self.blocks.remove(pos);
            let part = Part::FunctionCall {
                id: block.id,
                name: block.name,
                args: Rc::new("{}".to_owned()),
                lifted: None,
            };
            let chunk = self.chunk(Some(part));
            out.push(chunk);
            true
        });
        self.feed.settle(result)
    }

    /// The checks `append_at` makes, for arguments that stay in JS.
    fn held_args_limits(&mut self, arg_bytes: usize) -> Result<(), Error> {
        if self.buffered_args + arg_bytes + self.feed.buffered() > self.limits.max_buffered_bytes {
            return Err(limit_error(
                "buffered stream data",
                self.limits.max_buffered_bytes,
            ));
        }
        if arg_bytes > self.limits.max_call_bytes {
            return Err(limit_error(
                "tool call arguments",
                self.limits.max_call_bytes,
            ));
        }
        Ok(())
    }

    /// The SDK's view of an SSE event: `ping` skipped, `error` thrown.
    /// One SSE event, as the Anthropic SDK that Qwen Code bundles (0.36.3,
    /// `Stream.fromSSEResponse`) hands it on: by its `event:` name. The
    /// message and content-block events (and the legacy `completion`) are
    /// parsed and yielded, `ping` is skipped, `error` throws; any other
    /// event, data-only ones included, yields nothing.
    fn on_sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        let (event, data) = (e.event, e.data);
        self.sdk_event(e, out)
            .map_err(|err| err.in_frame(event, data))
    }

    fn sdk_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        match e.event {
            Some(
                "error"
                | "completion"
                | "message_start"
                | "message_delta"
                | "message_stop"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop",
            ) => {}
            _ => return Ok(()),
        }
        if e.event != Some("error") && self.fast_delta(e.data, out)? {
            return Ok(());
        }
        let ev = json::parse(e.data)?;
        if e.event == Some("error") {
            let mut err = stream_error(&ev);
            err.provider_event = Some(e.data.into());
            self.failed_in_band = true;
            return Err(err);
        }
        self.event(&ev, out)
    }

    /// One event (docs/behaviour.md §2.3).
    fn event(&mut self, ev: &Value<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        if ev.is_null() {
            // `processStream` reads `event.type` of it: a TypeError there.
            return Err(Error::null_read("an event must not be null", true, "type"));
        }
        let Some(kind) = ev.at("type").as_jstr() else {
            return Ok(());
        };
        match kind.raw() {
            "content_block_delta" => self.content_block_delta(ev, out),
            "message_start" => {
                let message = required(ev, "message", "id")?;
                self.header_shown = false;
                if let Some(id) = present(message.get("id")) {
                    self.message_id = Some(json::to_json_string(id).into());
                }
                // `model = message.model ?? model`, shown as `model ||
                // undefined`: a falsy model replaces the last one and shows
                // none.
                if let Some(model) = present(message.get("model")) {
                    self.model = model.truthy().then(|| json::to_json_string(model).into());
                }
                let usage = message.at("usage");
                let u = &mut self.usage;
                u.prompt_reported |= is_number(usage.get("input_tokens"));
                u.completion_reported |= is_number(usage.get("output_tokens"));
                u.cached_reported |= is_number(usage.get("cache_read_input_tokens"));
                u.cache_creation_reported |= is_number(usage.get("cache_creation_input_tokens"));
                // `usage?.x ?? previous`: any value but null, as it is.
                let given = |key| present(usage.get(key)).map(JsValue::of);
                if let Some(v) = given("cache_read_input_tokens") {
                    u.cached = v;
                }
                if let Some(v) = given("cache_creation_input_tokens") {
                    u.cache_creation = v;
                }
                if let Some(v) = given("input_tokens") {
                    u.prompt = v;
                }
                if let Some(v) = given("output_tokens") {
                    u.completion = v;
                }
                self.message_start_usage_pending = u.any_reported();
                Ok(())
            }
            "content_block_start" => {
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
                        json::stringify(input, &mut input_json);
                        if input_json == "{}" {
                            input_json.clear();
                        }
                    }
                }
                self.add_args(input_json.len())?;
                let preparation = match (
                    kind.as_str(),
                    id.and_then(Value::as_str),
                    name.and_then(Value::as_str),
                ) {
                    ("tool_use", Some(id), Some(name)) if !id.is_empty() && !name.is_empty() => {
                        Some(Preparation {
                            call_id: id.into_owned(),
                            tool_name: name.into_owned(),
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
                };
                match self.blocks.iter_mut().find(|b| b.key == block.key) {
                    Some(existing) => {
                        self.buffered_args -= existing.input_json.len();
                        *existing = block;
                    }
                    None => self.blocks.push(block),
                }
                if let Some(p) = preparation {
                    let mut chunk = self.chunk(None);
                    chunk.preparations.push(p);
                    out.push(chunk);
                }
                Ok(())
            }
            "content_block_stop" => {
                let key = index_key(ev);
                let Some(pos) = self.blocks.iter().position(|b| b.key == key) else {
                    return Ok(());
                };
                let mut block = self.blocks.remove(pos);
                self.buffered_args -= block.input_json.len();
                if block.kind == "tool_use" && self.profile == Profile::Qwen024 {
                    let empty = block.input_json.is_empty();
                    let bytes = block.input_json.len();
                    let closed = self.deferred.close(std::mem::take(&mut block.input_json));
                    if let Closed::Call(args, lifted) = closed {
                        // Held arguments stay buffered data until the stop
                        // reason: the bytes just released are taken back.
                        self.buffered_args += bytes;
                        let part = Part::FunctionCall {
                            id: block.id,
                            name: block.name,
                            args: Rc::new(args),
                            lifted: lifted.map(Rc::new),
                        };
                        let chunk = self.chunk(Some(part));
                        self.deferred.hold(chunk, empty, bytes);
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
                            let repaired =
                                match safe_json_parse(source, self.limits.max_repair_depth)? {
                                    // Valid as gathered: the buffer itself is handed out.
                                    Some((Cow::Borrowed(_), _)) if !block.input_json.is_empty() => {
                                        None
                                    }
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
            "message_delta" => {
                let delta = required(ev, "delta", "stop_reason")?;
                let stop = delta.at("stop_reason");
                if stop.truthy() {
                    let reason = js_to_string(stop);
                    if self.profile == Profile::Qwen024 {
                        // Compared with `===`: a reason of another type is
                        // neither `tool_use` nor `max_tokens`.
                        let compared = if matches!(stop, Value::Str(_)) {
                            reason.as_str()
                        } else {
                            ""
                        };
                        self.confirm_calls(compared, out)?;
                    }
                    self.finish_reason = Some(reason);
                }
                let usage = ev.get("usage");
                let u = &mut self.usage;
                // `output_tokens` whatever its value (`!== undefined`); the
                // others only as numbers.
                if let Some(out_tokens) = json::get(usage, "output_tokens") {
                    u.completion = JsValue::of(out_tokens);
                    u.completion_reported = true;
                }
                if let Some(v) = json::get(usage, "input_tokens").and_then(Value::as_f64) {
                    u.prompt = JsValue::number(v);
                    u.prompt_reported = true;
                }
                if let Some(v) = json::get(usage, "cache_read_input_tokens").and_then(Value::as_f64)
                {
                    u.cached = JsValue::number(v);
                    u.cached_reported = true;
                }
                if let Some(v) =
                    json::get(usage, "cache_creation_input_tokens").and_then(Value::as_f64)
                {
                    u.cache_creation = JsValue::number(v);
                    u.cache_creation_reported = true;
                }
                if self.finish_reason.is_some() || usage.is_some_and(Value::truthy) {
                    self.message_start_usage_pending = false;
                    out.push(self.finish_chunk());
                }
                Ok(())
            }
            "message_stop" => {
                if self.usage.any_reported() {
                    self.message_start_usage_pending = false;
                    out.push(self.finish_chunk());
                }
                Ok(())
            }
            "error" => {
                self.failed_in_band = true;
                Err(stream_error(ev))
            }
            _ => Ok(()),
        }
    }

    /// 0.24.4 at a stop reason: the held calls are yielded, dropped with the
    /// open `tool_use` blocks (`max_tokens` truncation), or rejected.
    fn confirm_calls(&mut self, reason: &str, out: &mut Vec<Response>) -> Result<(), Error> {
        let before = out.len();
        let held = self.deferred.held_bytes();
        let dropped_blocks = self
            .deferred
            .confirm(reason, self.has_open_tool_block(), out)?;
        self.buffered_args -= held - self.deferred.held_bytes();
        if dropped_blocks {
            let dropped: usize = self
                .blocks
                .iter()
                .filter(|b| b.kind == "tool_use")
                .map(|b| b.input_json.len())
                .sum();
            self.buffered_args -= dropped;
            self.blocks.retain(|b| b.kind != "tool_use");
        }
        self.payload |= out.len() > before;
        Ok(())
    }

    fn content_block_delta(
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
                let Some(pos) = self.blocks.iter().position(|b| b.key == key) else {
                    return Ok(());
                };
                let fragment = delta.at("partial_json");
                if !fragment.truthy() {
                    return Ok(());
                }
                self.append_at(pos, |buf| match fragment.as_jstr() {
                    Some(s) => s.append_json_text_to(buf),
                    // `inputJson += value`: a value of another type is
                    // appended as its `String(value)` (`[object Object]`).
                    None => buf.push_str(&js_to_string(fragment)),
                })
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
                self.payload = true;
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
                self.payload = true;
                out.push(chunk);
                Ok(())
            }
            "signature_delta" => {
                let key = index_key(ev);
                if !self.blocks.iter().any(|b| b.key == key) {
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
                self.payload = true;
                out.push(chunk);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn append_to_block(
        &mut self,
        key: &str,
        append: impl FnOnce(&mut String),
    ) -> Result<(), Error> {
        match self.blocks.iter().position(|b| b.key == key) {
            Some(pos) => self.append_at(pos, append),
            None => Ok(()),
        }
    }

    /// Appends to block `pos`'s arguments, enforcing the limits.
    fn append_at(&mut self, pos: usize, append: impl FnOnce(&mut String)) -> Result<(), Error> {
        let buf = &mut self.blocks[pos].input_json;
        let before = buf.len();
        append(buf);
        self.check_block_limits(pos, before)
    }

    /// The limits after block `pos`'s arguments grew from `before` bytes.
    fn check_block_limits(&mut self, pos: usize, before: usize) -> Result<(), Error> {
        let block_len = self.blocks[pos].input_json.len();
        self.add_args(block_len - before)?;
        if block_len > self.limits.max_call_bytes {
            return Err(limit_error(
                "tool call arguments",
                self.limits.max_call_bytes,
            ));
        }
        Ok(())
    }

    /// The hot event of a tool-heavy stream, as the Anthropic API serialises
    /// it: `{"type":"content_block_delta","index":N,"delta":{"type":
    /// "input_json_delta","partial_json":"…"}}`. Recognised by its exact
    /// shape and appended without building a DOM; any other spelling takes
    /// the general path. Returns whether the event was consumed.
    fn fast_delta(&mut self, data: &str, out: &mut Vec<Response>) -> Result<bool, Error> {
        match self
            .input_json_delta(data, str::is_empty)
            .or_else(|| self.text_delta(data, str::is_empty, out))
        {
            None => Ok(false),
            Some((_, result)) => result.map(|()| true).map_err(|e| *e),
        }
    }

    /// The hot events of a text-heavy stream, as the API serialises them:
    /// `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta",
    /// "text":"…"}}` (or `thinking_delta` / `"thinking"`), followed by text
    /// that `rest_ok` accepts. Converted as `content_block_delta` does (the
    /// index plays no part for these deltas) without building a DOM. Returns
    /// the length of the event's JSON; `None`, with nothing changed, for any
    /// other shape.
    fn text_delta(
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
            self.payload = true;
            out.push(chunk);
        }
        Some((data.len() - body.len() + end + TAIL.len(), Ok(())))
    }

    /// The hot event at the start of `data`, followed by text that `rest_ok`
    /// accepts: its fragment appended to its block (scanned and decoded in
    /// one pass). Returns the length of the event's JSON and the outcome of
    /// the append (limits); `None`, with nothing changed, when `data` does
    /// not start with the hot event.
    fn input_json_delta(&mut self, data: &str, rest_ok: impl Fn(&str) -> bool) -> Option<Taken> {
        const MID: &str = ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"";
        const TAIL: &str = "\"}}";
        let (index, rest) = delta_head(data)?;
        let body = prefix::strip(rest, MID)?;
        // The event's length, given where its string ends in `body`.
        let len = |end: usize| data.len() - body.len() + end + TAIL.len();
        let shaped =
            |end: usize| body[end..].starts_with(TAIL) && rest_ok(&body[end + TAIL.len()..]);
        let Some(pos) = self.blocks.iter().position(|b| prefix::same(&b.key, index)) else {
            // No such block: a valid event is ignored.
            let (end, _) = json::scan_string(body.as_bytes(), 0)?;
            return shaped(end).then(|| (len(end), Ok(())));
        };
        // Taken back when the event turns out to have another shape.
        let buf = &mut self.blocks[pos].input_json;
        let before = buf.len();
        let end = json::scan_json_text_into(body, 0, buf)?;
        if !shaped(end) {
            buf.truncate(before);
            return None;
        }
        let result = if end > 0 {
            self.check_block_limits(pos, before).map_err(Box::new)
        } else {
            Ok(())
        };
        Some((len(end), result))
    }

    fn add_args(&mut self, added: usize) -> Result<(), Error> {
        self.buffered_args += added;
        if self.buffered_args + self.feed.buffered() > self.limits.max_buffered_bytes {
            return Err(limit_error(
                "buffered stream data",
                self.limits.max_buffered_bytes,
            ));
        }
        Ok(())
    }

    /// `buildGeminiChunk(part, …, takePendingMessageStartUsage())`.
    fn chunk(&mut self, part: Option<Part>) -> Response {
        let usage = if std::mem::take(&mut self.message_start_usage_pending) {
            Some(self.usage.metadata())
        } else {
            None
        };
        Response {
            flavor: Flavor::Anthropic,
            response_id: self.message_id.clone(),
            create_time: now_ms_shared(),
            model_version: self.model.clone(),
            candidate: Some(Candidate {
                parts: part.into_iter().collect(),
                finish_reason: None,
            }),
            usage,
            preparations: Vec::new(),
            sanitized: None,
        }
    }

    fn finish_chunk(&self) -> Response {
        Response {
            flavor: Flavor::Anthropic,
            response_id: self.message_id.clone(),
            create_time: now_ms_shared(),
            model_version: self.model.clone(),
            candidate: Some(Candidate {
                parts: Vec::new(),
                finish_reason: self
                    .finish_reason
                    .as_deref()
                    .map(|r| map_finish_reason(r, self.profile)),
            }),
            usage: Some(self.usage.metadata()),
            preparations: Vec::new(),
            sanitized: None,
        }
    }
}

/// A hot event taken from the bytes: its length and the outcome of
/// converting it. The error is boxed so the outcome stays two words: a large
/// `Result` returned through the event loop spilled to the stack and stalled
/// on store forwarding at every event (~12% of the core's samples).
type Taken = (usize, Result<(), Box<Error>>);

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

/// `mapAnthropicFinishReasonToGemini` (docs/behaviour.md §2.4), for a truthy reason;
/// 0.24.4's `mapAnthropicFinishReasonToLlm` also maps `refusal` to `SAFETY`
/// (anthropicContentGenerator/converter.ts).
pub fn map_finish_reason(reason: &str, profile: Profile) -> &'static str {
    match reason {
        "end_turn" | "stop_sequence" | "tool_use" => "STOP",
        "max_tokens" => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        "refusal" if profile == Profile::Qwen024 => "SAFETY",
        _ => "FINISH_REASON_UNSPECIFIED",
    }
}

/// An in-band `error` event: the SDK throws `APIError(body)`.
fn stream_error(ev: &Value<'_>) -> Error {
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

fn limit_error(what: &str, limit: usize) -> Error {
    Error::new(
        ErrorCode::LimitExceeded,
        format!("{what} exceed the limit of {limit} bytes"),
    )
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

fn is_number(v: Option<&Value<'_>>) -> bool {
    matches!(v, Some(Value::Num(_)))
}

/// The Map key of `event.index ?? 0`.
fn index_key(ev: &Value<'_>) -> String {
    match present(ev.get("index")) {
        Some(Value::Num(n)) if !n.contains(['.', 'e', 'E', '-']) && n.len() < 16 => (*n).to_owned(),
        Some(v) => json::to_json_string(v),
        None => "0".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[&str]) -> (Vec<String>, Option<Error>) {
        let mut s = AnthropicStream::new(AnthropicOptions::default());
        let mut out = Vec::new();
        let mut error = None;
        for e in events {
            if let Err(e) = s.push_event_text(e, &mut out) {
                error = Some(e);
                break;
            }
        }
        let written = out
            .iter()
            .map(|r| {
                let mut text = String::new();
                r.write_response(&mut text);
                text
            })
            .collect();
        (written, error)
    }

    #[test]
    fn text_thinking_and_signature_keep_lone_surrogates_and_other_types() {
        let delta = |d: &str| format!(r#"{{"type":"content_block_delta","index":0,"delta":{d}}}"#);
        let (out, error) = run(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking"}}"#,
            &delta(r#"{"type":"text_delta","text":"\ud835"}"#),
            &delta(r#"{"type":"thinking_delta","thinking":"\udc00"}"#),
            &delta(r#"{"type":"signature_delta","signature":"s\udfff"}"#),
            &delta(r#"{"type":"text_delta","text":42}"#),
            &delta(r#"{"type":"thinking_delta","thinking":{"a":1}}"#),
            &delta(r#"{"type":"signature_delta","signature":[1]}"#),
            &delta(r#"{"type":"text_delta","text":0}"#),
        ]);
        assert_eq!(error, None);
        let parts: Vec<&str> = out
            .iter()
            .map(|r| {
                let at = r.find("\"parts\":[").unwrap() + 9;
                &r[at..at + r[at..].find("],\"role\"").unwrap()]
            })
            .collect();
        assert_eq!(
            parts,
            [
                r#"{"text":"\ud835"}"#,
                r#"{"text":"\udc00","thought":true}"#,
                r#"{"thought":true,"thoughtSignature":"s\udfff"}"#,
                r#"{"text":42}"#,
                r#"{"text":{"a":1},"thought":true}"#,
                r#"{"thought":true,"thoughtSignature":[1]}"#,
            ]
        );
    }

    #[test]
    fn usage_counts_of_other_types_add_as_javascript_adds_them() {
        let (out, _) = run(&[
            r#"{"type":"message_start","message":{"usage":{"input_tokens":"10","output_tokens":"1","cache_read_input_tokens":"2"}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"20"}}"#,
        ]);
        assert!(
            out[0].contains(r#""usageMetadata":{"promptTokenCount":"1020","cachedContentTokenCount":"2","candidatesTokenCount":"20","totalTokenCount":"102020"}"#),
            "{}",
            out[0]
        );
    }

    #[test]
    fn a_null_sub_object_carries_the_reference_type_error() {
        let (_, error) = run(&[r#"{"type":"message_start","message":null}"#]);
        let host = error.and_then(|e| e.host_error).unwrap();
        assert_eq!(
            (host.name, host.message.as_str()),
            ("TypeError", "Cannot read properties of null (reading 'id')")
        );
    }
}
