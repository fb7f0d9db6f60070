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
use crate::foundations::profile::Profile;
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

/// One provider: the name a host asks for, the Qwen Code releases it
/// follows, how its stream is made, and how one non-streaming body of it is
/// converted.
pub struct Provider {
    /// The name the JS layer passes (`new ConverterHandle(name, …)`,
    /// `convertResponseText(name, …)`).
    pub name: &'static str,
    /// The profiles it follows, its default first: the one list of them.
    /// [`Provider::stream`] and [`Provider::convert_body`] refuse any other;
    /// the JS classes' option checks are written from it
    /// (`lib/generated/wire-constants.js` `PROVIDER_PROFILES`).
    pub profiles: &'static [Profile],
    /// A fresh stream for one request, under a profile of `profiles`; an
    /// error when its settings are not the provider's (`INVALID_ARGUMENT`).
    /// Hosts call [`Provider::stream`], which checks the profile first.
    pub new: fn(&ConverterOptions) -> Result<Box<dyn StreamConverter>, Error>,
    /// One whole response body (JSON text) → one response, under a profile
    /// of `profiles`. Hosts call [`Provider::convert_body`].
    pub body: fn(&str, &BodyOptions) -> Result<BodyResponse, Error>,
    /// Every key order its responses are built in (declared in its
    /// folder): the JS layer's table of header ids is written from these
    /// (`core/examples/wire_constants.rs`).
    pub key_orders: &'static [&'static KeyOrder],
}

impl Provider {
    /// The profile a host that names none gets: the first of `profiles`.
    pub fn default_profile(&self) -> Profile {
        self.profiles[0]
    }

    /// `profile` when this provider follows it, or an `INVALID_ARGUMENT`
    /// error naming the provider and its profiles: a release it never
    /// defined is refused, not converted under another's rules.
    pub fn check_profile(&self, profile: Profile) -> Result<Profile, Error> {
        if self.profiles.contains(&profile) {
            return Ok(profile);
        }
        let listed: Vec<&str> = self.profiles.iter().map(|p| p.as_str()).collect();
        Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "converter kind {:?} has no profile {:?} (its profiles: {})",
                self.name,
                profile.as_str(),
                listed.join(", ")
            ),
        ))
    }

    /// A fresh stream for one request: the profile checked
    /// ([`Provider::check_profile`]), then the row's `new`.
    pub fn stream(&self, options: &ConverterOptions) -> Result<Box<dyn StreamConverter>, Error> {
        self.check_profile(options.profile)?;
        (self.new)(options)
    }

    /// One whole response body (JSON text) → one response: the profile
    /// checked ([`Provider::check_profile`]), then the row's `body`.
    pub fn convert_body(&self, text: &str, options: &BodyOptions) -> Result<BodyResponse, Error> {
        self.check_profile(options.profile)?;
        (self.body)(text, options)
    }
}

/// Every provider, one row each.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        name: "anthropic",
        // Qwen Code 0.21.2 and 0.24.4 (`anthropicContentGenerator.ts`,
        // `processStream`: foundations/profile.rs).
        profiles: &[Profile::Qwen021, Profile::Qwen024],
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
        // Qwen Code 0.21.2 and 0.24.4 (`openaiContentGenerator/converter.ts`:
        // foundations/profile.rs).
        profiles: &[Profile::Qwen021, Profile::Qwen024],
        new: |o| Ok(Box::new(OpenAIStream::new(OpenAIOptions::read(o)?))),
        body: openai::body::openai_response,
        key_orders: &[&openai::key_order::KEY_ORDER, &openai::key_order::BARE],
    },
    Provider {
        name: "openai-responses",
        // Qwen Code has no Responses generator before 0.23.3; 0.23.4 on
        // (`qwen-0.24`, the default) give text parts their message.
        profiles: &[Profile::Qwen024, Profile::Qwen0233],
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

    const EVERY_PROFILE: [Profile; 3] = [Profile::Qwen021, Profile::Qwen0233, Profile::Qwen024];

    #[test]
    fn every_row_lists_profiles_once_each_and_by_the_names_js_passes() {
        for p in PROVIDERS {
            assert!(!p.profiles.is_empty(), "{} lists no profile", p.name);
            assert_eq!(p.default_profile(), p.profiles[0], "{}", p.name);
            for (i, profile) in p.profiles.iter().enumerate() {
                assert!(
                    !p.profiles[i + 1..].contains(profile),
                    "{}: {profile:?} twice",
                    p.name
                );
                assert_eq!(
                    Profile::parse(profile.as_str()).unwrap(),
                    *profile,
                    "{}",
                    p.name
                );
            }
        }
    }

    #[test]
    fn a_profile_a_row_does_not_list_is_refused_naming_the_provider_and_its_profiles() {
        let mut refused = 0;
        for p in PROVIDERS {
            for profile in EVERY_PROFILE {
                let options = ConverterOptions {
                    profile,
                    ..ConverterOptions::default()
                };
                let body = BodyOptions {
                    profile,
                    ..BodyOptions::default()
                };
                if p.profiles.contains(&profile) {
                    assert!(p.stream(&options).is_ok(), "{} under {profile:?}", p.name);
                    continue;
                }
                refused += 1;
                let stream = p.stream(&options).err().unwrap();
                let body = p.convert_body("{}", &body).unwrap_err();
                for e in [stream, body] {
                    assert_eq!(e.code, ErrorCode::InvalidArgument, "{}", e.message);
                    assert!(
                        e.message.contains(&format!("{:?}", p.name)),
                        "{}",
                        e.message
                    );
                    assert!(e.message.contains(profile.as_str()), "{}", e.message);
                    for listed in p.profiles {
                        assert!(e.message.contains(listed.as_str()), "{}", e.message);
                    }
                }
            }
        }
        // Not every row follows every release: the refusal was exercised.
        assert!(refused >= 2, "{refused}");
    }
}
