//! The ACP tool-card lifecycle: which cards are open in a session (the
//! ledger, [`cards`], which takes its [`input`] as JSON text, builds its
//! frames in `card_frames` with the kinds and provenance of [`kinds`], and
//! leaves TodoWrite to its [`plan`] update), which preparations one model
//! stream has shown ([`tracker`]), and the per-attempt tool-call id
//! normalisation that makes a preparation and its complete call share one
//! `toolCallId` ([`ids`]), one model-stream chunk's ids, preparing cards
//! and resolved calls in one step ([`chunk`]), and the progress frames of a
//! card still preparing ([`progress`]), and why a discarded one did not
//! run ([`discard`]). What a frame carries of a tool name
//! or a title is bounded in [`bounded_text`].
//!
//! Frames are ACP `session/update` payloads (the `update` object), built as
//! [`OwnedValue`]s of the core's own JSON module (`crate::foundations::json`), with
//! insertion-ordered keys so the key order of docs/behaviour.md §6.2
//! survives to the wire, and written exactly as `JSON.stringify` writes them
//! ([`frames`]). JSON that comes *in* is read by the converters' parser. There is no second JSON stack:
//! every string from JS (ids, tool names, titles, kinds, paths, plan
//! entries, messages) is a [`JsString`], which keeps a lone UTF-16
//! surrogate, so a frame gives back exactly what `JSON.parse(JSON.stringify(x))`
//! gives. Nothing here knows about napi or JS.

pub mod bounded_text;
mod card_frames;
pub mod cards;
pub mod chunk;
pub mod discard;
pub mod frames;
pub mod ids;
pub mod input;
pub mod kinds;
pub mod plan;
pub mod progress;
pub mod tracker;

pub use cards::{CardPhase, ToolCallCards, DEFAULT_SUPPRESSED_TOOLS};
pub use chunk::{ChunkCalls, ChunkStep};
pub use discard::{DiscardCause, DiscardReason};
pub use frames::{frame_json, frames_json, JsString, OwnedValue, Result, SessionUpdate};
pub use ids::ToolCallIds;
pub use input::{
    tool_content_from_json, Location, ResultStatus, StartStatus, ToolResult, ToolStart,
};
pub use kinds::{map_tool_kind, tool_provenance, Provenance};
pub use plan::{plan_update, plan_update_json};
pub use progress::{format_size, progress_title, IdleDeadline, ProgressReport, Stall};
pub use tracker::{DescribedPreparation, PreparationTracker, StartAnswer};
