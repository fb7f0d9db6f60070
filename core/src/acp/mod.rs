//! The ACP tool-card lifecycle: which cards are open in a session (the
//! ledger, [`cards`]), which preparations one model stream has shown
//! ([`tracker`]), and the per-attempt tool-call id normalisation that makes a
//! preparation and its complete call share one `toolCallId` ([`ids`]), and
//! the progress frames of a card still preparing ([`progress`]).
//!
//! Frames are ACP `session/update` payloads (the `update` object), built as
//! [`OwnedValue`]s of the core's own JSON module (`crate::json`), with
//! insertion-ordered keys so the key order of docs/behaviour.md §6.2
//! survives to the wire, and written exactly as `JSON.stringify` writes them
//! ([`frames`]). JSON that comes *in* is read by the converters' parser. There is no second JSON stack:
//! every string from JS (ids, tool names, titles, kinds, paths, plan
//! entries, messages) is a [`JsString`], which keeps a lone UTF-16
//! surrogate, so a frame gives back exactly what `JSON.parse(JSON.stringify(x))`
//! gives. Nothing here knows about napi or JS.

pub mod cards;
pub mod frames;
pub mod ids;
pub mod progress;
pub mod tracker;

pub use cards::{
    map_tool_kind, plan_update, plan_update_json, tool_content_from_json, tool_provenance,
    CardPhase, Location, Provenance, ResultStatus, StartStatus, ToolCallCards, ToolResult,
    ToolStart, DEFAULT_SUPPRESSED_TOOLS,
};
pub use frames::{frame_json, frames_json, JsString, OwnedValue, Result, SessionUpdate};
pub use ids::ToolCallIds;
pub use progress::{format_size, progress_title, CardProgress, Stall};
pub use tracker::{Preparation, PreparationTracker, StartAnswer};
