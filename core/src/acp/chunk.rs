//! One chunk of a model stream in one step: the stream loop's per-chunk
//! work on ids and cards (docs/behaviour.md §6.4, Qwen Code's
//! `Session.#processStreamEvents`: GeminiChat's id normalisation, then
//! `ToolCallPreparationTracker.observe`, then `resolve` with the chunk's
//! complete calls), so that `consumeModelStream` (lib/acp/stream.js) crosses
//! into native code at most once per chunk and gets one text back.
//!
//! The steps run in the reference's order, so each sees what it saw there:
//! the preparations are observed under their final ids, and the calls
//! resolve under theirs.

use super::cards::ToolCallCards;
use super::frames::{frames_json, JsString, OwnedValue, Result};
use super::ids::ToolCallIds;
use super::tracker::{DescribedPreparation, PreparationTracker};

/// What one chunk brings: its preparations, described (their ids as the
/// provider gave them when the stream's ids are normalised here), and the
/// ids of its `functionCall` parts in order (`None` for an absent or
/// non-string id).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkCalls {
    /// The chunk's preparations, with their card titles and kinds.
    pub preparations: Vec<DescribedPreparation>,
    /// The ids of the chunk's complete calls.
    pub calls: Vec<Option<JsString>>,
}

/// What one chunk did: the preparing frames to send, and, when the ids were
/// normalised, each preparation's and each call's final id (`None`: the
/// call is a same-attempt duplicate, its part dropped).
#[derive(Clone, Debug, Default)]
pub struct ChunkStep {
    /// The preparing frames of the chunk's new preparations.
    pub frames: Vec<OwnedValue>,
    /// The normalised ids, preparations then calls; `None` when not
    /// normalised here.
    pub ids: Option<(Vec<JsString>, Vec<Option<JsString>>)>,
}

impl ChunkStep {
    /// The frames as a JSON array when the ids were not normalised here;
    /// else `{"frames": […], "preparations": […], "calls": […]}` with the
    /// final ids (`null` for a dropped call).
    pub fn to_json(&self) -> String {
        let Some((preparations, calls)) = &self.ids else {
            return frames_json(&self.frames);
        };
        let ids = |ids: Vec<OwnedValue>| OwnedValue::Arr(ids).to_json();
        let mut out = String::from("{\"frames\":");
        out.push_str(&frames_json(&self.frames));
        out.push_str(",\"preparations\":");
        out.push_str(&ids(preparations
            .iter()
            .cloned()
            .map(OwnedValue::Str)
            .collect()));
        out.push_str(",\"calls\":");
        out.push_str(&ids(calls
            .iter()
            .map(|id| id.clone().map_or(OwnedValue::Null, OwnedValue::Str))
            .collect()));
        out.push('}');
        out
    }
}

impl PreparationTracker {
    /// One chunk: with `ids`, its preparations' and calls' ids normalised
    /// first ([`ToolCallIds::apply`]); then [`observe`](Self::observe) of its
    /// preparations and [`resolve`](Self::resolve) of its calls. A failing
    /// observation resolves nothing, as in the reference, where the loop
    /// stops at the throw.
    pub fn observe_chunk(
        &mut self,
        cards: &mut ToolCallCards,
        ids: Option<&mut ToolCallIds>,
        chunk: ChunkCalls,
    ) -> Result<ChunkStep> {
        let ChunkCalls {
            mut preparations,
            mut calls,
        } = chunk;
        let normalised = ids.map(|ids| {
            let raw: Vec<JsString> = preparations.iter().map(|p| p.call_id.clone()).collect();
            let (final_preparations, final_calls) = ids.apply(&raw, &calls);
            for (p, id) in preparations.iter_mut().zip(&final_preparations) {
                p.call_id = id.clone();
            }
            calls.clone_from(&final_calls);
            (final_preparations, final_calls)
        });
        let frames = if preparations.is_empty() {
            Vec::new()
        } else {
            self.observe(cards, &preparations)?
        };
        self.resolve(calls);
        Ok(ChunkStep {
            frames,
            ids: normalised,
        })
    }
}
