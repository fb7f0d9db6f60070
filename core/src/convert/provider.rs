//! The provider seam: what every provider's streaming converter does, as the
//! binding drives it, and the one table of providers. A provider is a folder
//! beside this file (`anthropic/`, `openai/`) whose stream type implements
//! [`StreamConverter`], and one row of [`PROVIDERS`]; the binding dispatches
//! through the trait and names no provider (ARCHITECTURE.md, "Adding a
//! provider").
//!
//! The object path (the JS layer's own conversion of hot SDK objects,
//! `lib/object-path.js`) is not part of the seam: its gathering calls are
//! provider-shaped by nature and reach the concrete type through
//! [`StreamConverter::as_any`].

use std::any::Any;
use std::rc::Rc;

use crate::convert::anthropic::event_header::EventHeader;
use crate::convert::anthropic::{self, AnthropicOptions, AnthropicStream};
use crate::convert::nonstream::{BodyOptions, BodyResponse};
use crate::convert::openai::chunk_header::ChunkHeader;
use crate::convert::openai::{self, OpenAIOptions, OpenAIStream, ResponseParsing};
use crate::convert::state::State;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;
use crate::model::argument_progress::ArgumentProgress;
use crate::model::gemini::Response;

/// One request's streaming conversion, whatever the provider. Every call
/// appends what it yields to `out`, in order; an error finishes the stream
/// (docs/behaviour.md §1: a converter is one request's `processStream`).
pub trait StreamConverter: Any {
    /// Raw SSE bytes of the response body, split anywhere.
    fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error>;

    /// One object as the provider's SDK hands it over (an Anthropic event, an
    /// OpenAI chunk), as JSON text.
    fn push_object_text(&mut self, text: &str, out: &mut Vec<Response>) -> Result<(), Error>;

    /// The end of the input (a truncated stream is the provider's own error).
    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error>;

    /// The source of the input failed; `retryable`: the host classified the
    /// failure as a retryable stream transport error. Yields what the
    /// reference yields before it rethrows (none for most providers) and
    /// finishes the stream.
    fn upstream_failed(&mut self, retryable: bool, out: &mut Vec<Response>) -> Result<(), Error>;

    /// The state word the JS layer reads after a call that yielded `yielded`.
    fn wire_state(&mut self, yielded: &[Response]) -> State;

    /// The header of the responses the object path builds, when it changed
    /// since the JS layer was last sent one, taken once; `None` where the
    /// provider's object path needs none.
    fn take_object_path_header(&mut self) -> Option<ObjectPathHeader> {
        None
    }

    /// How far each open call's arguments have come (counts only), read at
    /// a timer's pace by the ACP layer; `held`: the body's bytes after those
    /// pushed, which the caller holds back where the SDK holds them
    /// (lib/qwen/sdk-frames.mjs), counted as if pushed, without converting
    /// them (empty: none).
    fn argument_progress(&mut self, held: &[u8]) -> Vec<ArgumentProgress>;

    /// The concrete stream, for the object path's provider-shaped calls.
    fn as_any(&mut self) -> &mut dyn Any;
}

/// The header the object path builds its responses with, as native built
/// it: the wire sends it, when it changes, as its own item first in a batch
/// (`crate::wire`).
#[derive(Debug)]
pub enum ObjectPathHeader {
    /// OpenAI: the header built from a chunk's `id`, `created` and `model`
    /// (`openai/chunk_header.rs`), the chunk-header item.
    Chunk(Rc<ChunkHeader>),
    /// Anthropic: the current message's header (`anthropic/event_header.rs`),
    /// the event-header item.
    Event(EventHeader),
}

/// What a host asks of a converter. Each provider reads what applies to it
/// (the pipeline switches and the response parsing concern the
/// OpenAI-compatible pipeline of Qwen Code,
/// `packages/core/src/core/openaiContentGenerator/pipeline.ts`).
#[derive(Clone, Debug, Default)]
pub struct ConverterOptions {
    /// The Qwen Code release followed where releases differ.
    pub profile: Profile,
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    pub limits: Limits,
    /// The provider's response parsing switches (all off by default).
    pub parsing: ResponseParsing,
    /// The pipeline's `error_finish` check before the converter.
    pub throw_on_error_finish: bool,
    /// Leave out the responses the pipeline drops unseen.
    pub drop_empty: bool,
    /// Tool-call ids keep their JS values.
    pub js_tool_call_ids: bool,
}

/// One provider: the name a host asks for, how its stream is made, and
/// how one non-streaming body of it is converted.
pub struct Provider {
    /// The name the JS layer passes (`new ConverterHandle(name, …)`,
    /// `convertResponseText(name, …)`).
    pub name: &'static str,
    /// A fresh stream for one request.
    pub new: fn(&ConverterOptions) -> Box<dyn StreamConverter>,
    /// One whole response body (JSON text) → one response.
    pub body: fn(&str, &BodyOptions) -> Result<BodyResponse, Error>,
}

/// Every provider, one row each.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "anthropic",
        new: |o| {
            Box::new(AnthropicStream::new(AnthropicOptions {
                profile: o.profile,
                limits: o.limits,
            }))
        },
        body: anthropic::body::anthropic_response,
    },
    Provider {
        name: "openai",
        new: |o| {
            Box::new(OpenAIStream::new(OpenAIOptions {
                limits: o.limits,
                profile: o.profile,
                parsing: o.parsing,
                throw_on_error_finish: o.throw_on_error_finish,
                drop_empty: o.drop_empty,
                js_tool_call_ids: o.js_tool_call_ids,
            }))
        },
        body: openai::body::openai_response,
    },
];

/// The provider named `name`, or an `INVALID_ARGUMENT` error naming those
/// there are.
pub fn provider(name: &str) -> Result<&'static Provider, Error> {
    PROVIDERS.iter().find(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = PROVIDERS.iter().map(|p| p.name).collect();
        Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "unknown converter kind {name:?} (known: {})",
                known.join(", ")
            ),
        )
    })
}
