//! Which published Qwen Code release a converter follows where releases
//! differ. The Anthropic path differs in when and whether tool calls are
//! emitted
//! (`packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts,
//! processStream`). The OpenAI path differs only under the content-only
//! thinking-tag leak guard, in `classifyContentOnlyThinkingTagPrefix` and
//! the release of an opening tag
//! (`packages/core/src/core/openaiContentGenerator/converter.ts`).

use crate::foundations::error::{Error, ErrorCode};

/// The release a converter follows (the JS option `profile`). Which
/// provider follows which is its row's list (`convert/provider.rs`,
/// `Provider::profiles`), each pinned by the outputs of the published builds
/// in its fixture folder (`__test__/fixtures/providers/<name>/`). The
/// `Default` is only the enum's; a host that names no profile gets its
/// provider's first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// Qwen Code 0.21.2: a tool call is emitted at its `content_block_stop`,
    /// with repaired arguments.
    #[default]
    Qwen021,
    /// Qwen Code 0.23.3, whose OpenAI Responses generator gives text parts
    /// no message metadata (`responsesMessage`, from 0.23.4 on). Elsewhere
    /// it is 0.24.4's behaviour.
    Qwen0233,
    /// Qwen Code 0.24.4: tool calls are held until `message_delta` carries a
    /// `stop_reason`, their arguments are `JSON.parse`d only, and a call that
    /// cannot be confirmed complete fails the stream or is dropped.
    Qwen024,
}

impl Profile {
    /// The profile named as the JS option spells it; any other name is
    /// `INVALID_ARGUMENT`.
    pub fn parse(name: &str) -> Result<Profile, Error> {
        match name {
            "qwen-0.21" => Ok(Profile::Qwen021),
            "qwen-0.23.3" => Ok(Profile::Qwen0233),
            "qwen-0.24" => Ok(Profile::Qwen024),
            other => Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "unknown profile {other:?}: expected \"qwen-0.21\", \"qwen-0.23.3\" or \"qwen-0.24\""
                ),
            )),
        }
    }

    /// The name as the JS option spells it (the inverse of
    /// [`Profile::parse`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Qwen021 => "qwen-0.21",
            Profile::Qwen0233 => "qwen-0.23.3",
            Profile::Qwen024 => "qwen-0.24",
        }
    }
}
