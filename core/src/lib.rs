//! toolcall-stream core: provider streams (Anthropic Messages SSE,
//! OpenAI-compatible chunks) to Gemini `GenerateContentResponse` chunks with
//! tool-call preparation metadata, and the ACP tool-card ledger. Pure Rust:
//! the napi binding lives in the parent crate.

#![warn(missing_docs)]

pub mod acp;
pub mod anthropic;
pub mod argument_progress;
pub mod chunk_header;
pub mod error;
pub mod gemini;
pub mod held_calls;
pub mod js_text;
pub mod js_value;
pub mod json;
pub mod lifted;
pub mod limits;
pub mod nonstream;
pub mod openai;
pub mod path_counters;
pub(crate) mod prefix;
pub mod profile;
pub mod repair;
pub mod sse;
pub mod state;
pub(crate) mod stream_input;
pub(crate) mod usage_metadata;
pub mod wire;

pub use error::{Error, ErrorCode};
pub use limits::Limits;
pub use profile::Profile;
