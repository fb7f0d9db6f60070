//! The function calls (`ResponsesStreamState.funcCallArgs` and
//! `response.output_item.done`'s `function_call` branch, Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-converter.ts):
//! a buffer per output index opened by `output_item.added`, the
//! `function_call_arguments.delta` fragments appended to it as `+=`
//! appends them, and the arguments resolved at `output_item.done`. Also
//! what the reference does not do: the preparation of a call, once per
//! call id, when asked for, and its argument progress.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::output_index::OutputIndex;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::append_js_string_to_arguments;
use crate::foundations::json::{validate, Kind, LoneEscapes, Value};
use crate::foundations::limits::Limits;
use crate::foundations::repair::safe_json_parse;
use crate::model::argument_progress::{ArgumentProgress, LineCount};
use crate::model::gemini::Preparation;
use crate::model::lifted::{lift_checked, Lifted};

/// One `funcCallArgs` entry.
pub(super) struct CallBuffer {
    /// `id`: the added item's `call_id` as JSON text (`None`: `undefined`).
    pub(super) id: Option<String>,
    /// `name`, the same way.
    pub(super) name: Option<String>,
    /// `args`, the fragments so far as argument text.
    args: String,
    lone: LoneEscapes,
    /// The preparation this call yielded, if it did.
    prepared: Option<Preparation>,
    /// Its `output_item.done` came: no longer counted as open.
    done: bool,
    lines: LineCount,
}

/// The buffers by output index, in the order they were opened.
#[derive(Default)]
pub(super) struct Calls {
    by_index: HashMap<OutputIndex, usize>,
    /// The index `append` found last and its buffer: the deltas of a call
    /// come in a run, and a buffer's place never changes once given.
    last: Option<(OutputIndex, usize)>,
    buffers: Vec<CallBuffer>,
    /// Call ids that yielded a preparation.
    prepared_ids: HashSet<String>,
    /// Argument bytes held by open buffers.
    buffered: usize,
}

impl Calls {
    /// `initFunctionCall(outputIndex, id, callId, name)`: a new, empty
    /// buffer (replacing one of the same index). With `prepare`, returns
    /// the call's preparation when its `call_id` and `name` are non-empty
    /// strings and the id was not prepared before.
    pub(super) fn open(
        &mut self,
        index: OutputIndex,
        call_id: Option<&Value<'_>>,
        name: Option<&Value<'_>>,
        prepare: bool,
    ) -> Option<Preparation> {
        let preparation = if prepare {
            match (
                call_id.and_then(Value::as_text),
                name.and_then(Value::as_text),
            ) {
                (Some(id), Some(name))
                    if !id.is_empty() && !name.is_empty() && !self.prepared_ids.contains(&*id) =>
                {
                    self.prepared_ids.insert(id.to_string());
                    Some(Preparation {
                        call_id: id.into_owned(),
                        tool_name: name.into_owned(),
                        call_id_json: None,
                    })
                }
                _ => None,
            }
        } else {
            None
        };
        let buffer = CallBuffer {
            id: call_id.map(crate::foundations::json::to_json_string),
            name: name.map(crate::foundations::json::to_json_string),
            args: String::new(),
            lone: LoneEscapes::new(),
            prepared: preparation.clone(),
            done: false,
            lines: LineCount::default(),
        };
        match self.by_index.get(&index) {
            Some(&at) => {
                let old = std::mem::replace(&mut self.buffers[at], buffer);
                if !old.done {
                    self.buffered -= old.args.len();
                }
            }
            None => {
                self.by_index.insert(index, self.buffers.len());
                self.buffers.push(buffer);
            }
        }
        preparation
    }

    /// `appendFunctionCallArgs(outputIndex, delta)`: `buf.args += delta`
    /// when the index has a buffer.
    pub(super) fn append(
        &mut self,
        index: &OutputIndex,
        delta: Option<&Value<'_>>,
        limits: &Limits,
    ) -> Result<(), Error> {
        let at = match &self.last {
            Some((last, at)) if last == index => *at,
            _ => {
                let Some(&at) = self.by_index.get(index) else {
                    return Ok(());
                };
                self.last = Some((index.clone(), at));
                at
            }
        };
        let buf = &mut self.buffers[at];
        let before = buf.args.len();
        match delta {
            None => buf.args.push_str("undefined"),
            Some(v) => append_js_string_to_arguments(v, &mut buf.args, &mut buf.lone),
        }
        let added = buf.args.len() - before;
        if !buf.done {
            self.buffered += added;
        }
        if buf.args.len() > limits.max_call_bytes {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "a tool call's arguments exceed maxCallBytes ({} bytes)",
                    limits.max_call_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Argument bytes held by open calls.
    pub(super) fn buffered(&self) -> usize {
        self.buffered
    }

    /// The buffer of `index` (`getFunctionCallBuffer`), marked done.
    pub(super) fn close(&mut self, index: &OutputIndex) -> Option<&CallBuffer> {
        let &at = self.by_index.get(index)?;
        let buf = &mut self.buffers[at];
        if !buf.done {
            buf.done = true;
            self.buffered -= buf.args.len();
        }
        Some(buf)
    }

    /// The progress of each open call that yielded a preparation, in the
    /// order they were opened; `more`: argument bytes not yet appended, by
    /// buffer (see `held_progress.rs`).
    pub(super) fn progress(&mut self, more: &[(usize, String)]) -> Vec<ArgumentProgress> {
        let mut out = Vec::new();
        for (at, buf) in self.buffers.iter_mut().enumerate() {
            let Some(p) = &buf.prepared else { continue };
            if buf.done {
                continue;
            }
            let mut bytes = buf.args.len();
            let mut lines = buf.lines.update(buf.args.as_bytes());
            for (_, extra) in more.iter().filter(|(i, _)| *i == at) {
                bytes += extra.len();
                lines = buf.lines.with_more(extra.as_bytes());
            }
            out.push(ArgumentProgress {
                call_id: p.call_id.clone(),
                call_id_json: None,
                tool_name: p.tool_name.clone(),
                argument_bytes: bytes,
                argument_lines: lines,
            });
        }
        out
    }

    /// The buffer index of `index`, when it has one that is open.
    pub(super) fn open_at(&self, index: &OutputIndex) -> Option<usize> {
        self.by_index
            .get(index)
            .copied()
            .filter(|&at| !self.buffers[at].done)
    }
}

impl CallBuffer {
    /// `buf?.args || fc.arguments` resolved as `output_item.done` resolves
    /// it (see [`resolve_arguments`]).
    pub(super) fn args(&self) -> (&str, &LoneEscapes) {
        (&self.args, &self.lone)
    }
}

/// The arguments object of a call at `output_item.done`, as JSON text:
/// `rawArgs` is the buffer's text when it is not empty, else the done
/// item's `arguments`; `JSON.parse(rawArgs)`, else `safeJsonParse` of the
/// item's `arguments` when they are truthy and differ from `rawArgs`, else
/// of `rawArgs`; a result that is not a plain object is replaced by the
/// item's differing `arguments` parsed when they are one, else `{}`.
///
/// With the text, its large string members lifted out for the batch
/// ([`crate::model::lifted`]), as the other providers' calls cross.
pub(super) fn resolve_arguments(
    buffered: Option<(&str, &LoneEscapes)>,
    done_arguments: Option<&Value<'_>>,
    max_repair_depth: usize,
) -> Result<(Rc<String>, Option<Lifted>), Error> {
    let object = |text: String| {
        let lifted = lift_checked(&text).flatten();
        Ok((Rc::new(text), lifted))
    };
    // The common end: the streamed arguments are a JSON object, which is
    // then the result whatever the done item holds (checked while lifting,
    // in one pass over a large text).
    if let Some((raw, _)) = buffered.filter(|(text, _)| !text.is_empty()) {
        if let Some(lifted) = lift_checked(raw) {
            return Ok((Rc::new(raw.to_owned()), lifted));
        }
        if validate(raw) == Some(Kind::Object) {
            return Ok((Rc::new(raw.to_owned()), None));
        }
    }
    // `fc.arguments` as argument text (`String(value)` of a non-string, as
    // `JSON.parse` reads one), and whether it is a string.
    let done = done_arguments.map(|v| {
        let mut text = String::new();
        let mut lone = LoneEscapes::new();
        append_js_string_to_arguments(v, &mut text, &mut lone);
        (text, lone, v.as_jstr().is_some(), v.truthy())
    });
    let from_buffer = buffered.filter(|(text, _)| !text.is_empty());
    // `fc.arguments && fc.arguments !== rawArgs`: the item's differing
    // arguments (`None` where `rawArgs` is the item's own).
    let differing = match (&done, from_buffer) {
        (Some((text, lone, is_string, true)), Some((raw, _))) if !*is_string || text != raw => {
            Some((text.as_str(), lone, *is_string))
        }
        _ => None,
    };
    let (raw, raw_lone, raw_is_string): (&str, &LoneEscapes, bool) = match (from_buffer, &done) {
        (Some((text, lone)), _) => (text, lone, true),
        (None, Some((text, lone, is_string, _))) => (text, lone, *is_string),
        (None, None) => ("undefined", &EMPTY, false),
    };
    let parsed: Option<String> = if validate(raw).is_some() {
        Some(raw.to_owned())
    } else {
        // safeJsonParse(authoritative, {}): a non-string gives `{}`.
        let (text, lone, is_string) = differing.unwrap_or((raw, raw_lone, raw_is_string));
        if is_string {
            safe_json_parse(text, lone, max_repair_depth)?.map(|(t, _)| t.into_owned())
        } else {
            None
        }
    };
    match parsed {
        Some(text) if validate(&text) == Some(Kind::Object) => return object(text),
        // The fallback `{}` is a plain object.
        None => return object("{}".to_owned()),
        Some(_) => {}
    }
    // Not a plain object: the item's differing arguments, parsed, if they
    // are one.
    if let Some((text, lone, true)) = differing {
        if let Some((t, Kind::Object)) = safe_json_parse(text, lone, max_repair_depth)? {
            return object(t.into_owned());
        }
    }
    object("{}".to_owned())
}

static EMPTY: LoneEscapes = LoneEscapes::new();
