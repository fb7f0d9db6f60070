//! toolcall-stream core: provider streams (Anthropic Messages SSE,
//! OpenAI-compatible chunks) to Gemini `GenerateContentResponse` chunks with
//! tool-call preparation metadata, and the ACP tool-card ledger. Pure Rust:
//! the napi binding lives in the parent crate.

#![warn(missing_docs)]

pub mod acp;
pub mod anthropic;
pub mod deferred_calls;
pub mod error;
pub(crate) mod feed;
pub mod gemini;
pub mod js_text;
pub mod js_value;
pub mod json;
pub mod lifted;
pub mod limits;
pub mod nonstream;
pub mod openai;
pub(crate) mod prefix;
pub mod profile;
pub mod repair;
pub mod sse;
pub mod state;
pub mod wire;

pub use error::{Error, ErrorCode};
pub use limits::Limits;
pub use profile::Profile;
