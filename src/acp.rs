//! The napi binding of the ACP card lifecycle (`toolcall_stream_core::acp`).
//!
//! Boundary rule: strings in, one JSON text out; `lib/acp/` does one
//! `JSON.parse` per call and owns the ergonomic API (`describe()` callbacks,
//! response objects, `consumeModelStream`). A string argument is read as
//! UTF-16 ([`Utf16String`]) into a [`JsString`], so a lone surrogate in an
//! id, a tool name, a title or a message comes back in the frame as it went
//! in (napi's UTF-8 `String` would make it U+FFFD); JSON texts from JS are
//! `JSON.stringify` output, whose `\uXXXX` escapes the core keeps.
//!
//! Native state lives in `#[napi]` class instances, freed with their JS
//! wrapper. Every entry catches panics (`INTERNAL`) and throws core errors
//! in the binding's one encoding (`crate::js_error`), decoded to
//! `ToolCallStreamError` by `lib/native.js`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::handles::Tracked;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use toolcall_stream_core::acp::bounded_text::{bounded_name, card_title};
use toolcall_stream_core::acp::{
    frame_json, frames_json, plan_update_json, tool_content_from_json, ChunkCalls,
    DescribedPreparation, DiscardCause, DiscardReason, IdleDeadline, JsString, PreparationTracker,
    ProgressReport, Stall, StartAnswer, ToolCallCards, ToolCallIds, ToolResult, ToolStart,
};

/// A discard's cause from JS: `reason` is one of `DiscardReason`'s values
/// (`lib/acp/discard.js` checked it; anything else is no cause), and
/// `idle_limit_ms` a whole number of milliseconds or absent.
fn discard_cause(reason: Option<String>, idle_limit_ms: Option<f64>) -> Option<DiscardCause> {
    let reason = DiscardReason::parse(reason.as_deref()?)?;
    Some(DiscardCause {
        reason,
        // `as` saturates: a negative or NaN limit is 0.
        idle_limit_ms: idle_limit_ms.map(|ms| ms as u64).filter(|&ms| ms > 0),
    })
}

/// A JS string argument, lone surrogates kept.
fn js(s: &Utf16String) -> JsString {
    JsString::from_utf16(s)
}

/// Entries return napi's `Result<T, String>`, the error encoded by
/// [`js_error`]. (Spelled out at each entry, because the `#[napi]` macro
/// recognises a `Result` return by name.)
fn guard<T>(f: impl FnOnce() -> toolcall_stream_core::acp::Result<T>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(js_error(&e)),
        Err(_) => Err(internal()),
    }
}

/// A core error as the binding's one thrown encoding (`crate::js_error`).
fn js_error(e: &toolcall_stream_core::Error) -> Error<String> {
    let e = crate::js_error(e);
    Error::new("GenericFailure".to_string(), e.reason.clone())
}

fn internal() -> Error<String> {
    js_error(&toolcall_stream_core::Error::new(
        toolcall_stream_core::ErrorCode::Internal,
        "toolcall-stream: internal error in the ACP card ledger",
    ))
}

/// A stateful entry: after a panic the state may be inconsistent, so it is
/// poisoned and every later call fails with `INTERNAL` too.
fn guard_state<S, T>(
    state: &mut S,
    poisoned: &mut bool,
    f: impl FnOnce(&mut S) -> toolcall_stream_core::acp::Result<T>,
) -> Result<T, String> {
    if *poisoned {
        return Err(internal());
    }
    match catch_unwind(AssertUnwindSafe(|| f(state))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(js_error(&e)),
        Err(_) => {
            *poisoned = true;
            Err(internal())
        }
    }
}

/// The session's card ledger (docs/behaviour.md §5.4). Wrapped by `ToolCallCards` in
/// `lib/acp/`.
#[napi]
pub struct NativeToolCallCards {
    inner: Tracked<ToolCallCards>,
    poisoned: bool,
}

impl NativeToolCallCards {
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut ToolCallCards) -> toolcall_stream_core::acp::Result<T>,
    ) -> Result<T, String> {
        guard_state(&mut *self.inner, &mut self.poisoned, f)
    }
}

#[napi]
impl NativeToolCallCards {
    /// `suppressed_tools`: `undefined` keeps the default (`todo_write`).
    #[napi(constructor)]
    pub fn new(suppressed_tools: Option<Vec<Utf16String>>) -> Self {
        let suppressed_tools = suppressed_tools.map(|tools| tools.iter().map(js).collect());
        NativeToolCallCards {
            inner: Tracked::new(ToolCallCards::new(suppressed_tools)),
            poisoned: false,
        }
    }

    /// A preparing `tool_call` frame, or `null`.
    #[napi]
    pub fn preparing(
        &mut self,
        call_id: Utf16String,
        tool_name: Utf16String,
        title: Option<Utf16String>,
        kind: Option<Utf16String>,
    ) -> Result<String, String> {
        self.with(|cards| {
            let frame = cards.preparing(
                js(&call_id),
                js(&tool_name),
                title.as_ref().map(js),
                kind.as_ref().map(js),
            )?;
            Ok(frame_json(frame.as_ref()))
        })
    }

    /// `call_json`: `{callId, toolName, rawInput, title?, kind?, locations?,
    /// status?}`. A `tool_call` / `tool_call_update` frame, or `null`.
    #[napi]
    pub fn started(&mut self, call_json: String) -> Result<String, String> {
        self.with(|cards| {
            let start = ToolStart::from_json(&call_json)?;
            Ok(frame_json(cards.started(&start)?.as_ref()))
        })
    }

    /// `call_json` as for `started`; `content_json`: the request's
    /// `ToolCallContent` array. The `toolCall` of a
    /// `session/request_permission`, or `null`.
    #[napi]
    pub fn permission(
        &mut self,
        call_json: String,
        content_json: String,
    ) -> Result<String, String> {
        self.with(|cards| {
            let start = ToolStart::from_json(&call_json)?;
            let content = tool_content_from_json(&content_json, "permission")?;
            Ok(frame_json(cards.permission(&start, content)?.as_ref()))
        })
    }

    /// `result_json`: `{status, content?, rawOutput?}`. A terminal frame, or
    /// `null`.
    #[napi]
    pub fn finished(
        &mut self,
        call_id: Utf16String,
        tool_name: Utf16String,
        result_json: String,
    ) -> Result<String, String> {
        self.with(|cards| {
            let result = ToolResult::from_json(&result_json)?;
            Ok(frame_json(
                cards
                    .finished(js(&call_id), js(&tool_name), result)?
                    .as_ref(),
            ))
        })
    }

    /// A discarded-preparation frame, or `null`.
    #[napi]
    pub fn discarded(
        &mut self,
        call_id: Utf16String,
        tool_name: Utf16String,
        reason: Option<String>,
        idle_limit_ms: Option<f64>,
    ) -> Result<String, String> {
        let cause = discard_cause(reason, idle_limit_ms);
        self.with(|cards| {
            Ok(frame_json(
                cards
                    .discarded(js(&call_id), js(&tool_name), cause.as_ref())?
                    .as_ref(),
            ))
        })
    }

    /// The progress frame of a card still preparing, or `null`. The counts
    /// are whole numbers `lib/acp/progress.js` checked; `stalled` is
    /// `"model"`, `"connection"` or absent; `idle_limit_ms` (positive) and
    /// `host` are the host's idle deadline, when it has one.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn progress(
        &mut self,
        call_id: Utf16String,
        title: Option<Utf16String>,
        argument_bytes: f64,
        argument_lines: f64,
        elapsed_ms: f64,
        idle_ms: f64,
        stalled: Option<String>,
        idle_limit_ms: Option<f64>,
        host: Option<Utf16String>,
    ) -> Result<String, String> {
        let deadline = match (idle_limit_ms.map(|ms| ms as u64), host.as_ref()) {
            (Some(ms), Some(host)) if ms > 0 => Some(IdleDeadline::new(ms, &js(host))),
            _ => None,
        };
        self.with(|cards| {
            // `as` saturates: a negative or NaN count is 0, never a panic.
            let progress = ProgressReport {
                argument_bytes: argument_bytes as u64,
                argument_lines: argument_lines as u64,
                elapsed_ms: elapsed_ms as u64,
                idle_ms: idle_ms as u64,
                stalled: stalled.as_deref().and_then(Stall::parse),
            };
            Ok(frame_json(
                cards
                    .progress(
                        js(&call_id),
                        title.as_ref().map(js),
                        &progress,
                        deadline.as_ref(),
                    )
                    .as_ref(),
            ))
        })
    }

    /// Terminal frames for every open card, as a JSON array.
    #[napi]
    pub fn close_all(
        &mut self,
        message: Option<Utf16String>,
        reason: Option<String>,
        idle_limit_ms: Option<f64>,
    ) -> Result<String, String> {
        let cause = discard_cause(reason, idle_limit_ms);
        self.with(|cards| {
            Ok(frames_json(
                &cards.close_all(message.as_ref().map(js), cause.as_ref()),
            ))
        })
    }

    /// Whether a card is open for the id.
    #[napi]
    pub fn is_open(&mut self, call_id: Utf16String) -> Result<bool, String> {
        self.with(|cards| Ok(cards.is_open(js(&call_id))))
    }

    /// Ids of the open cards, in opening order, as a JSON array.
    #[napi]
    pub fn open_ids(&mut self) -> Result<String, String> {
        self.with(|cards| Ok(cards.open_ids_json()))
    }
}

/// docs/behaviour.md §6.3: the TodoWrite `plan` update, or `null`. Arguments are JSON
/// texts (`undefined` when absent).
#[napi]
pub fn acp_plan_update(
    args_json: Option<String>,
    result_display_json: Option<String>,
) -> Result<String, String> {
    guard(|| plan_update_json(args_json.as_deref(), result_display_json.as_deref()))
}

/// A tool name as the card frames carry it
/// (`toolcall_stream_core::acp::bounded_text::bounded_name`), as a JSON
/// string literal (lone surrogates kept).
#[napi]
pub fn acp_frame_tool_name(tool_name: Utf16String) -> Result<String, String> {
    guard(|| {
        let mut out = String::new();
        bounded_name(&js(&tool_name)).write_json(&mut out);
        Ok(out)
    })
}

/// A described card title as the card frames carry it
/// (`toolcall_stream_core::acp::bounded_text::card_title`), as a JSON
/// string literal.
#[napi]
pub fn acp_card_title(title: Utf16String) -> Result<String, String> {
    guard(|| {
        let mut out = String::new();
        card_title(Some(&js(&title)), &JsString::new()).write_json(&mut out);
        Ok(out)
    })
}

/// One model stream's preparation tracker (docs/behaviour.md §5.3). Wrapped by
/// `PreparationTracker` in `lib/acp/`, which passes the session's cards to
/// each call.
#[napi]
pub struct NativePreparationTracker {
    inner: Tracked<PreparationTracker>,
    poisoned: bool,
}

impl Default for NativePreparationTracker {
    fn default() -> Self {
        NativePreparationTracker::new()
    }
}

impl NativePreparationTracker {
    /// Runs `f` on the tracker and the session's cards; a panic poisons both.
    fn with_cards<T>(
        &mut self,
        cards: &mut NativeToolCallCards,
        f: impl FnOnce(
            &mut PreparationTracker,
            &mut ToolCallCards,
        ) -> toolcall_stream_core::acp::Result<T>,
    ) -> Result<T, String> {
        if cards.poisoned {
            return Err(internal());
        }
        let cards_inner = &mut *cards.inner;
        let result = guard_state(&mut *self.inner, &mut self.poisoned, |tracker| {
            f(tracker, cards_inner)
        });
        cards.poisoned |= self.poisoned;
        result
    }
}

#[napi]
impl NativePreparationTracker {
    #[napi(constructor)]
    pub fn new() -> Self {
        NativePreparationTracker {
            inner: Tracked::new(PreparationTracker::new()),
            poisoned: false,
        }
    }

    /// `preparations_json`: `[{callId, toolName, title?, kind?}]`. The
    /// preparing frames, as a JSON array.
    #[napi]
    pub fn observe(
        &mut self,
        cards: &mut NativeToolCallCards,
        preparations_json: String,
    ) -> Result<String, String> {
        self.with_cards(cards, |tracker, cards| {
            let preparations = DescribedPreparation::list_from_json(&preparations_json)?;
            Ok(frames_json(&tracker.observe(cards, &preparations)?))
        })
    }

    /// One chunk of a model stream in one call (`consumeModelStream`):
    /// `preparations_json` is `[{callId, toolName, title?, kind?}]` (absent
    /// for none) and `calls` the ids of the chunk's calls (`null` for none),
    /// as the provider gave them when `ids` normalises them here. Returns
    /// the preparing frames as a JSON array, or with `ids`
    /// `{frames, preparations, calls}`, the final ids beside them.
    #[napi]
    pub fn observe_chunk(
        &mut self,
        cards: &mut NativeToolCallCards,
        ids: Option<&mut NativeToolCallIds>,
        preparations_json: Option<String>,
        calls: Vec<Option<Utf16String>>,
    ) -> Result<String, String> {
        let mut ids = ids;
        if ids.as_ref().is_some_and(|ids| ids.poisoned) {
            return Err(internal());
        }
        let result = self.with_cards(cards, |tracker, cards| {
            let preparations = match &preparations_json {
                Some(json) => DescribedPreparation::list_from_json(json)?,
                None => Vec::new(),
            };
            let calls = calls.iter().map(|id| id.as_ref().map(js)).collect();
            let chunk = ChunkCalls {
                preparations,
                calls,
            };
            let ids = ids.as_mut().map(|ids| &mut *ids.inner);
            Ok(tracker.observe_chunk(cards, ids, chunk)?.to_json())
        });
        if let Some(ids) = ids {
            ids.poisoned |= self.poisoned;
        }
        result
    }

    /// `preparation_json`: `{callId, toolName, title?, kind?}`. The preparing
    /// frame to hand to the host's emitter (its card opened, the call
    /// awaiting `answer`), or `null` when there is nothing to ask.
    #[napi]
    pub fn offer(
        &mut self,
        cards: &mut NativeToolCallCards,
        preparation_json: String,
    ) -> Result<String, String> {
        self.with_cards(cards, |tracker, cards| {
            let preparation = DescribedPreparation::from_json(&preparation_json)?;
            Ok(frame_json(tracker.offer(cards, &preparation)?.as_ref()))
        })
    }

    /// Records the emitter's answer for an offered call: `"emitted"`,
    /// `"declined"` or `"failed"`.
    #[napi]
    pub fn answer(
        &mut self,
        cards: &mut NativeToolCallCards,
        call_id: Utf16String,
        answer: String,
    ) -> Result<(), String> {
        self.with_cards(cards, |tracker, cards| {
            let answer = match answer.as_str() {
                "emitted" => StartAnswer::Emitted,
                "declined" => StartAnswer::Declined,
                "failed" => StartAnswer::Failed,
                _ => {
                    return Err(toolcall_stream_core::Error::new(
                        toolcall_stream_core::ErrorCode::InvalidArgument,
                        "answer: expected emitted, declined or failed",
                    ))
                }
            };
            tracker.answer(cards, js(&call_id), answer)
        })
    }

    /// The non-empty ids of a chunk's complete calls.
    #[napi]
    pub fn resolve(&mut self, call_ids: Vec<Utf16String>) -> Result<(), String> {
        guard_state(&mut *self.inner, &mut self.poisoned, |tracker| {
            tracker.resolve(call_ids.iter().map(|id| Some(js(id))));
            Ok(())
        })
    }

    /// The discarded frames, as a JSON array, titled with the cause (see
    /// `NativeToolCallCards::discarded`).
    #[napi]
    pub fn discard(
        &mut self,
        cards: &mut NativeToolCallCards,
        include_resolved: bool,
        reason: Option<String>,
        idle_limit_ms: Option<f64>,
    ) -> Result<String, String> {
        let cause = discard_cause(reason, idle_limit_ms);
        self.with_cards(cards, |tracker, cards| {
            Ok(frames_json(&tracker.discard(
                cards,
                include_resolved,
                cause.as_ref(),
            )?))
        })
    }
}

/// One attempt's id normalisation (docs/behaviour.md §4.1). Wrapped by `ToolCallIds` in
/// `lib/acp/`.
#[napi]
pub struct NativeToolCallIds {
    inner: Tracked<ToolCallIds>,
    poisoned: bool,
}

#[napi]
impl NativeToolCallIds {
    #[napi(constructor)]
    pub fn new(history_ids: Vec<Utf16String>) -> Self {
        NativeToolCallIds {
            inner: Tracked::new(ToolCallIds::new(history_ids.iter().map(js))),
            poisoned: false,
        }
    }

    /// `input_json`: `{preparations: [raw], calls: [raw | null]}`; returns the
    /// same shape with final ids (`null` call = drop the part).
    #[napi]
    pub fn apply(&mut self, input_json: String) -> Result<String, String> {
        guard_state(&mut *self.inner, &mut self.poisoned, |ids| {
            ids.apply_json(&input_json)
        })
    }
}
