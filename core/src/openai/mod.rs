//! OpenAI-compatible `chat.completion.chunk`s → Gemini chunks, with the
//! semantics of `convertOpenAIChunkToGemini` in Qwen Code 0.21.2 and its
//! per-request context (docs/behaviour.md §3.2), plus SSE framing with the OpenAI SDK's
//! handling of `[DONE]` and in-band errors.

pub(crate) mod tagged;
mod tags;
mod template;
mod text_delta;
mod tool_call_parser;

use std::borrow::Cow;
use std::collections::HashSet;
use std::rc::Rc;

use crate::error::{Error, ErrorCode};
use crate::feed::{Feed, SseConsumer};
use crate::gemini::{
    now_ms, now_ms_string, Candidate, Flavor, Part, Preparation, Response, Usage, UsageProvenance,
};
use crate::js_text::{has_non_whitespace, js_trim_start};
use crate::json::{self, Value};
use crate::limits::Limits;
use crate::profile::Profile;
use crate::sse::{Bom, Rest, SseEvent};
use tagged::TaggedThinkingParser;
use tags::*;
use template::{Fields, Fill, Header, Hole, Templates};
use text_delta::{estimate_token_units, TextDeltaState};
use tool_call_parser::{ProviderIndex, ToolCallParser};

const MAX_TAG_CANDIDATE_LENGTH: usize = 128;
const TOKEN_ESTIMATE_UNITS_PER_TOKEN: f64 = 20.0;

/// A visible-text candidate that may be a leaked thinking tag.
#[derive(Debug)]
struct TagCandidate {
    text: String,
    closing: Option<&'static str>,
}

/// Options of one OpenAI-compatible stream. There is no configured model:
/// `modelVersion` comes from each chunk's `model`.
#[derive(Clone, Debug, Default)]
pub struct OpenAIOptions {
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    pub limits: Limits,
    /// Where 0.21.2 and 0.24.4 differ (the content-only leak guard's rules).
    pub profile: Profile,
    /// The provider's response parsing switches (all off by default).
    pub parsing: ResponseParsing,
    /// Qwen's pipeline check before the converter (`pipeline.ts`,
    /// `processStreamWithLogging`): a chunk whose `finish_reason` is
    /// `error_finish` is a `StreamContentError`, in every input form. Off:
    /// the converter converts it, as Qwen's converter alone does.
    pub throw_on_error_finish: bool,
    /// The SSE paths (bytes, SSE text, `end`) leave out the responses
    /// Qwen's pipeline drops unseen ([`Response::is_dropped_by_pipeline`]);
    /// an argument-only chunk on the fast path then builds nothing at all.
    /// A chunk given on its own (`push_chunk_text`) still gives exactly one.
    pub drop_empty: bool,
}

/// The provider response parsing that Qwen Code switches on per provider
/// (`getResponseParsingOptions` of the OpenAI-compatible providers,
/// `packages/core/src/core/openaiContentGenerator/provider/*.ts`, carried
/// as the request context's `responseParsingOptions`). Off by default, as
/// on the default provider of 0.21.2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResponseParsing {
    /// `contentOnlyThinkingTagLeaks`: a `<think>`-like tag at the start of
    /// the content of a stream without structured reasoning is held as a
    /// candidate and fails the stream with `PROTOCOL_TAG_LEAK` when it
    /// proves to be a leaked thinking block (DashScope in 0.21.2, every
    /// model of the default provider in 0.24.4).
    pub content_only_tag_leaks: bool,
    /// `taggedThinkingTags`: `<think>…</think>` inside `content` becomes
    /// thought parts, and structured reasoning is buffered until it is
    /// known whether the content carries tagged thinking (MiniMax).
    pub tagged_thinking: bool,
    /// `taggedThinkingTagsAfterReasoning` (0.24.4, qwen3 models on the
    /// default provider): once structured reasoning was seen, content that
    /// opens with a thinking tag goes through a tagged-thinking parser from
    /// then on (a resent snapshot of it is dropped), and a thought still
    /// open at the finish or at the end of the stream is a
    /// `PROTOCOL_TAG_LEAK`.
    pub tagged_thinking_after_reasoning: bool,
}

/// One request's context (docs/behaviour.md §3.1 `createRequestContext`, §7).
pub struct OpenAIStream {
    parser: ToolCallParser,
    text_state: TextDeltaState,
    reasoning_state: TextDeltaState,
    prepared: HashSet<String>,
    has_structured_reasoning: bool,
    has_thinking_tag_in_reasoning: bool,
    has_visible_content: bool,
    at_visible_line_start: bool,
    tag_candidate: Option<TagCandidate>,
    held_parts: Option<Vec<Part>>,
    profile: Profile,
    parsing: ResponseParsing,
    /// `taggedThinkingParser` (present when tagged thinking is on).
    tagged: Option<TaggedThinkingParser>,
    /// `hasTaggedThinkingThought`.
    has_tagged_thought: bool,
    /// `pendingReasoningText`: reasoning buffered in a tagged stream.
    pending_reasoning: String,
    /// `pendingContentParts`: content buffered behind pending reasoning.
    pending_content: Vec<Part>,
    /// `protocolTagSanitized`, taken by the next response.
    sanitized: Option<(&'static str, usize)>,
    feed: Feed,
    done: bool,
    limits: Limits,
    rng: u64,
    /// Argument-only chunks seen, for the fast path (`template.rs`).
    templates: Templates<Fields>,
    /// Content-only chunks seen, for the text fast path (`template.rs`).
    content_templates: Templates<Header>,
    /// Reused for the argument text of a fast-path chunk.
    scratch: String,
    fast_chunks: u64,
    /// Qwen's pipeline check before the converter: a chunk whose
    /// `finish_reason` is `error_finish` is a `StreamContentError`, in every
    /// input form (off: the converter converts it, as Qwen's does).
    error_finish_throws: bool,
    /// See [`OpenAIOptions::drop_empty`].
    drop_empty: bool,
    /// Where `convert_text` takes a fast-path response from (kept, so the
    /// path allocates nothing per chunk).
    fast_out: Vec<Response>,
}

impl SseConsumer for OpenAIStream {
    fn feed(&mut self) -> &mut Feed {
        &mut self.feed
    }

    fn sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        self.on_sse_event(e, out)
    }

    /// Runs of argument-only chunks that fit a template, each written as
    /// the API writes it (`data: `, the chunk, a blank line, in `\n`),
    /// taken without line framing while the fast path is open; anything
    /// else is left to the decoder. A chunk's text holds no line break (the
    /// template came from one `data:` line, and the scanned string stops at
    /// control characters), so such a run is exactly these events. The bytes
    /// are not validated beforehand: a run of one call's chunks compares
    /// them with its template's text and validates the strings it decodes
    /// ([`Self::argument_run`]); any other chunk is read from text validated
    /// ahead of it ([`Rest::text_from`]).
    fn raw_sse_events(
        &mut self,
        rest: &mut Rest<'_>,
        out: &mut Vec<Response>,
    ) -> (usize, Result<(), Error>) {
        const DATA: &str = "data: ";
        const END: &str = "\n\n";
        let bytes = rest.bytes();
        let build = !self.drop_empty;
        let mut taken = 0;
        while !self.done && self.is_quiet() {
            let (run, result) = self.argument_run(&bytes[taken..], build, out);
            taken += run;
            if let Err(e) = result {
                return (taken, Err(*e));
            }
            if !bytes[taken..].starts_with(DATA.as_bytes()) {
                break;
            }
            let Some(data) = rest.text_from(taken, taken).strip_prefix(DATA) else {
                break;
            };
            let Some((len, result)) =
                self.fast_prefix(data, build, |rest| rest.starts_with(END), out)
            else {
                break;
            };
            taken += DATA.len() + len + END.len();
            if let Err(e) = result {
                return (taken, Err(*e));
            }
        }
        (taken, Ok(()))
    }
}

impl OpenAIStream {
    /// A fresh request context with its own tool-call parser, as
    /// `createRequestContext` makes one per stream (Qwen Code
    /// packages/core/src/core/openaiContentGenerator/pipeline.ts). The
    /// generator of the random part of generated call ids (`Math.random`
    /// in the reference) is seeded from the clock and the stack address.
    pub fn new(options: OpenAIOptions) -> Self {
        let seed =
            now_ms() ^ (std::ptr::addr_of!(options) as u64).rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
        OpenAIStream {
            parser: ToolCallParser::default(),
            text_state: TextDeltaState::default(),
            reasoning_state: TextDeltaState::default(),
            prepared: HashSet::new(),
            has_structured_reasoning: false,
            has_thinking_tag_in_reasoning: false,
            has_visible_content: false,
            at_visible_line_start: false,
            tag_candidate: None,
            held_parts: None,
            profile: options.profile,
            parsing: options.parsing,
            tagged: options
                .parsing
                .tagged_thinking
                .then(TaggedThinkingParser::default),
            has_tagged_thought: false,
            pending_reasoning: String::new(),
            pending_content: Vec::new(),
            sanitized: None,
            feed: Feed::new(options.limits.max_buffered_bytes, Bom::EveryLine),
            done: false,
            limits: options.limits,
            rng: seed | 1,
            templates: Templates::default(),
            content_templates: Templates::default(),
            scratch: String::new(),
            fast_chunks: 0,
            error_finish_throws: options.throw_on_error_finish,
            drop_empty: options.drop_empty,
            fast_out: Vec::new(),
        }
    }

    /// `end()` was called or a fatal error occurred: every further call is
    /// `FINISHED`.
    pub fn is_finished(&self) -> bool {
        self.feed.is_finished()
    }

    /// Chunks converted by the argument-only fast path so far (a statistic
    /// for tests and benchmarks).
    pub fn fast_chunks(&self) -> u64 {
        self.fast_chunks
    }

    /// Whether a closing thinking-tag candidate is pending
    /// (`context.pendingThinkingTagCandidate?.closingTagName`): the
    /// pipeline turns a source error into `PROTOCOL_TAG_LEAK` then. Carried
    /// in the state word (`tag_closing`).
    pub fn closing_tag_pending(&self) -> bool {
        self.tag_candidate
            .as_ref()
            .is_some_and(|c| c.closing.is_some())
    }

    /// One chunk given as JSON text: exactly one response.
    pub fn push_chunk_text(&mut self, text: &str) -> Result<Response, Error> {
        self.feed.check_open()?;
        let result = self.convert_text(text, false);
        self.feed.settle(result)
    }

    /// Raw bytes of the SSE body: one response per `data:` event until
    /// `[DONE]`. An in-band `{"error": …}` payload is a `STREAM_ERROR`, as
    /// the OpenAI SDK throws (`Stream.fromSSEResponse`: `data.error`).
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_sse(bytes, out)
    }

    /// End of input: flushes a final unterminated SSE event, then the
    /// pipeline's end-of-stream check of a pending thinking-tag candidate
    /// (docs/behaviour.md §3.1 step 5): whitespace-only → its held parts are flushed as a
    /// bare response; anything else → `PROTOCOL_TAG_LEAK`.
    pub fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        self.finish_sse(out)?;
        if let Some(candidate) = self.tag_candidate.take() {
            if candidate.closing.is_some() || has_non_whitespace(&candidate.text) {
                return Err(Error::protocol_tag_leak());
            }
            if let Some(parts) = self.held_parts.take().filter(|p| !p.is_empty()) {
                out.push(Response {
                    flavor: Flavor::Bare,
                    response_id: None,
                    create_time: Rc::from(""),
                    model_version: None,
                    candidate: Some(Candidate {
                        parts,
                        finish_reason: None,
                    }),
                    usage: None,
                    preparations: Vec::new(),
                    sanitized: None,
                });
            }
        } else if self.parsing.tagged_thinking_after_reasoning && self.unclosed_thought() {
            // 0.24.4's pipeline: a thought still open at the end.
            return Err(Error::protocol_tag_leak());
        }
        Ok(())
    }

    fn on_sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        let (event, data) = (e.event, e.data);
        self.sdk_event(e, out)
            .map_err(|err| err.in_frame(event, data))
    }

    /// One SSE event, as the OpenAI SDK that Qwen Code bundles hands it on.
    fn sdk_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        if self.done {
            return Ok(());
        }
        if e.data.starts_with("[DONE]") {
            self.done = true;
            return Ok(());
        }
        // The OpenAI SDK (5.11.0, `Stream.fromSSEResponse`) yields a
        // `thread.*` event as `{event, data}`, without its in-band error check.
        if let Some(name) = e.event.filter(|n| n.starts_with("thread.")) {
            json::parse(e.data)?;
            let mut text = String::with_capacity(e.data.len() + name.len() + 20);
            text.push_str("{\"event\":");
            json::write_str(&mut text, name);
            text.push_str(",\"data\":");
            text.push_str(e.data);
            text.push('}');
            let response = self.convert_text(&text, false)?;
            self.yield_sse(response, out);
            return Ok(());
        }
        if self.drop_empty && self.is_quiet() && self.fast_chunk(e.data, false, out)? {
            return Ok(());
        }
        let response = self.convert_text(e.data, true)?;
        self.yield_sse(response, out);
        Ok(())
    }

    /// A response of the SSE paths, unless `drop_empty` leaves it out.
    fn yield_sse(&mut self, response: Response, out: &mut Vec<Response>) {
        if !(self.drop_empty && response.is_dropped_by_pipeline()) {
            out.push(response);
        }
    }

    /// One chunk's JSON text → its response: the fast path when the chunk
    /// fits a template and the state allows it, else the long way (which
    /// keeps the chunk as a template when it qualifies). `sse`: the SDK's
    /// in-band error check applies; the pipeline's `error_finish` check
    /// applies in every form when it is on.
    fn convert_text(&mut self, text: &str, sse: bool) -> Result<Response, Error> {
        if self.is_quiet() {
            let mut one = std::mem::take(&mut self.fast_out);
            let hit = self.fast_chunk(text, true, &mut one);
            let response = one.pop();
            self.fast_out = one;
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
        if self.error_finish_throws {
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
                let message = crate::js_text::js_trim(&content);
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
        self.keep_template(text, &chunk, &response);
        Ok(response)
    }

    /// A chunk that fits a template, while no part is held and no tag
    /// candidate is pending. An argument-only chunk: of
    /// `convertOpenAIChunkToGemini`'s steps only the tool-call delta can act
    /// (no content, no reasoning, no finish, no usage; the thinking-tag
    /// guard sees no visible text; holding moves no part, as there is none),
    /// so that is all this does. A content-only chunk, while
    /// [`Self::is_text_ready`]: only the text normaliser acts
    /// ([`Self::push_plain_text`]). Its response goes to `out`; `build`:
    /// build it even when the pipeline would drop it (else nothing is built;
    /// `build` is always on when `drop_empty` is off). Whether the chunk took
    /// the fast path.
    fn fast_chunk(
        &mut self,
        text: &str,
        build: bool,
        out: &mut Vec<Response>,
    ) -> Result<bool, Error> {
        match self.fast_prefix(text, build, str::is_empty, out) {
            None => Ok(false),
            Some((_, result)) => result.map(|()| true).map_err(|e| *e),
        }
    }

    /// [`Self::fast_chunk`] on a chunk at the start of `text` that ends
    /// where `rest_ok` accepts what follows it: the chunk's length and its
    /// outcome; `None` when no template fits.
    fn fast_prefix(
        &mut self,
        text: &str,
        build: bool,
        rest_ok: impl Fn(&str) -> bool,
        out: &mut Vec<Response>,
    ) -> Option<(usize, Result<(), Box<Error>>)> {
        if let Some(taken) = self.fast_argument_prefix(text, build, &rest_ok, out) {
            return Some(taken);
        }
        if self.content_templates.is_empty() || !self.is_text_ready() {
            return None;
        }
        let (header, content, len) = self
            .content_templates
            .find_hole(text, rest_ok)
            .map(|(template, content, len)| (template.fields.clone(), content, len))?;
        let normalized = self.plain_text(&content.text());
        self.fast_chunks += 1;
        if normalized.is_empty() && !build {
            // Dropped unseen with its sanitisation note, as the pipeline
            // drops it.
            self.sanitized = None;
            return Some((len, Ok(())));
        }
        let parts = if normalized.is_empty() {
            Vec::new()
        } else {
            vec![Part::text(normalized)]
        };
        out.push(header.response(parts, Vec::new(), self.sanitized.take()));
        Some((len, Ok(())))
    }

    /// [`Self::fast_prefix`] for argument-only chunks: the chunk's length and
    /// its outcome; `None` when no argument template fits. The outcome is two words
    /// (the response goes to `out`, the error is boxed): a large value
    /// returned through the raw event loop spilled to the stack and stalled
    /// on store forwarding at every chunk.
    fn fast_argument_prefix(
        &mut self,
        text: &str,
        build: bool,
        rest_ok: impl Fn(&str) -> bool,
        out: &mut Vec<Response>,
    ) -> Option<(usize, Result<(), Box<Error>>)> {
        let templates = std::mem::take(&mut self.templates);
        let mut hole = ArgumentHole {
            parser: &mut self.parser,
            scratch: std::mem::take(&mut self.scratch),
        };
        hole.scratch.clear();
        let found = templates.find_prefix(text, &mut hole, rest_ok);
        let scratch = hole.scratch;
        let result = found.map(|(template, len, kept)| {
            let f = &template.fields;
            let mut preparations = Vec::new();
            let fed = match kept {
                // `addChunk` is done: what `feed` does after it is to
                // check the limits (nothing is left to prepare).
                Kept::Appended(pos) => self.check_limits(Some(self.parser.len_at(pos))),
                Kept::Scratch => self.feed(
                    f.index,
                    &scratch,
                    f.id.as_deref(),
                    f.name.as_deref(),
                    &mut preparations,
                ),
            };
            let converted = fed.map_err(Box::new).map(|()| {
                self.fast_chunks += 1;
                if !build && preparations.is_empty() {
                    // Dropped unseen with its sanitisation note, as the
                    // pipeline drops it.
                    self.sanitized = None;
                    return;
                }
                out.push(
                    f.header
                        .response(Vec::new(), preparations, self.sanitized.take()),
                );
            });
            (len, converted)
        });
        self.templates = templates;
        self.scratch = scratch;
        result
    }

    /// The run of argument-chunk events at the start of `bytes` that continue
    /// one call through one template ([`ToolCallParser::continuing`]), each
    /// added to the call as its string is decoded: the bulk of a streamed
    /// call, taken in one loop instead of one template search a chunk. How
    /// many bytes it took, and the outcome (an error ends the run after the
    /// chunk that caused it, as [`Self::fast_argument_prefix`] does).
    fn argument_run(
        &mut self,
        bytes: &[u8],
        build: bool,
        out: &mut Vec<Response>,
    ) -> (usize, Result<(), Box<Error>>) {
        let templates = std::mem::take(&mut self.templates);
        let run = templates.iter().find_map(|t| {
            let (ProviderIndex::Valid(index), None, None) =
                (t.fields.index, &t.fields.id, &t.fields.name)
            else {
                return None;
            };
            if !bytes.starts_with(t.event_before().as_bytes()) {
                return None;
            }
            self.parser.continuing(index).map(|pos| (t, pos))
        });
        let mut taken = 0;
        let mut result = Ok(());
        if let Some((t, pos)) = run {
            // The bytes between the strings are the template's text (valid
            // UTF-8); the strings are validated as they are decoded.
            let (head, tail, between) = (
                t.event_before().as_bytes(),
                t.event_after().as_bytes(),
                t.between_events().as_bytes(),
            );
            let mut start = head.len();
            while let Some(end) = self.parser.append_string(pos, bytes, start) {
                // One comparison to the next event's string, most of the time.
                let next = bytes[end..].starts_with(between);
                if !next && !bytes[end..].starts_with(tail) {
                    self.parser.take_back();
                    break;
                }
                taken = end + tail.len();
                if let Err(e) = self.check_limits(Some(self.parser.len_at(pos))) {
                    result = Err(Box::new(e));
                    break;
                }
                self.fast_chunks += 1;
                if build {
                    let response =
                        t.fields
                            .header
                            .response(Vec::new(), Vec::new(), self.sanitized.take());
                    out.push(response);
                } else {
                    // Dropped unseen with its sanitisation note, as the
                    // pipeline drops it.
                    self.sanitized = None;
                }
                if !next || !self.parser.still_continuing(pos) {
                    break;
                }
                start = end + between.len();
            }
        }
        self.templates = templates;
        (taken, result)
    }

    /// Keeps a converted chunk as a template when a fast path can reproduce
    /// its conversion: one tool call with a string `arguments`, and nothing
    /// that yields a part, a finish, usage or an error; or a string
    /// `content` and nothing else that converts (no reasoning, no tool
    /// calls, no finish, no usage, no error: `plainContent` in
    /// lib/object-path.js).
    fn keep_template(&mut self, text: &str, chunk: &Value<'_>, response: &Response) {
        if chunk.at("usage").truthy() || chunk.at("error").truthy() {
            return;
        }
        let Some(choice) = chunk.get("choices").and_then(first) else {
            return;
        };
        let delta = choice.at("delta");
        let reasoning = match delta.get("reasoning_content").filter(|v| !v.is_null()) {
            Some(v) => v,
            None => delta.at("reasoning"),
        };
        let header = || Header {
            response_id: response.response_id.clone(),
            model_version: response.model_version.clone(),
            create_time: chunk
                .at("created")
                .truthy()
                .then(|| response.create_time.clone()),
        };
        if let Some(content) = delta.at("content").as_jstr() {
            if !choice.at("finish_reason").truthy()
                && !reasoning.truthy()
                && delta.get("tool_calls").is_none_or(Value::is_null)
            {
                if let Some(hole) = Hole::of(text, content) {
                    self.content_templates.keep(text, hole, header);
                }
                return;
            }
        }
        // An empty `content` normalises to nothing and moves no state.
        if choice.at("finish_reason").truthy()
            || delta.at("content").as_jstr().is_some_and(|c| !c.is_empty())
            || (reasoning.truthy() && reasoning.as_jstr().is_some())
        {
            return;
        }
        let Some(Value::Arr(calls)) = delta.get("tool_calls") else {
            return;
        };
        let [call] = calls.as_slice() else {
            return;
        };
        let function = call.at("function");
        let Some(hole) = function
            .at("arguments")
            .as_jstr()
            .and_then(|arguments| Hole::of(text, arguments))
        else {
            return;
        };
        self.templates.keep(text, hole, || Fields {
            index: provider_index(call.get("index")),
            id: id_text(call.at("id")),
            name: function.at("name").as_str().map(Cow::into_owned),
            header: header(),
        });
    }

    /// `convertOpenAIChunkToGemini(chunk, ctx)` (docs/behaviour.md §3.2).
    fn convert(&mut self, chunk: &Value<'_>) -> Result<Response, Error> {
        let mut preparations = Vec::new();
        // `if (choice)`: a falsy first choice converts as no choice.
        let candidate = match chunk.get("choices").and_then(first).filter(|c| c.truthy()) {
            Some(choice) => Some(self.convert_choice(choice, &mut preparations)?),
            None => None,
        };
        let created = chunk.at("created");
        Ok(Response {
            flavor: Flavor::OpenAI,
            response_id: chunk.get("id").map(|id| json::to_json_string(id).into()),
            create_time: if created.truthy() {
                crate::js_text::js_to_string(created).into()
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
                .map(|u| self.usage(u)),
            preparations,
            sanitized: self.sanitized.take(),
        })
    }

    fn convert_choice(
        &mut self,
        choice: &Value<'_>,
        preparations: &mut Vec<Preparation>,
    ) -> Result<Candidate, Error> {
        let delta = choice.at("delta");
        let finish_value = choice.at("finish_reason");
        let finish = finish_value.truthy();
        let finish_str = finish_value.as_str();
        let mut parts: Vec<Part> = Vec::new();

        // Visible text (§3.2.1), through the tagged-thinking parser when
        // it is on (`convertOpenAITextToParts`).
        let mut content_parts = Vec::new();
        let after_reasoning = self.parsing.tagged_thinking_after_reasoning;
        if let Some(content) = delta.at("content").as_text() {
            // 0.24.4 (`convertOpenAIChunkToLlm`): a resent snapshot of
            // tagged content is dropped once the parser exists.
            let replayed = after_reasoning
                && self.tagged.is_some()
                && self.text_state.is_snapshot(&content)
                && contains_thinking_tag(&content);
            let normalized = if replayed {
                self.text_state.take_snapshot(&content);
                ""
            } else {
                self.text_state.normalize(&content)
            };
            let candidate = if after_reasoning {
                let pending = self.tag_candidate.as_ref().map_or("", |c| c.text.as_str());
                let candidate = format!("{pending}{normalized}");
                let reasoning_seen = self.has_structured_reasoning
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
                self.tag_candidate = None;
                content_parts = self
                    .tagged
                    .get_or_insert_with(TaggedThinkingParser::default)
                    .parse(&candidate, finish);
            } else if !normalized.is_empty() || finish {
                content_parts = self.text_to_parts(normalized, finish);
            }
        } else if finish {
            content_parts = self.text_to_parts("", true);
        }
        if finish && after_reasoning && self.unclosed_thought() {
            return Err(Error::protocol_tag_leak());
        }
        if content_parts.iter().any(Part::is_thought) {
            // A tagged thought: buffered reasoning is dropped, buffered
            // content goes first.
            self.has_tagged_thought = true;
            self.pending_reasoning.clear();
            parts.append(&mut self.pending_content);
        }
        // Reasoning (§3.2.2): `reasoning_content ?? reasoning`.
        let reasoning = match delta.get("reasoning_content").filter(|v| !v.is_null()) {
            Some(v) => Some(v),
            None => delta.get("reasoning"),
        };
        let tagged = self.parsing.tagged_thinking;
        let reasoning = reasoning.filter(|v| v.truthy() && (!tagged || !self.has_tagged_thought));
        match reasoning {
            // `[].length === 0`: normalised to nothing.
            Some(Value::Arr(items)) if items.is_empty() => {}
            Some(v @ (Value::Num(_) | Value::Bool(_) | Value::Obj(_) | Value::Arr(_))) => {
                self.foreign_reasoning(v, &mut parts)?;
            }
            _ => {}
        }
        if let Some(reasoning) = reasoning.and_then(Value::as_text) {
            let normalized = self.reasoning_state.normalize(&reasoning);
            if !normalized.is_empty() {
                self.reasoning_state.token_units += estimate_token_units(normalized);
                self.has_structured_reasoning = true;
                if contains_thinking_tag(normalized) {
                    self.has_thinking_tag_in_reasoning = true;
                }
                if !tagged {
                    parts.push(Part::reasoning(normalized));
                } else {
                    self.pending_reasoning.push_str(normalized);
                }
            }
        }
        if tagged && !self.has_tagged_thought && !self.pending_reasoning.is_empty() {
            self.pending_content.append(&mut content_parts);
            if finish {
                parts.push(Part::reasoning(std::mem::take(&mut self.pending_reasoning)));
            }
        }
        if finish {
            parts.append(&mut self.pending_content);
        }
        parts.append(&mut content_parts);

        // Tool-call deltas and preparations (§3.2.3): `for (const toolCall
        // of choice.delta.tool_calls)` when truthy. A string iterates its
        // characters, which carry no call.
        match delta.at("tool_calls") {
            Value::Arr(calls) => {
                for call in calls {
                    self.tool_call_delta(call, preparations)?;
                }
            }
            v @ (Value::Num(_) | Value::Bool(_) | Value::Obj(_)) if v.truthy() => {
                return Err(Error::type_error(
                    "tool_calls must be an array",
                    "choice.delta.tool_calls is not iterable",
                ));
            }
            _ => {}
        }

        // Thinking-tag protocol-leak guard (§3.2.4 step 1). It can only act
        // once structured reasoning was seen, a tag candidate is pending, or
        // the content-only guard is on and no visible content was seen yet;
        // otherwise all it does is note visible content.
        if self.tag_candidate.is_none()
            && !self.has_structured_reasoning
            && !self.content_only_guard_armed()
        {
            if !self.has_visible_content {
                self.has_visible_content = parts
                    .iter()
                    .filter_map(Part::visible_text)
                    .any(has_non_whitespace);
            }
        } else {
            let mut visible: String = parts.iter().filter_map(Part::visible_text).collect();
            let pending = self.tag_candidate.take();
            let replayed_prefix = pending.as_ref().is_some_and(|p| {
                p.closing.is_none() && has_non_whitespace(&p.text) && p.text == visible
            });
            let replayed_closing = standalone_closing_tag(&visible);
            if replayed_prefix
                || pending
                    .as_ref()
                    .is_some_and(|p| p.closing.is_some() && p.closing == replayed_closing)
            {
                drop_visible(&mut parts);
                visible.clear();
            }
            let combined = format!(
                "{}{}",
                pending.as_ref().map_or("", |p| p.text.as_str()),
                visible
            );
            // `classifyContentOnlyThinkingTagPrefix`, where it applies.
            let content_only = if self.content_only_guard_armed() {
                classify_content_only(&combined, finish, self.profile == Profile::Qwen024)
            } else {
                ContentOnlyTags::Clean
            };
            let can_start = !self.has_visible_content
                && !visible.is_empty()
                && ((self.has_structured_reasoning && can_be_standalone_tag_prefix(&combined))
                    || content_only != ContentOnlyTags::Clean);
            if pending.is_some() || can_start {
                let closing = standalone_closing_tag(&combined);
                let opening = standalone_opening_tag(&combined);
                let possible = can_be_standalone_tag_prefix(&combined)
                    || matches!(
                        content_only,
                        ContentOnlyTags::Pending | ContentOnlyTags::Suspicious
                    );
                let finished_whitespace =
                    finish && closing.is_none() && !has_non_whitespace(&combined);
                let trimmed = js_trim_start(&combined);
                let too_long = crate::js_text::utf16_len(trimmed) > MAX_TAG_CANDIDATE_LENGTH;
                // 0.24.4: a whole opening tag is never released as text.
                let confirmed_opening = self.profile == Profile::Qwen024
                    && leading_thinking_tag(&combined)
                    && !trimmed.starts_with("</");
                let release = content_only == ContentOnlyTags::Pending
                    && !confirmed_opening
                    && (finish || too_long);
                if content_only == ContentOnlyTags::Leaked {
                    return Err(Error::protocol_tag_leak());
                }
                if opening && self.has_structured_reasoning {
                    return Err(Error::protocol_tag_leak());
                }
                if pending.as_ref().is_some_and(|p| p.closing.is_some()) && closing.is_none() {
                    return Err(Error::protocol_tag_leak());
                }
                if finished_whitespace || release {
                    drop_visible(&mut parts);
                    if !combined.is_empty() {
                        parts.push(Part::text(combined.clone()));
                    }
                    visible = combined;
                } else if possible {
                    if !confirmed_opening && closing.is_none() && too_long {
                        return Err(Error::protocol_tag_leak());
                    }
                    self.tag_candidate = Some(match closing {
                        Some(name) => TagCandidate {
                            text: format!("</{name}>"),
                            closing: Some(name),
                        },
                        None => TagCandidate {
                            text: combined,
                            closing: None,
                        },
                    });
                    drop_visible(&mut parts);
                    visible = String::new();
                    if finish && closing.is_none() {
                        return Err(Error::protocol_tag_leak());
                    }
                } else if pending.is_some() {
                    drop_visible(&mut parts);
                    parts.push(Part::text(combined.clone()));
                    visible = combined;
                }
            }
            let leaked = self.has_structured_reasoning
                && ((!self.has_visible_content && leading_thinking_tag(&visible))
                    || (self.has_thinking_tag_in_reasoning
                        && (contains_closing_tag_after_newline(&visible)
                            || (self.at_visible_line_start && leading_closing_tag(&visible)))));
            if has_non_whitespace(&visible) {
                self.has_visible_content = true;
            }
            if !visible.is_empty() && self.has_thinking_tag_in_reasoning {
                let (had_break, suffix) = match visible.rfind('\n') {
                    Some(i) => (true, &visible[i + 1..]),
                    None => (false, visible.as_str()),
                };
                self.at_visible_line_start = (had_break || self.at_visible_line_start)
                    && suffix
                        .chars()
                        .all(|c| crate::js_text::is_js_whitespace(c) && c != '\r' && c != '\n');
            }
            if leaked {
                return Err(Error::protocol_tag_leak());
            }
        }

        // Validation, holding and complete calls (§3.2.4 steps 2–5).
        let nameless = self.parser.has_nameless_tool_call();
        let completed = if finish {
            self.parser
                .completed_tool_calls(self.limits.max_repair_depth)?
        } else {
            Vec::new()
        };
        let truncated = finish && self.parser.has_incomplete_tool_calls();
        if finish
            && self
                .tag_candidate
                .as_ref()
                .is_some_and(|c| c.closing.is_some())
        {
            if self.has_thinking_tag_in_reasoning
                || finish_str.as_deref() != Some("tool_calls")
                || completed.is_empty()
                || nameless
                || self.parser.has_conflicting_identity()
                || truncated
                || self.parser.has_invalid_arguments()
            {
                return Err(Error::protocol_tag_leak());
            }
            let tag = self
                .tag_candidate
                .take()
                .and_then(|c| c.closing)
                .unwrap_or("think");
            self.sanitized = Some((tag, completed.len()));
        }
        if finish
            && (self.parser.has_invalid_index()
                || nameless
                || (finish_str.as_deref() == Some("tool_calls") && completed.is_empty()))
        {
            self.held_parts = None;
            return Err(Error::malformed_tool_call());
        }
        let hold = !finish
            && (nameless || self.has_thinking_tag_in_reasoning || self.tag_candidate.is_some());
        if hold {
            self.held_parts
                .get_or_insert_with(Vec::new)
                .append(&mut parts);
        } else if let Some(mut held) = self.held_parts.take() {
            held.append(&mut parts);
            parts = held;
        }
        if finish {
            for call in completed {
                let id = match call.id {
                    Some(id) => id,
                    None => self.generated_id(),
                };
                let mut id_json = String::with_capacity(id.len() + 2);
                json::write_str(&mut id_json, &id);
                let mut name_json = String::with_capacity(call.name.len() + 2);
                json::write_str(&mut name_json, &call.name);
                parts.push(Part::FunctionCall {
                    id: Some(id_json),
                    name: Some(name_json),
                    args: call.args,
                    lifted: call.lifted.map(Rc::new),
                });
            }
        }
        let finish_reason = if !finish {
            None
        } else if truncated && finish_str.as_deref() != Some("length") {
            Some("MAX_TOKENS")
        } else {
            Some(map_finish_reason(finish_value, self.profile))
        };
        Ok(Candidate {
            parts,
            finish_reason,
        })
    }

    /// A truthy reasoning delta that is not a string: the reference
    /// normalises and pushes the value as it is (`{text: 5, thought:
    /// true}`); it has no `length`, so the token estimate becomes `NaN`.
    /// (An array, which has one, is taken as such a value too.)
    fn foreign_reasoning(&mut self, v: &Value<'_>, parts: &mut Vec<Part>) -> Result<(), Error> {
        let text = crate::js_text::js_to_string(v);
        if self.reasoning_state.normalize_foreign(&text) == text_delta::Foreign::Throws {
            return Err(Error::type_error(
                "reasoning must be a string",
                "rawDelta.startsWith is not a function",
            ));
        }
        self.reasoning_state.token_units = f64::NAN;
        self.has_structured_reasoning = true;
        if contains_thinking_tag(&text) {
            self.has_thinking_tag_in_reasoning = true;
        }
        if !self.parsing.tagged_thinking {
            parts.push(Part::Literal {
                kind: crate::gemini::LiteralKind::Reasoning,
                json: json::to_json_string(v),
            });
        } else {
            self.pending_reasoning.push_str(&text);
        }
        Ok(())
    }

    /// `convertOpenAITextToParts(text, ctx, final)` of a streaming request.
    fn text_to_parts(&mut self, text: &str, last: bool) -> Vec<Part> {
        match self.tagged.as_mut() {
            Some(parser) => parser.parse(text, last),
            None if text.is_empty() => Vec::new(),
            None => vec![Part::text(text)],
        }
    }

    /// `taggedThinkingParser?.hasUnclosedThought()`.
    fn unclosed_thought(&self) -> bool {
        self.tagged
            .as_ref()
            .is_some_and(TaggedThinkingParser::has_unclosed_thought)
    }

    /// The content-only leak guard classifies this chunk's text: it is on,
    /// and neither structured reasoning nor visible content was seen.
    fn content_only_guard_armed(&self) -> bool {
        self.parsing.content_only_tag_leaks
            && !self.has_structured_reasoning
            && !self.has_visible_content
    }

    fn tool_call_delta(
        &mut self,
        call: &Value<'_>,
        preparations: &mut Vec<Preparation>,
    ) -> Result<(), Error> {
        if call.is_null() {
            return Err(Error::null_read(
                "a tool call must not be null",
                true,
                "index",
            ));
        }
        let index = provider_index(call.get("index"));
        let function = call.at("function");
        let name_value = function.at("name");
        // `StreamingToolCallParser.addChunk`: `name?.trim()` first, then the
        // index check, then `chunk.trim()` unless the delta has an id or a
        // name, then `for (const char of chunk)`.
        if !matches!(name_value, Value::Null | Value::Str(_)) {
            return Err(Error::type_error(
                "a tool call name must be a string",
                "name?.trim is not a function",
            ));
        }
        let name = name_value.as_str();
        let arguments = function.at("arguments");
        let owned_args;
        let chunk: &str = match arguments {
            v if !v.truthy() => "",
            Value::Str(s) => {
                owned_args = s.json_text();
                &owned_args
            }
            _ if matches!(index, ProviderIndex::Invalid) => "",
            _ if !call.at("id").truthy()
                && name.as_deref().is_none_or(crate::js_text::is_blank) =>
            {
                return Err(Error::type_error(
                    "tool call arguments must be a string",
                    "chunk.trim is not a function",
                ));
            }
            // An array is iterable, and appended as `String(array)`.
            Value::Arr(_) => {
                owned_args = crate::js_text::js_to_string(arguments);
                &owned_args
            }
            _ => {
                return Err(Error::type_error(
                    "tool call arguments must be a string",
                    "chunk is not iterable",
                ));
            }
        };
        let id = id_text(call.at("id"));
        self.feed(index, chunk, id.as_deref(), name.as_deref(), preparations)
    }

    /// Argument-only deltas gathered by the JS layer, as the JSON text
    /// `[index, arguments, …]`: fed in order, exactly as the chunks that
    /// carried them would have been (they yield no parts and no
    /// preparations while the stream is quiet).
    pub fn push_fragments_text(&mut self, text: &str) -> Result<(), Error> {
        self.feed.check_open()?;
        let result = json::parse(text).and_then(|list| {
            let Value::Arr(items) = list else {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "fragments must be a JSON array",
                ));
            };
            let mut preparations = Vec::new();
            for pair in items.chunks(2) {
                let [index, fragment] = pair else { break };
                // A lone surrogate stays an escape, as `tool_call_delta`
                // keeps it: a pair split between two chunks rejoins in the
                // arguments' text, as the reference's string concatenation
                // joins it (U+FFFD here lost both halves).
                let fragment = fragment
                    .as_jstr()
                    .map(|s| s.json_text())
                    .unwrap_or_default();
                self.feed(
                    provider_index(Some(index)),
                    &fragment,
                    None,
                    None,
                    &mut preparations,
                )?;
            }
            Ok(())
        });
        self.feed.settle(result)
    }

    /// A content-only delta would convert to at most one text part, decided
    /// by the cumulative-text normaliser alone: nothing is held, no candidate
    /// or nameless call is pending, tagged thinking is off, and the
    /// thinking-tag guards cannot act (no reasoning seen, or visible content
    /// already seen and no tag in the reasoning; the content-only guard off
    /// or visible content already seen).
    pub fn is_text_ready(&self) -> bool {
        self.is_quiet()
            && self.tagged.is_none()
            && !self.parsing.tagged_thinking_after_reasoning
            && !self.content_only_guard_armed()
            && !self.parser.has_nameless_tool_call()
            && !self.has_thinking_tag_in_reasoning
            && (!self.has_structured_reasoning || self.has_visible_content)
    }

    /// The content of a content-only delta while [`Self::is_text_ready`]:
    /// returns the normalised text (empty = no part), with exactly the state
    /// changes the full conversion makes. `content` is well-formed text (a
    /// JS string with a lone surrogate takes the JSON text path); it is
    /// normalised in the text form ([`crate::json::text`]) the other paths
    /// keep, and handed back as plain text.
    pub fn push_plain_text(&mut self, content: &str) -> Result<String, Error> {
        self.feed.check_open()?;
        if !self.is_text_ready() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the converter is not ready for a plain text delta",
            ));
        }
        let text = self.plain_text(&crate::json::text::from_str(content));
        Ok(crate::json::text::to_plain(&text).into_owned())
    }

    /// A content-only delta's text while ready for plain text: normalised,
    /// and noted as visible content (the state change the full conversion
    /// makes for it).
    fn plain_text(&mut self, content: &str) -> String {
        let normalized = self.text_state.normalize(content).to_owned();
        if !self.has_visible_content && has_non_whitespace(&normalized) {
            self.has_visible_content = true;
        }
        normalized
    }

    /// The state the JS fast paths depend on (`crate::state::State`): `quiet`,
    /// `text_ready`, and the `budget` of argument bytes that can be gathered
    /// before a limit could fail: no call holds more than all of them
    /// together, so `max_call_bytes` less the parser's buffered bytes is a
    /// lower bound for every call. A finished converter first lets go of
    /// what only more input could use (the argument buffers and templates),
    /// so a converter that is done holds no large buffer until it is
    /// collected; what its state word says is kept.
    pub fn wire_state(&mut self) -> crate::state::State {
        let tag_closing = self.closing_tag_pending();
        if self.feed.is_finished() {
            if self.parser.buffered() > 0
                || !self.templates.is_empty()
                || !self.content_templates.is_empty()
            {
                self.parser = ToolCallParser::default();
                self.templates = Templates::default();
                self.content_templates = Templates::default();
                self.scratch = String::new();
            }
            return crate::state::State {
                tag_closing,
                ..crate::state::State::FINISHED
            };
        }
        let held = self.parser.buffered();
        let budget = (self.limits.max_call_bytes.saturating_sub(held)).min(
            self.limits
                .max_buffered_bytes
                .saturating_sub(held + self.feed.buffered()),
        );
        crate::state::State {
            quiet: self.is_quiet(),
            text_ready: self.is_text_ready(),
            tag_closing,
            budget,
            ..crate::state::State::default()
        }
    }

    /// No held parts and no thinking-tag candidate: an argument-only delta
    /// converts to an empty response.
    pub fn is_quiet(&self) -> bool {
        !self.feed.is_finished()
            && self.tag_candidate.is_none()
            && self.held_parts.as_ref().is_none_or(Vec::is_empty)
    }

    fn feed(
        &mut self,
        index: ProviderIndex,
        chunk: &str,
        id: Option<&str>,
        name: Option<&str>,
        preparations: &mut Vec<Preparation>,
    ) -> Result<(), Error> {
        let routed = self.parser.add_chunk(index, chunk, id, name);
        self.check_limits(routed.map(|slot| self.parser.buffer_len(slot)))?;
        let slot = match (routed, index) {
            (Some(slot), _) => Some(slot),
            (None, ProviderIndex::Valid(i)) => Some(i),
            (None, ProviderIndex::Invalid) => None,
        };
        if let Some(slot) = slot {
            if let Some((id, name)) = self.parser.unannounced_meta(slot) {
                if !self.prepared.contains(id) {
                    self.prepared.insert(id.to_owned());
                    preparations.push(Preparation {
                        call_id: id.to_owned(),
                        tool_name: name.to_owned(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The limits after a chunk was added: `call_len`, the bytes of the
    /// call it went to (if any), and all the bytes held.
    fn check_limits(&self, call_len: Option<usize>) -> Result<(), Error> {
        if call_len.is_some_and(|len| len > self.limits.max_call_bytes) {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "tool call arguments exceed the limit of {} bytes",
                    self.limits.max_call_bytes
                ),
            ));
        }
        if self.parser.buffered() + self.feed.buffered() > self.limits.max_buffered_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "buffered stream data exceed the limit of {} bytes",
                    self.limits.max_buffered_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Usage mapping (docs/behaviour.md §3.2.6, as 0.21.2 runs it), with the provenance
    /// the converter attaches (`cachedInputTokensReported`: a numeric
    /// `prompt_tokens_details.cached_tokens` or `cached_tokens`).
    fn usage(&self, usage: &Value<'_>) -> Usage {
        let is_number = |v: &Value<'_>| matches!(v, Value::Num(_));
        Usage {
            json: self.usage_json(usage),
            provenance: UsageProvenance::OpenAI {
                cached_input_tokens_reported: is_number(
                    usage.at("prompt_tokens_details").at("cached_tokens"),
                ) || is_number(usage.at("cached_tokens")),
            },
        }
    }

    /// The counts are the chunk's values as they are (`usage.prompt_tokens
    /// || 0`: a count sent as a string stays that string), compared and
    /// passed to `Math.min` as JS numbers.
    fn usage_json(&self, usage: &Value<'_>) -> String {
        // `x || 0`, written as the value it is.
        let or_zero = |v: &Value<'_>, out: &mut String| {
            if v.truthy() {
                json::stringify(v, out);
            } else {
                out.push('0');
            }
        };
        let prompt = usage.at("prompt_tokens");
        let completion = usage.at("completion_tokens");
        let total = usage.at("total_tokens");
        let reasoning = usage.at("completion_tokens_details").at("reasoning_tokens");
        let mut out = String::with_capacity(128);
        out.push('{');
        // `totalTokens === 0 || promptTokens !== 0 || completionTokens !== 0`:
        // a truthy count is never the number 0.
        if !total.truthy() || prompt.truthy() || completion.truthy() {
            out.push_str("\"promptTokenCount\":");
            or_zero(prompt, &mut out);
            out.push_str(",\"candidatesTokenCount\":");
            or_zero(completion, &mut out);
            out.push(',');
        }
        out.push_str("\"thoughtsTokenCount\":");
        // `providerReasoningTokens ?? …`: present and not null.
        if !reasoning.is_null() {
            json::stringify(reasoning, &mut out);
        } else {
            let estimated =
                (self.reasoning_state.token_units / TOKEN_ESTIMATE_UNITS_PER_TOKEN).ceil();
            let completion = if completion.truthy() {
                crate::js_text::js_to_number(completion)
            } else {
                0.0
            };
            // `completionTokens > 0 ? Math.min(estimated, completionTokens)`:
            // NaN compares false.
            let thoughts = if completion > 0.0 {
                // `Math.min`: NaN wins.
                if estimated.is_nan() {
                    f64::NAN
                } else {
                    estimated.min(completion)
                }
            } else {
                estimated
            };
            json::write_number(&mut out, thoughts);
        }
        out.push_str(",\"totalTokenCount\":");
        or_zero(total, &mut out);
        out.push_str(",\"cachedContentTokenCount\":");
        let details = usage.at("prompt_tokens_details").at("cached_tokens");
        let cached = usage.at("cached_tokens");
        if !details.is_null() {
            json::stringify(details, &mut out);
        } else if !cached.is_null() {
            json::stringify(cached, &mut out);
        } else {
            out.push('0');
        }
        out.push('}');
        out
    }

    /// `call_${Date.now()}_${Math.random().toString(36).substring(2, 9)}`.
    fn generated_id(&mut self) -> String {
        let mut suffix = String::with_capacity(7);
        for _ in 0..7 {
            // xorshift64*
            self.rng ^= self.rng >> 12;
            self.rng ^= self.rng << 25;
            self.rng ^= self.rng >> 27;
            let r = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let d = ((r >> 33) % 36) as u32;
            suffix.push(char::from_digit(d, 36).unwrap_or('0'));
        }
        format!("call_{}_{}", now_ms(), suffix)
    }
}

/// Where an argument chunk's string goes as the templates are tried: a
/// chunk that continues a call ([`ToolCallParser::continuing`]) is added
/// to it as it is decoded, the rest decoded into `scratch` for `feed`.
struct ArgumentHole<'p> {
    parser: &'p mut ToolCallParser,
    scratch: String,
}

/// What an [`ArgumentHole`] kept of a chunk's string.
enum Kept {
    /// Added to the call it continues (at this slot position).
    Appended(usize),
    /// Decoded into the scratch string, to be fed.
    Scratch,
}

impl Fill<Fields> for ArgumentHole<'_> {
    type Kept = Kept;

    fn fill(&mut self, fields: &Fields, text: &str, start: usize) -> Option<(usize, Kept)> {
        let continuing = match (fields.index, &fields.id, &fields.name) {
            (ProviderIndex::Valid(index), None, None) => self.parser.continuing(index),
            _ => None,
        };
        match continuing {
            Some(pos) => self
                .parser
                .append_string(pos, text.as_bytes(), start)
                .map(|end| (end, Kept::Appended(pos))),
            None => json::scan_json_text_into(text, start, &mut self.scratch)
                .map(|end| (end, Kept::Scratch)),
        }
    }

    fn take_back(&mut self, kept: Kept) {
        match kept {
            Kept::Appended(_) => self.parser.take_back(),
            Kept::Scratch => self.scratch.clear(),
        }
    }
}

/// `toolCall.index ?? 0`, checked as the parser does (`Number.isSafeInteger`
/// and non-negative).
fn provider_index(v: Option<&Value<'_>>) -> ProviderIndex {
    match v.filter(|v| !v.is_null()) {
        None => ProviderIndex::Valid(0),
        Some(v) => match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
                ProviderIndex::Valid(n as u64)
            }
            _ => ProviderIndex::Invalid,
        },
    }
}

/// The finish mapping of a truthy `finish_reason` (Qwen Code
/// packages/core/src/core/openaiContentGenerator/converter.ts). 0.21.2's
/// `mapOpenAIFinishReasonToGemini` looks the value up as a property key
/// (`String(value)`: `["stop"]` is `stop`); 0.24.4's
/// `mapOpenAIFinishReasonToLlm` takes strings only, lower-cased, and maps
/// `max_tokens` too.
pub fn map_finish_reason(reason: &Value<'_>, profile: Profile) -> &'static str {
    let key = match (reason, profile) {
        (Value::Str(s), Profile::Qwen024) => s.value().to_lowercase(),
        (_, Profile::Qwen024) => return "FINISH_REASON_UNSPECIFIED",
        (v, Profile::Qwen021) => crate::js_text::js_to_string(v),
    };
    match key.as_str() {
        "stop" | "function_call" | "tool_calls" => "STOP",
        "length" => "MAX_TOKENS",
        "max_tokens" if profile == Profile::Qwen024 => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        _ => "FINISH_REASON_UNSPECIFIED",
    }
}

/// Removes the parts that carry visible text (`parts.filter(p => !visible(p))`).
fn drop_visible(parts: &mut Vec<Part>) {
    parts.retain(|p| p.visible_text().is_none_or(str::is_empty));
}

/// `v?.[0]`: an array's first item, an object's `"0"` member, and for a
/// non-empty string its first character, which stands here as the string
/// itself (every property the converter reads of either is undefined).
fn first<'v, 'a>(v: &'v Value<'a>) -> Option<&'v Value<'a>> {
    match v {
        Value::Arr(items) => items.first(),
        Value::Obj(_) => v.get("0"),
        Value::Str(s) if !s.is_empty() => Some(v),
        _ => None,
    }
}

trait FirstOrNull<'a> {
    fn as_first(&self) -> &Value<'a>;
}

impl<'a> FirstOrNull<'a> for Value<'a> {
    /// `v?.[0]`, reading as `null` when absent.
    fn as_first(&self) -> &Value<'a> {
        static NULL: Value<'static> = Value::Null;
        first(self).unwrap_or(&NULL)
    }
}

/// A tool-call id as the parser keys it: strings, and numbers by their JS
/// text (ids of other types are ignored).
fn id_text(v: &Value<'_>) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.value().into_owned()),
        Value::Num(_) if v.truthy() => Some(crate::js_text::js_to_string(v)),
        _ => None,
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(stream: &mut OpenAIStream, chunk: &str) -> Result<String, Error> {
        let r = stream.push_chunk_text(chunk)?;
        let mut out = String::new();
        r.write_response(&mut out);
        Ok(out)
    }

    fn stream(profile: Profile) -> OpenAIStream {
        OpenAIStream::new(OpenAIOptions {
            profile,
            ..OpenAIOptions::default()
        })
    }

    #[test]
    fn finish_reasons_map_as_each_release_maps_them() {
        let map = |text: &str, profile| map_finish_reason(&json::parse(text).unwrap(), profile);
        use Profile::{Qwen021, Qwen024};
        assert_eq!(map(r#""STOP""#, Qwen021), "FINISH_REASON_UNSPECIFIED");
        assert_eq!(map(r#""STOP""#, Qwen024), "STOP");
        assert_eq!(map(r#""max_tokens""#, Qwen021), "FINISH_REASON_UNSPECIFIED");
        assert_eq!(map(r#""Max_Tokens""#, Qwen024), "MAX_TOKENS");
        assert_eq!(map(r#"["stop"]"#, Qwen021), "STOP");
        assert_eq!(map(r#"["stop"]"#, Qwen024), "FINISH_REASON_UNSPECIFIED");
        assert_eq!(map("7", Qwen021), "FINISH_REASON_UNSPECIFIED");
    }

    #[test]
    fn content_and_reasoning_keep_lone_surrogates() {
        let mut s = stream(Profile::Qwen021);
        let high = convert(&mut s, r#"{"choices":[{"delta":{"content":"\ud835"}}]}"#).unwrap();
        let low = convert(&mut s, r#"{"choices":[{"delta":{"content":"\udc00!"}}]}"#).unwrap();
        assert!(high.contains(r#"{"text":"\ud835"}"#), "{high}");
        assert!(low.contains(r#"{"text":"\udc00!"}"#), "{low}");
        let r = convert(&mut s, r#"{"choices":[{"delta":{"reasoning":"a\udfff"}}]}"#).unwrap();
        assert!(r.contains(r#"{"text":"a\udfff","thought":true}"#), "{r}");
    }

    #[test]
    fn odd_types_are_used_as_the_reference_uses_them() {
        let mut s = stream(Profile::Qwen021);
        let r = convert(
            &mut s,
            r#"{"choices":[],"usage":{"prompt_tokens":"10","completion_tokens":"5","total_tokens":"15"}}"#,
        )
        .unwrap();
        assert!(
            r.contains(r#""usageMetadata":{"promptTokenCount":"10","candidatesTokenCount":"5","thoughtsTokenCount":0,"totalTokenCount":"15","cachedContentTokenCount":0}"#),
            "{r}"
        );
        let r = convert(&mut s, r#"{"choices":[{"delta":{"reasoning_content":5}}]}"#).unwrap();
        assert!(r.contains(r#"{"text":5,"thought":true}"#), "{r}");
        let e = convert(
            &mut s,
            r#"{"choices":[{"delta":{"tool_calls":{"index":0}}}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidEvent);
        assert_eq!(
            e.host_error.map(|h| (h.name, h.message)),
            Some((
                "TypeError",
                "choice.delta.tool_calls is not iterable".to_owned()
            ))
        );
        let e = convert(
            &mut s,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"a":1}}}]}}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.host_error.map(|h| h.message),
            Some("chunk.trim is not a function".to_owned())
        );
    }
}
