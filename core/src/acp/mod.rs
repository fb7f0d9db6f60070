//! The ACP tool-card lifecycle: which cards are open in a session (the
//! ledger, [`cards`]), which preparations one model stream has shown
//! ([`tracker`]), and the per-attempt tool-call id normalisation that makes a
//! preparation and its complete call share one `toolCallId` ([`ids`]).
//!
//! Frames are ACP `session/update` payloads (the `update` object), built as
//! `serde_json::Value`s with insertion-ordered keys so the key order of
//! docs/behaviour.md §6.2 survives to the wire. Nothing here knows about napi or JS.

pub mod cards;
pub mod ids;
pub mod tracker;

pub use cards::{
    map_tool_kind, plan_update, plan_update_json, tool_content_from_json, tool_provenance,
    CardPhase, Location, Provenance, ResultStatus, StartStatus, ToolCallCards, ToolResult,
    ToolStart, DEFAULT_SUPPRESSED_TOOLS,
};
pub use ids::ToolCallIds;
pub use tracker::{Preparation, PreparationTracker};

use crate::error::{Error, ErrorCode};

/// An ACP `session/update` payload: the value of `params.update`.
pub type SessionUpdate = serde_json::Value;

/// Bad input from the caller: the core's one error type, code
/// `INVALID_ARGUMENT` (the JS `Error.code`).
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidArgument, message)
}

pub type Result<T> = std::result::Result<T, Error>;

/// One optional frame as JSON text (`null` for none): the binding returns
/// this so JS does a single `JSON.parse`.
pub fn frame_json(frame: Option<&SessionUpdate>) -> String {
    frame.map_or_else(|| "null".to_string(), SessionUpdate::to_string)
}

/// Frames as one JSON array text.
pub fn frames_json(frames: &[SessionUpdate]) -> String {
    let mut out = String::from("[");
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&f.to_string());
    }
    out.push(']');
    out
}
