//! OpenAI-compatible `chat.completion.chunk`s → Gemini chunks, with the
//! semantics of `convertOpenAIChunkToGemini` in Qwen Code 0.21.2 and its
//! per-request context (docs/behaviour.md §3.2), plus SSE framing with the OpenAI SDK's
//! handling of `[DONE]` and in-band errors.
//!
//! One job a file: the request context as the list of its parts, its
//! options and input, and its public face here; `sse_events` (the SDK's
//! view of an SSE event, and the byte path), `convert` (one chunk the long
//! way, step by step), `tag_guard` (the thinking-tag protocol-leak guard and
//! its state), `tool_calls` (the calls: deltas into the parser,
//! preparations, limits), `template` (the template path; its state in
//! `template/kept.rs`), `object_path` (support for the JS layer's
//! conversion of SDK objects), `usage`, `finish_reason`, `chunk` (reading a
//! chunk's fields), `chunk_header` (the header the object path is handed),
//! `hot_shapes` (the chunks the object path takes, declared once),
//! `held_progress` (the argument progress of bytes held before the
//! converter), `seam`
//! (the provider seam's calls), `body` (a non-streaming `ChatCompletion`),
//! and the parsers they use: `tool_call_parser`, `text_delta`, `tagged`,
//! `tags`. A part's file does not depend on this
//! one; the steps that join parts are `impl OpenAIStream` blocks, here and
//! in `convert`, `template`, `sse_events` and `object_path`.

pub mod body;
mod call_ids;
mod chunk;
pub mod chunk_header;
mod convert;
mod finish_reason;
mod held_progress;
pub mod hot_shapes;
pub mod key_order;
pub mod object_path;
pub mod response_parsing;
mod seam;
mod sse_events;
mod tag_guard;
pub(crate) mod tagged;
mod tags;
mod template;
mod text_delta;
mod tool_call_parser;
mod tool_calls;
mod usage;

pub use response_parsing::ResponseParsing;
use std::rc::Rc;

use crate::convert::openai::chunk_header::{ChunkHeader, LastChunkHeader};
use crate::convert::options::ConverterOptions;
use crate::convert::settings::Settings;
use crate::convert::stream_input::{SseConsumer, StreamInput};
use crate::foundations::error::Error;
use crate::foundations::js_text::has_non_whitespace;
use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;
use crate::foundations::sse::Bom;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::clock::now_ms;
use crate::model::gemini::{Candidate, Preparation, Response};
use tag_guard::TagGuard;
use tagged::TaggedThinking;
use template::TemplatePath;
use text_delta::TextDeltas;
use tool_call_parser::{ArgumentChunk, ProviderIndex};
use tool_calls::{Bounds, ToolCalls};

pub use finish_reason::map_finish_reason;

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
    /// an argument-only chunk on the template path then builds nothing at all.
    /// A chunk given on its own (`push_chunk_text`) still gives exactly one.
    pub drop_empty: bool,
    /// Tool-call ids keep their JS values, as in the reference: every
    /// truthy `id` is one, compared as `Map` and `===` compare it, and
    /// written as it came (the Qwen preload's setting). Off: strings, and
    /// numbers by their text; ids of other types are ignored
    /// (`call_ids.rs`).
    pub js_tool_call_ids: bool,
}

impl OpenAIOptions {
    /// This provider's options from a host's (`crate::convert::settings`):
    /// `responseParsing.{contentOnlyThinkingTagLeaks, taggedThinkingTags,
    /// taggedThinkingTagsAfterReasoning}`, `throwOnErrorFinish`,
    /// `dropEmptyResponses`, `jsToolCallIds` (each `false` when absent).
    pub fn read(o: &ConverterOptions) -> Result<OpenAIOptions, Error> {
        let s = Settings::parse(o.settings.as_deref())?;
        Ok(OpenAIOptions {
            limits: o.limits,
            profile: o.profile,
            parsing: ResponseParsing {
                content_only_tag_leaks: s
                    .flag(&["responseParsing", "contentOnlyThinkingTagLeaks"])?,
                tagged_thinking: s.flag(&["responseParsing", "taggedThinkingTags"])?,
                tagged_thinking_after_reasoning: s
                    .flag(&["responseParsing", "taggedThinkingTagsAfterReasoning"])?,
            },
            throw_on_error_finish: s.flag(&["throwOnErrorFinish"])?,
            drop_empty: s.flag(&["dropEmptyResponses"])?,
            js_tool_call_ids: s.flag(&["jsToolCallIds"])?,
        })
    }
}

/// What the options fix for the stream's whole life ([`OpenAIOptions`]; the
/// tool-call id setting is held by [`call_ids::CallIds`], which applies it).
struct Config {
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    limits: Limits,
    /// Where 0.21.2 and 0.24.4 differ.
    profile: Profile,
    /// The provider's response parsing switches (`responseParsingOptions`).
    parsing: ResponseParsing,
    /// See [`OpenAIOptions::throw_on_error_finish`].
    error_finish_throws: bool,
    /// See [`OpenAIOptions::drop_empty`].
    drop_empty: bool,
}

/// The stream's input and how far it got.
struct Lifecycle {
    /// The byte-input decoder and the finished flag (set by `end()` or a
    /// fatal error).
    input: StreamInput,
    /// `[DONE]` was seen: the OpenAI SDK (`Stream.fromSSEResponse`, its
    /// `done` flag) skips every event after it.
    done: bool,
}

impl Lifecycle {
    /// A stream that has taken no input; `max_line` bounds one buffered SSE
    /// line or event. A BOM is skipped at the start of every line, as the
    /// OpenAI SDK's line decoder skips it ([`Bom::EveryLine`]).
    fn new(max_line: usize) -> Self {
        Lifecycle {
            input: StreamInput::new(max_line, Bom::EveryLine),
            done: false,
        }
    }
}

/// One request's context (docs/behaviour.md §3.1, `createRequestContext`):
/// everything here lives as long as one request. Each part is defined
/// beside the code that owns it.
pub struct OpenAIStream {
    /// What the options fix: limits, profile, parsing switches.
    config: Config,
    /// The input and whether `[DONE]` was seen.
    lifecycle: Lifecycle,
    /// The tool calls: parser, prepared ids, id rules (`tool_calls.rs`).
    calls: ToolCalls,
    /// The cumulative-text normalisers of content and reasoning
    /// (`text_delta.rs`).
    deltas: TextDeltas,
    /// Tagged thinking: its parser and what it buffers (`tagged.rs`).
    tagged: TaggedThinking,
    /// The thinking-tag protocol-leak guard and the parts it holds back
    /// (`tag_guard.rs`).
    guard: TagGuard,
    /// The template path's templates, scratch and output
    /// (`template/kept.rs`).
    templates: TemplatePath,
    /// The header noted for the JS object path: that of the last chunk
    /// given on its own, or converted from a template kept from one, with a
    /// truthy `created` ([`Self::take_chunk_header`], `chunk_header.rs`).
    chunk_header: LastChunkHeader,
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
            config: Config {
                limits: options.limits,
                profile: options.profile,
                parsing: options.parsing,
                error_finish_throws: options.throw_on_error_finish,
                drop_empty: options.drop_empty,
            },
            lifecycle: Lifecycle::new(options.limits.max_buffered_bytes),
            calls: ToolCalls::new(options.js_tool_call_ids, seed),
            deltas: TextDeltas::default(),
            tagged: TaggedThinking::new(options.parsing.tagged_thinking),
            guard: TagGuard::new(options.profile, options.parsing.content_only_tag_leaks),
            templates: TemplatePath::default(),
            chunk_header: LastChunkHeader::default(),
        }
    }

    /// The progress of each open call whose preparation was yielded, in the
    /// order the parser made their slots: its argument bytes so far and the
    /// line breaks in them; nothing once the stream is finished. The JS layer
    /// asks for it at a timer's pace, never per chunk (`lib/progress.js`).
    pub fn argument_progress(&mut self) -> Vec<ArgumentProgress> {
        if self.is_finished() {
            return Vec::new();
        }
        self.calls.progress(&Default::default())
    }

    /// `end()` was called or a fatal error occurred: every further call is
    /// `FINISHED`.
    pub fn is_finished(&self) -> bool {
        self.lifecycle.input.is_finished()
    }

    /// Chunks converted by the template path so far (a statistic
    /// for tests and benchmarks).
    pub fn template_chunks(&self) -> u64 {
        self.templates.converted
    }

    /// Whether a closing thinking-tag candidate is pending
    /// (`context.pendingThinkingTagCandidate?.closingTagName`): the
    /// pipeline turns a source error into `PROTOCOL_TAG_LEAK` then. Carried
    /// in the state word (`tag_closing`).
    pub fn closing_tag_pending(&self) -> bool {
        self.guard.closing_pending()
    }

    /// One chunk given as JSON text: exactly one response.
    pub fn push_chunk_text(&mut self, text: &str) -> Result<Response, Error> {
        self.lifecycle.input.check_open()?;
        let result = self.convert_text(text, false);
        self.lifecycle.input.settle(result)
    }

    /// The source of the chunks failed: the stream is finished and yields
    /// nothing more, as Qwen's pipeline rethrows the failure
    /// (packages/core/src/core/openaiContentGenerator/pipeline.ts,
    /// `processStreamWithLogging`).
    pub fn upstream_failed(&mut self) {
        self.lifecycle.input.finish();
    }

    /// End of input: flushes a final unterminated SSE event, then the
    /// pipeline's end-of-stream check of a pending thinking-tag candidate
    /// (docs/behaviour.md §3.1 step 5): whitespace-only → its held parts are flushed as a
    /// bare response; anything else → `PROTOCOL_TAG_LEAK`.
    pub fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        self.finish_sse(out)?;
        if let Some(candidate) = self.guard.candidate.take() {
            if candidate.closing.is_some() || has_non_whitespace(&candidate.text) {
                return Err(Error::protocol_tag_leak());
            }
            if let Some(parts) = self.guard.held_parts.take().filter(|p| !p.is_empty()) {
                out.push(Response {
                    key_order: &key_order::BARE,
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
        } else if self.config.parsing.tagged_thinking_after_reasoning
            && self.tagged.unclosed_thought()
        {
            // 0.24.4's pipeline: a thought still open at the end.
            return Err(Error::protocol_tag_leak());
        }
        Ok(())
    }

    /// The header noted for the object path (`crate::convert::openai::chunk_header`), when
    /// the JS layer has not been sent it yet: it goes out with the call's
    /// batch.
    pub fn take_chunk_header(&mut self) -> Option<Rc<ChunkHeader>> {
        self.chunk_header.take_unsent()
    }

    /// No held parts and no thinking-tag candidate: an argument-only delta
    /// converts to an empty response.
    pub fn is_quiet(&self) -> bool {
        !self.lifecycle.input.is_finished() && self.guard.holds_nothing()
    }
}

/// The tool calls within this stream's bounds: its limits and what its input
/// holds.
impl OpenAIStream {
    /// [`ToolCalls::feed`] within this stream's bounds.
    #[inline]
    fn feed(
        &mut self,
        index: ProviderIndex,
        chunk: ArgumentChunk<'_>,
        id: Option<&str>,
        name: Option<&str>,
        preparations: &mut Vec<Preparation>,
    ) -> Result<(), Error> {
        let bounds = bounds(&self.config, &self.lifecycle);
        self.calls
            .feed(index, chunk, id, name, preparations, bounds)
    }

    /// [`ToolCalls::check_limits`] within this stream's bounds.
    #[inline]
    fn check_limits(&self, call_len: Option<usize>) -> Result<(), Error> {
        self.calls
            .check_limits(call_len, bounds(&self.config, &self.lifecycle))
    }
}

/// A stream's [`Bounds`], from its parts, so that the calls can be borrowed
/// beside them. The limits are borrowed, not copied: a copy cost the
/// template path a few instructions a chunk.
#[inline]
fn bounds<'a>(config: &'a Config, lifecycle: &Lifecycle) -> Bounds<'a> {
    Bounds {
        limits: &config.limits,
        input_bytes: lifecycle.input.buffered(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::error::ErrorCode;
    use crate::foundations::json;

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
    fn a_chunk_given_alone_notes_its_header_once_for_the_object_path() {
        let mut s = stream(Profile::Qwen021);
        let chunk = |id: &str, created: &str, model: &str, content: &str| {
            format!(
                r#"{{"id":{id},"created":{created},"model":{model},"choices":[{{"delta":{{"content":"{content}"}}}}]}}"#
            )
        };
        s.push_chunk_text(&chunk(r#""a""#, "7", "null", "x"))
            .unwrap();
        let h = s.take_chunk_header().expect("the first chunk's header");
        assert_eq!(
            (h.id.as_deref(), &*h.created, h.model.as_deref()),
            (Some(r#""a""#), "7", Some("null"))
        );
        assert_eq!((&*h.create_time, h.model_version.as_deref()), ("7", None));
        // The same fields (the long way and the template path): nothing new.
        s.push_chunk_text(&chunk(r#""a""#, "7", "null", "y"))
            .unwrap();
        s.push_chunk_text(&chunk(r#""a""#, "7", "null", "z"))
            .unwrap();
        assert_eq!(s.take_chunk_header(), None);
        // A falsy created is the clock: no header.
        s.push_chunk_text(&chunk(r#""a""#, "0", r#""m""#, "w"))
            .unwrap();
        assert_eq!(s.take_chunk_header(), None);
        s.push_chunk_text(&chunk(r#""a""#, "8", r#""m""#, "v"))
            .unwrap();
        let h = s.take_chunk_header().expect("a new header");
        assert_eq!(
            (&*h.create_time, h.model_version.as_deref()),
            ("8", Some(r#""m""#))
        );
        // The SSE paths note none (the object path never follows them).
        let mut out = Vec::new();
        let event = format!("data: {}\n\n", chunk(r#""b""#, "9", r#""m""#, "u"));
        s.push_bytes(event.as_bytes(), &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(s.take_chunk_header(), None);
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
