//! The provider seam: what every provider's streaming converter does, as the
//! binding drives it, and the one table of providers. A provider is a folder
//! beside this file (`anthropic/`, `openai/`) whose stream type implements
//! [`StreamConverter`], and one row of [`PROVIDERS`]; the binding dispatches
//! through the trait and names no provider (ARCHITECTURE.md, "Adding a
//! provider").
//!
//! The object path (the JS layer's own conversion of hot SDK objects,
//! `lib/object-path.js`) is a capability beside the seam: a provider that
//! has one hands it out ([`StreamConverter::object_path`],
//! `crate::convert::object_path`); one without declares none.

use crate::convert::anthropic::{self, AnthropicOptions, AnthropicStream};
use crate::convert::nonstream::{BodyOptions, BodyResponse};
use crate::convert::object_path::ObjectPath;
use crate::convert::openai::{self, OpenAIOptions, OpenAIStream};
use crate::convert::openai_responses::{self, OpenAIResponsesOptions, OpenAIResponsesStream};
pub use crate::convert::options::ConverterOptions;
use crate::foundations::error::{Error, ErrorCode};
use crate::model::argument_progress::ArgumentProgress;
use crate::model::gemini::Response;
use crate::model::key_order::KeyOrder;

/// One request's streaming conversion, whatever the provider. Every call
/// appends what it yields to `out`, in order; an error finishes the stream
/// (docs/behaviour.md §1: a converter is one request's `processStream`).
pub trait StreamConverter {
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

    /// How far each open call's arguments have come (counts only), read at
    /// a timer's pace by the ACP layer; `held`: the body's bytes after those
    /// pushed, which the caller holds back where the SDK holds them
    /// (lib/qwen/sdk-frames.mjs), counted as if pushed, without converting
    /// them (empty: none).
    fn argument_progress(&mut self, held: &[u8]) -> Vec<ArgumentProgress>;

    /// No more input is taken (`end()`, a fatal error, a failed source):
    /// the state word of a provider without an object path says only this.
    fn finished(&self) -> bool;

    /// The provider's object path, when it has one: its state word bits,
    /// its header and its gathering calls.
    fn object_path(&mut self) -> Option<&mut dyn ObjectPath> {
        None
    }
}

/// One provider: the name a host asks for, how its stream is made, and
/// how one non-streaming body of it is converted.
pub struct Provider {
    /// The name the JS layer passes (`new ConverterHandle(name, …)`,
    /// `convertResponseText(name, …)`).
    pub name: &'static str,
    /// A fresh stream for one request; an error when its settings are not
    /// the provider's (`INVALID_ARGUMENT`).
    pub new: fn(&ConverterOptions) -> Result<Box<dyn StreamConverter>, Error>,
    /// One whole response body (JSON text) → one response.
    pub body: fn(&str, &BodyOptions) -> Result<BodyResponse, Error>,
    /// Every key order its responses are built in (declared in its
    /// folder): the JS layer's table of header ids is written from these
    /// (`core/examples/wire_constants.rs`).
    pub key_orders: &'static [&'static KeyOrder],
}

/// Every provider, one row each.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "anthropic",
        new: |o| {
            Ok(Box::new(AnthropicStream::new(AnthropicOptions {
                profile: o.profile,
                limits: o.limits,
            })))
        },
        body: anthropic::body::anthropic_response,
        key_orders: &[&anthropic::key_order::KEY_ORDER],
    },
    Provider {
        name: "openai",
        new: |o| Ok(Box::new(OpenAIStream::new(OpenAIOptions::read(o)?))),
        body: openai::body::openai_response,
        key_orders: &[&openai::key_order::KEY_ORDER, &openai::key_order::BARE],
    },
    Provider {
        name: "openai-responses",
        new: |o| {
            Ok(Box::new(OpenAIResponsesStream::new(
                OpenAIResponsesOptions::read(o)?,
            )))
        },
        body: openai_responses::body::openai_responses_body,
        key_orders: &[&openai_responses::key_order::KEY_ORDER],
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

/// Every key order the providers declare, in `PROVIDERS` order.
pub fn key_orders() -> impl Iterator<Item = &'static KeyOrder> {
    PROVIDERS.iter().flat_map(|p| p.key_orders.iter().copied())
}

/// The key order whose header id is `wire_id`, or an `INVALID_ARGUMENT`
/// error: an id no provider declares never stands for another's order.
pub fn key_order(wire_id: u8) -> Result<&'static KeyOrder, Error> {
    key_orders()
        .find(|k| k.wire_id == Some(wire_id))
        .ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidArgument,
                format!("unknown key order id {wire_id}: no provider declares it"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_id_names_one_key_order() {
        let ids: Vec<u8> = key_orders().filter_map(|k| k.wire_id).collect();
        for (i, id) in ids.iter().enumerate() {
            assert!(!ids[i + 1..].contains(id), "header id {id} declared twice");
            assert!(std::ptr::eq(
                key_order(*id).unwrap(),
                key_orders().find(|k| k.wire_id == Some(*id)).unwrap()
            ));
        }
        assert_eq!(key_order(0).unwrap().name, "Anthropic");
        assert_eq!(key_order(1).unwrap().name, "OpenAI");
    }

    #[test]
    fn an_unknown_header_id_is_refused_not_defaulted() {
        let unused = (0..=u8::MAX)
            .find(|id| key_orders().all(|k| k.wire_id != Some(*id)))
            .unwrap();
        let e = key_order(unused).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(e.message.contains(&format!("id {unused}")), "{}", e.message);
    }
}
