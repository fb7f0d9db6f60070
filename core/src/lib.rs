//! toolcall-stream core: provider streams (Anthropic Messages SSE,
//! OpenAI-compatible chunks) to Gemini `GenerateContentResponse` chunks with
//! tool-call preparation metadata, and the ACP tool-card ledger. Pure Rust:
//! the napi binding lives in the parent crate.
//!
//! The layers point one way (ARCHITECTURE.md, "The layers"):
//! `foundations` ← `model` ← `convert` ← `acp`, and `wire` (the batch
//! encoding only the binding uses) above them all.

#![warn(missing_docs)]

pub mod acp;
pub mod convert;
pub mod foundations;
pub mod model;
pub mod wire;

pub use foundations::error::{Error, ErrorCode};
pub use foundations::limits::Limits;
pub use foundations::profile::Profile;
