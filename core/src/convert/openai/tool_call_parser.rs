//! `StreamingToolCallParser` (docs/behaviour.md §3.3): routes OpenAI tool-call deltas to
//! internal slots, accumulates their arguments and tracks JSON depth and
//! string state incrementally. Every routing decision of the reference is
//! kept, including its `JSON.parse` probes — answered from a per-slot cache,
//! since a buffer only ever grows, so no buffer is validated twice at one
//! length.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use crate::foundations::error::Error;
use crate::foundations::js_text::{is_blank, js_trim};
use crate::foundations::json::{
    find_stop, scan_json_bytes_following, validate, Follow, Kind, LoneEscapes,
};
use crate::foundations::repair::safe_json_parse;
use crate::model::argument_progress::LineCount;
use crate::model::lifted::{lift_checked, Lifted};

/// One `addChunk` chunk: `text`, what `currentBuffer + chunk` appends
/// (`String(chunk)`), with where it holds lone surrogates as escapes
/// (`lone`), and `walk`, what `chunk.length` counts and `for (const char of
/// chunk)` walks, one byte per item: a string's own bytes, an array's
/// [`array_walk`].
#[derive(Clone, Copy, Debug)]
pub struct ArgumentChunk<'a> {
    /// The text appended to the buffer.
    pub text: &'a str,
    /// One byte per item the reference walks.
    pub walk: &'a [u8],
    /// Where `text` holds lone surrogates as escapes.
    pub lone: &'a LoneEscapes,
}

impl<'a> ArgumentChunk<'a> {
    /// A string chunk (argument text).
    pub fn string(text: &'a str, lone: &'a LoneEscapes) -> Self {
        ArgumentChunk {
            text,
            walk: text.as_bytes(),
            lone,
        }
    }
}

/// One slot (docs/behaviour.md §3.3.1: buffers / depths / inStrings / escapes / meta).
#[derive(Debug, Default)]
struct Slot {
    index: u64,
    /// Shared with the `functionCall` part that hands the arguments out
    /// (`completed_tool_calls`), so a large call is not copied; a later
    /// chunk for the slot copies it only while that part still lives.
    buffer: Rc<String>,
    /// Where `buffer` holds a lone surrogate as its escape.
    lone: LoneEscapes,
    scan: Scan,
    id: Option<String>,
    name: Option<String>,
    nameless: bool,
    /// The id and name were handed out by `unannounced_meta` since the id
    /// was last set.
    announced: bool,
    /// `(buffer length, JSON.parse outcome)` of the last probe.
    parsed: Cell<Option<(usize, Option<Kind>)>>,
    /// The line breaks of `buffer` counted so far
    /// ([`ToolCallParser::announced_progress`]).
    lines: LineCount,
    /// The buffer's length when a finish last handed the call out
    /// (`completed_tool_calls`): its arguments are complete then, so it no
    /// longer reports progress unless more arrive.
    completed_at: Cell<Option<usize>>,
}

impl Slot {
    fn new(index: u64) -> Slot {
        Slot {
            index,
            ..Default::default()
        }
    }

    /// `JSON.parse(buffer)` succeeds; its kind.
    fn parse(&self) -> Option<Kind> {
        if let Some((len, kind)) = self.parsed.get() {
            if len == self.buffer.len() {
                return kind;
            }
        }
        let kind = validate(&self.buffer);
        self.parsed.set(Some((self.buffer.len(), kind)));
        kind
    }

    fn parses(&self) -> bool {
        self.parse().is_some()
    }

    fn blank(&self) -> bool {
        is_blank(&self.buffer)
    }
}

/// Argument text held before the parser, by slot position, for progress
/// only ([`ToolCallParser::hold_continuation`]).
#[derive(Default)]
pub struct HeldArguments {
    text: Vec<String>,
    /// Each slot's scan after its held text.
    scans: Vec<Option<Scan>>,
}

/// A buffer's depth/string scan (docs/behaviour.md §3.3.2 step 9):
/// `addChunk` walks every character of a chunk, counting brackets outside
/// strings and toggling the string state at unescaped quotes. The
/// structural characters are ASCII, so a byte scan of the UTF-8 text
/// equals the reference's scan of its UTF-16 code units.
#[derive(Clone, Copy, Debug, Default)]
struct Scan {
    depth: i64,
    in_string: bool,
    escape: bool,
}

impl Scan {
    /// One character of the walk, as the reference takes it.
    #[inline(always)]
    fn byte(&mut self, c: u8) {
        if !self.in_string {
            match c {
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
        }
        if c == b'"' && !self.escape {
            self.in_string = !self.in_string;
        }
        self.escape = c == b'\\' && !self.escape;
    }

    /// The walk over a chunk's text.
    fn text(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_string && !self.escape {
                // String content other than `"` and `\\` changes nothing
                // here (control bytes, where the search also stops, neither).
                match find_stop(&bytes[i..]) {
                    Some(at) => i += at,
                    None => break,
                }
            }
            self.byte(bytes[i]);
            i += 1;
        }
    }
}

/// The walk done as the arguments are decoded from a chunk's JSON text
/// ([`ToolCallParser::append_string`]): the decoder stops at every quote
/// and backslash of the text it appends (they can only come from escapes),
/// so a plain run between two stops holds neither.
impl Follow for Scan {
    #[inline(always)]
    fn plain(&mut self, run: &[u8]) {
        if run.is_empty() {
            return;
        }
        // No quote in the run, so the string state holds through it; no
        // backslash, so an escape ends at its first byte.
        if !self.in_string {
            for &c in run {
                match c {
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => self.depth -= 1,
                    _ => {}
                }
            }
        }
        self.escape = false;
    }

    #[inline(always)]
    fn decoded(&mut self, bytes: &[u8]) {
        for &c in bytes {
            self.byte(c);
        }
    }
}

/// What the last [`ToolCallParser::append_string`] changed, to take it back.
#[derive(Clone, Copy, Debug)]
struct Appended {
    pos: usize,
    len: usize,
    scan: Scan,
}

/// Slot indexes are small integers chosen by the provider: a multiplicative
/// hash is enough, and SipHash showed in profiles of the hot path.
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A complete call at finish (docs/behaviour.md §3.3.5): `args` is JSON object text.
#[derive(Debug, PartialEq, Eq)]
pub struct CompletedCall {
    /// The slot's id; `None` when the provider sent none (the converter
    /// then generates one).
    pub id: Option<String>,
    /// The slot's (trimmed, non-empty) function name.
    pub name: String,
    /// The arguments as JSON object text (`{}` when they were blank or not
    /// an object), shared with the slot's buffer when they are that buffer.
    pub args: Rc<String>,
    /// The arguments with their large string members lifted out (see
    /// [`crate::model::lifted`]), when any were.
    pub lifted: Option<Lifted>,
    /// The slot's index (after collision remapping).
    pub index: u64,
}

/// One stream's `StreamingToolCallParser`
/// (`packages/core/src/core/openaiContentGenerator/streamingToolCallParser.ts`):
/// per-slot argument buffers and JSON scanning state, id → slot routing.
#[derive(Debug, Default)]
pub struct ToolCallParser {
    /// Slots in creation order (JS Map insertion order).
    slots: Vec<Slot>,
    by_index: HashMap<u64, usize, BuildHasherDefault<IndexHasher>>,
    /// The last `(index, position)` looked up: a call's chunks come one
    /// after another, and slots are never removed, so positions stay valid.
    last: Cell<Option<(u64, usize)>>,
    id_to_index: HashMap<String, u64>,
    pending_remaps: HashMap<u64, u64, BuildHasherDefault<IndexHasher>>,
    next_available: u64,
    nameless_count: usize,
    conflicting_identity: bool,
    invalid_index: bool,
    /// Bytes held in all buffers.
    buffered: usize,
    /// What the last `append_string` changed (kept here, not returned: a
    /// value of this size returned on every chunk went through memory).
    appended: Option<Appended>,
}

/// The provider's `index` as the reference validates it.
#[derive(Clone, Copy, Debug)]
pub enum ProviderIndex {
    /// A non-negative safe integer (`Number.isSafeInteger(index) && index >= 0`).
    Valid(u64),
    /// Not a non-negative safe integer.
    Invalid,
}

impl ToolCallParser {
    /// The position of the slot for `index`, if there is one.
    fn position(&self, index: u64) -> Option<usize> {
        if let Some((last, pos)) = self.last.get() {
            if last == index {
                return Some(pos);
            }
        }
        let pos = *self.by_index.get(&index)?;
        self.last.set(Some((index, pos)));
        Some(pos)
    }

    fn slot(&self, index: u64) -> Option<&Slot> {
        self.position(index).map(|i| &self.slots[i])
    }

    fn slot_mut(&mut self, index: u64) -> &mut Slot {
        let pos = match self.position(index) {
            Some(pos) => pos,
            None => {
                self.slots.push(Slot::new(index));
                self.by_index.insert(index, self.slots.len() - 1);
                self.slots.len() - 1
            }
        };
        &mut self.slots[pos]
    }

    fn set_nameless(&mut self, index: u64, nameless: bool) {
        let slot = self.slot_mut(index);
        if slot.nameless != nameless {
            slot.nameless = nameless;
            if nameless {
                self.nameless_count += 1;
            } else {
                self.nameless_count -= 1;
            }
        }
    }

    /// Bytes held in argument buffers.
    pub fn buffered(&self) -> usize {
        self.buffered
    }

    /// Bytes of arguments held by one slot.
    pub fn buffer_len(&self, index: u64) -> usize {
        self.slot(index).map_or(0, |s| s.buffer.len())
    }

    /// `addChunk(index, chunk, id?, name?)` (docs/behaviour.md §3.3.2).
    /// Returns the slot the chunk was routed to (`actualIndex`), if any.
    pub fn add_chunk(
        &mut self,
        index: ProviderIndex,
        chunk: ArgumentChunk<'_>,
        id: Option<&str>,
        name: Option<&str>,
    ) -> Option<u64> {
        let ArgumentChunk { text, walk, lone } = chunk;
        let valid_name = name.map(js_trim).filter(|n| !n.is_empty());
        let id = id.filter(|id| !id.is_empty());
        let ProviderIndex::Valid(index) = index else {
            self.conflicting_identity = true;
            self.invalid_index = true;
            return None;
        };
        // Phantom chunk: nothing to route.
        if id.is_none() && valid_name.is_none() && is_blank(text) {
            match self.slot(index) {
                None => return None,
                Some(s) if s.scan.depth == 0 && !s.scan.in_string => return None,
                Some(_) => {}
            }
        }
        let known_id = id.is_some_and(|id| self.id_to_index.contains_key(id));
        let existing_name = self.slot(index).and_then(|s| s.name.as_deref());
        let name_only =
            valid_name.is_some_and(|n| walk.is_empty() && existing_name.is_none_or(|e| e == n));
        let actual = self.route(index, id, name_only);
        self.slot_mut(actual);
        // Metadata-only update (step 5).
        if walk.is_empty() && (id.is_some() || valid_name.is_some()) {
            let slot = self.slot_mut(actual);
            if let Some(id) = id {
                slot.id = Some(id.to_owned());
                slot.announced = false;
            }
            if let Some(n) = valid_name {
                if slot.name.is_none() {
                    slot.name = Some(n.to_owned());
                }
            }
            let nameless = slot.name.is_none() && slot.id.is_some();
            self.set_nameless(actual, nameless);
            if actual != index {
                self.pending_remaps.insert(index, actual);
            }
            return Some(actual);
        }
        // Replay guard (step 6).
        if known_id {
            let slot = self.slot_mut(actual);
            if slot.scan.depth == 0 && !slot.blank() && slot.parses() {
                return Some(actual);
            }
        }
        let slot = self.slot_mut(actual);
        let identity_changed = id.is_some_and(|id| slot.id.as_deref().is_some_and(|old| old != id));
        if let Some(id) = id {
            slot.id = Some(id.to_owned());
            slot.announced = false;
        }
        let mut conflict = false;
        if let Some(n) = valid_name {
            if !identity_changed && slot.name.as_deref().is_some_and(|old| old != n) {
                conflict = true;
            } else {
                slot.name = Some(n.to_owned());
            }
        }
        slot.lone.append(lone, slot.buffer.len());
        Rc::make_mut(&mut slot.buffer).push_str(text);
        slot.scan.text(walk);
        let nameless = slot.name.is_none() && (slot.id.is_some() || !is_blank(&slot.buffer));
        self.buffered += text.len();
        if conflict {
            self.conflicting_identity = true;
        }
        if actual != index {
            self.pending_remaps.insert(index, actual);
        }
        self.set_nameless(actual, nameless);
        Some(actual)
    }

    /// `addChunk`'s routing (docs/behaviour.md §3.3.2, steps 1–4): the slot
    /// (`actualIndex`) a chunk for provider `index` goes to, by its id, a
    /// pending remap, or whether the slot at `index` is complete.
    #[inline]
    fn route(&mut self, index: u64, id: Option<&str>, name_only: bool) -> u64 {
        let mut actual = index;
        if let Some(id) = id {
            if let Some(&mapped) = self.id_to_index.get(id) {
                actual = mapped;
            } else if let Some(&remapped) = self
                .pending_remaps
                .get(&index)
                .filter(|r| self.slot(**r).is_none_or(|s| s.id.is_none()))
            {
                actual = remapped;
                self.id_to_index.insert(id.to_owned(), actual);
            } else {
                if let Some(existing) = self.slot(index) {
                    if existing.id.as_deref().is_some_and(|e| e != id) {
                        let complete =
                            existing.scan.depth == 0 && (existing.blank() || existing.parses());
                        if complete {
                            let unnamed = existing.name.is_none();
                            actual = 0;
                            while self.by_index.contains_key(&actual) {
                                actual += 1;
                            }
                            if unnamed {
                                self.conflicting_identity = true;
                            }
                        } else {
                            self.conflicting_identity = true;
                        }
                    }
                }
                self.id_to_index.insert(id.to_owned(), actual);
            }
        } else if !name_only {
            if let Some(&remapped) = self.pending_remaps.get(&index) {
                actual = remapped;
                if let Some(s) = self.slot(actual) {
                    if s.scan.depth == 0 && !s.blank() && s.parses() {
                        actual = self.most_recent_incomplete();
                    }
                }
            } else if let Some(s) = self.slot(index) {
                if s.scan.depth > 0 || s.blank() {
                    actual = index;
                } else if s.parses() {
                    actual = self.most_recent_incomplete();
                }
            }
        }
        actual
    }

    /// The slot a chunk with no id and no name continues at `index` when
    /// `addChunk` routes it without looking at its text, and appending the
    /// text is all it does (docs/behaviour.md §3.3.2): the slot is inside a
    /// value (`depth > 0`, so neither a phantom nor a complete call), no
    /// remap is pending for the index, and it is named (it stays named) and
    /// announced (nothing to prepare). The bulk of a streamed call.
    pub fn continuing(&self, index: u64) -> Option<usize> {
        let pos = self.position(index)?;
        let slot = &self.slots[pos];
        (slot.scan.depth > 0
            && slot.name.is_some()
            && !slot.nameless
            && (slot.announced || slot.id.is_none())
            && (self.pending_remaps.is_empty() || !self.pending_remaps.contains_key(&index)))
        .then_some(pos)
    }

    /// Counts `text`, an argument fragment that has reached the process but
    /// not the parser (held where the SDK holds it: lib/qwen/sdk-frames.mjs),
    /// toward the slot at `index`, in `held`, the parser unchanged, where
    /// `addChunk` would only append it (a chunk with no id and no name): the
    /// slot is named and announced, no remap is pending for the index, and
    /// it is inside a value or has no text yet, after the fragments counted
    /// before (their walk on a copy of its scan). A blank fragment of a slot
    /// with no text is a phantom: nothing to count. False where the
    /// fragment does not count (`addChunk` would route it by the slot's
    /// state: a complete call's index may start another).
    pub fn hold_continuation(&self, held: &mut HeldArguments, index: u64, text: &str) -> bool {
        let Some(pos) = self.position(index) else {
            return false;
        };
        let slot = &self.slots[pos];
        if slot.name.is_none()
            || slot.nameless
            || !slot.announced
            || self.pending_remaps.contains_key(&index)
        {
            return false;
        }
        if held.text.len() <= pos {
            held.text.resize(pos + 1, String::new());
            held.scans.resize(pos + 1, None);
        }
        let scan = held.scans[pos].get_or_insert(slot.scan);
        let no_text = slot.blank() && is_blank(&held.text[pos]);
        if scan.depth > 0 || (no_text && !is_blank(text)) {
            scan.text(text.as_bytes());
            held.text[pos].push_str(text);
            return true;
        }
        no_text
    }

    /// `addChunk` of a [`Self::continuing`] slot, its chunk given as the
    /// JSON string content of `text` from `start`: the value is decoded
    /// straight into the slot's buffer (lone surrogates kept as escapes,
    /// as [`crate::foundations::json::scan_json_text_into`] keeps them) and walked in
    /// the same pass. The closing quote's index ([`Self::take_back`] undoes
    /// it); `None`, with nothing changed, when the content is not a valid
    /// JSON string of valid UTF-8.
    pub fn append_string(&mut self, pos: usize, text: &[u8], start: usize) -> Option<usize> {
        let slot = &mut self.slots[pos];
        // The buffer is shared only while a part of a finished call holds it.
        let buffer = match Rc::get_mut(&mut slot.buffer) {
            Some(buffer) => buffer,
            None => Rc::make_mut(&mut slot.buffer),
        };
        let appended = Appended {
            pos,
            len: buffer.len(),
            scan: slot.scan,
        };
        let mut following = (&mut slot.scan, &mut slot.lone);
        let end = scan_json_bytes_following(text, start, buffer, &mut following);
        let Some(end) = end else {
            slot.scan = appended.scan;
            slot.lone.truncate(appended.len);
            return None;
        };
        self.buffered += buffer.len() - appended.len;
        self.appended = Some(appended);
        Some(end)
    }

    /// The slot at `pos` (of [`Self::continuing`]) still continues after
    /// [`Self::append_string`]: appending changes only its depth.
    #[inline]
    pub fn still_continuing(&self, pos: usize) -> bool {
        self.slots[pos].scan.depth > 0
    }

    /// Undoes the last [`Self::append_string`] (its chunk did not fit after
    /// all).
    pub fn take_back(&mut self) {
        let Some(appended) = self.appended.take() else {
            return;
        };
        let slot = &mut self.slots[appended.pos];
        self.buffered -= slot.buffer.len() - appended.len;
        Rc::make_mut(&mut slot.buffer).truncate(appended.len);
        slot.lone.truncate(appended.len);
        slot.scan = appended.scan;
    }

    /// Bytes of arguments held by the slot at `pos` (of [`Self::continuing`]).
    pub fn len_at(&self, pos: usize) -> usize {
        self.slots[pos].buffer.len()
    }

    /// The slot's id and name when both are known and were not handed out
    /// here since the id was set; marks them handed out. Preparations are
    /// per id and never undone, so a slot needs looking at only once per id.
    pub fn unannounced_meta(&mut self, index: u64) -> Option<(&str, &str)> {
        let pos = self.position(index)?;
        let slot = &mut self.slots[pos];
        if slot.announced {
            return None;
        }
        let (Some(id), Some(name)) = (slot.id.as_deref(), slot.name.as_deref()) else {
            return None;
        };
        slot.announced = true;
        Some((id, name))
    }

    /// Each slot whose id and name were handed out ([`Self::unannounced_meta`]),
    /// in creation order: `(id, name, argument bytes, line breaks)`, with
    /// the text `held` counted toward each slot after its own.
    pub fn announced_progress<'s>(
        &'s mut self,
        held: &'s HeldArguments,
    ) -> impl Iterator<Item = (&'s str, &'s str, usize, u64)> {
        self.slots.iter_mut().enumerate().filter_map(|(pos, slot)| {
            if !slot.announced || slot.completed_at.get() == Some(slot.buffer.len()) {
                return None;
            }
            let more = held.text.get(pos).map_or("", String::as_str);
            slot.lines.update(slot.buffer.as_bytes());
            Some((
                slot.id.as_deref()?,
                slot.name.as_deref()?,
                slot.buffer.len() + more.len(),
                slot.lines.with_more(more.as_bytes()),
            ))
        })
    }

    /// `hasNamelessToolCall()`: a slot has an id or non-blank arguments but
    /// no name yet (the converter holds its parts, and at a finish it is
    /// `MALFORMED_TOOL_CALL`).
    pub fn has_nameless_tool_call(&self) -> bool {
        self.nameless_count > 0
    }

    /// `hasConflictingToolCallIdentity()`: an invalid index, a new id on a
    /// slot holding an incomplete (or a complete but nameless) call, or a
    /// different name for the same call was seen.
    pub fn has_conflicting_identity(&self) -> bool {
        self.conflicting_identity
    }

    /// `hasInvalidToolCallIndex()`: some chunk's index was not a
    /// [`ProviderIndex::Valid`] one (`MALFORMED_TOOL_CALL` at the finish).
    pub fn has_invalid_index(&self) -> bool {
        self.invalid_index
    }

    /// Any named, non-empty buffer that does not parse to an object.
    pub fn has_invalid_arguments(&self) -> bool {
        self.slots
            .iter()
            .filter(|s| s.name.is_some() && !s.buffer.is_empty())
            .any(|s| s.parse() != Some(Kind::Object))
    }

    /// Any named slot still inside a structure or a string (truncation).
    pub fn has_incomplete_tool_calls(&self) -> bool {
        self.slots
            .iter()
            .any(|s| s.name.is_some() && (s.scan.depth > 0 || s.scan.in_string))
    }

    /// `getCompletedToolCalls()` (docs/behaviour.md §3.3.5).
    pub fn completed_tool_calls(
        &self,
        max_repair_depth: usize,
    ) -> Result<Vec<CompletedCall>, Error> {
        let mut done = Vec::new();
        let mut emitted: Vec<&str> = Vec::new();
        for slot in &self.slots {
            let Some(name) = &slot.name else { continue };
            if let Some(id) = slot.id.as_deref() {
                if emitted.contains(&id) {
                    continue;
                }
                emitted.push(id);
            }
            slot.completed_at.set(Some(slot.buffer.len()));
            // Large arguments are validated in the pass that lifts their
            // large strings (an object it accepts is valid as gathered);
            // the rest, and what that pass does not decide, as the
            // reference's `JSON.parse` probe and `safeJsonParse` do.
            let mut lifted = None;
            let args = if slot.blank() {
                empty_object()
            } else if let Some(l) = lift_checked(&slot.buffer) {
                slot.parsed
                    .set(Some((slot.buffer.len(), Some(Kind::Object))));
                lifted = l;
                Rc::clone(&slot.buffer)
            } else if let Some(kind) = slot.parse() {
                if kind == Kind::Object {
                    Rc::clone(&slot.buffer)
                } else {
                    empty_object()
                }
            } else {
                let closed = slot.scan.in_string.then(|| format!("{}\"", slot.buffer));
                match closed.as_deref().and_then(|c| validate(c).map(|k| (c, k))) {
                    Some((text, kind)) => object_or_empty(text, kind),
                    None => match safe_json_parse(&slot.buffer, &slot.lone, max_repair_depth)? {
                        Some((text, kind)) => object_or_empty(&text, kind),
                        None => empty_object(),
                    },
                }
            };
            done.push(CompletedCall {
                id: slot.id.clone(),
                name: name.clone(),
                args,
                lifted,
                index: slot.index,
            });
        }
        Ok(done)
    }

    fn most_recent_incomplete(&mut self) -> u64 {
        let best = self
            .slots
            .iter()
            .filter(|s| {
                (s.id.is_some() && (s.scan.depth > 0 || (s.blank() && s.name.is_none())))
                    || (!s.blank() && !s.parses())
            })
            .map(|s| s.index)
            .max();
        match best {
            Some(i) => i,
            None => self.next_available(),
        }
    }

    fn next_available(&mut self) -> u64 {
        while let Some(s) = self.slot(self.next_available) {
            if s.name.is_none() || s.scan.depth > 0 || s.id.is_none() || (!s.blank() && !s.parses())
            {
                return self.next_available;
            }
            self.next_available += 1;
        }
        let free = self.next_available;
        self.next_available += 1;
        free
    }
}

/// Non-object arguments collapse to `{}` (docs/behaviour.md §3.3.5 step 5).
fn object_or_empty(text: &str, kind: Kind) -> Rc<String> {
    if kind == Kind::Object {
        Rc::new(text.to_owned())
    } else {
        empty_object()
    }
}

fn empty_object() -> Rc<String> {
    Rc::new("{}".to_owned())
}

/// What `for (const char of chunk)` walks in an array chunk, one byte per
/// item: an item that is exactly one of the strings the walk looks for
/// (`{`, `[`, `}`, `]`, `"`, `\\`, compared with `===`) as that byte, any
/// other item (a longer string, a number, `null`) as a byte the walk
/// passes over.
pub fn array_walk(items: &[crate::foundations::json::Value<'_>]) -> Vec<u8> {
    items
        .iter()
        .map(|item| match item.as_jstr().map(|s| s.value()).as_deref() {
            Some(one @ ("{" | "[" | "}" | "]" | "\"" | "\\")) => one.as_bytes()[0],
            _ => b'a',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ProviderIndex::Valid;
    use super::*;

    /// Argument text without lone surrogates.
    const NONE: &LoneEscapes = &LoneEscapes::new();

    /// `addChunk` of a string chunk without lone surrogates.
    fn add(
        p: &mut ToolCallParser,
        index: ProviderIndex,
        text: &str,
        id: Option<&str>,
        name: Option<&str>,
    ) -> Option<u64> {
        p.add_chunk(index, ArgumentChunk::string(text, NONE), id, name)
    }

    /// `getToolCallMeta(index)`: the slot's id and name.
    fn meta(p: &ToolCallParser, index: u64) -> (Option<&str>, Option<&str>) {
        match p.slot(index) {
            Some(s) => (s.id.as_deref(), s.name.as_deref()),
            None => (None, None),
        }
    }

    fn calls(p: &ToolCallParser) -> Vec<(Option<String>, String, serde_json::Value, u64)> {
        p.completed_tool_calls(512)
            .unwrap()
            .into_iter()
            .map(|c| {
                (
                    c.id,
                    c.name,
                    serde_json::from_str(&c.args).unwrap(),
                    c.index,
                )
            })
            .collect()
    }

    #[test]
    fn accumulates_fragments_and_tracks_depth_and_strings() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "", Some("call_1"), Some("f"));
        add(&mut p, Valid(0), "{\"key\":", None, None);
        add(&mut p, Valid(0), " \"va{l", None, None);
        assert!(p.has_incomplete_tool_calls());
        add(&mut p, Valid(0), "ue\\\"\"}", None, None);
        assert!(!p.has_incomplete_tool_calls());
        assert_eq!(
            calls(&p),
            vec![(
                Some("call_1".into()),
                "f".into(),
                serde_json::json!({"key":"va{lue\""}),
                0
            )]
        );
    }

    /// The arguments handed out are the slot's text, without a copy.
    #[test]
    fn handed_out_arguments_share_the_slot_text() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "", Some("call_1"), Some("f"));
        add(&mut p, Valid(0), "{\"a\":1}", None, None);
        let first = p.completed_tool_calls(512).unwrap().remove(0).args;
        let again = p.completed_tool_calls(512).unwrap().remove(0).args;
        assert!(Rc::ptr_eq(&first, &again));
        assert_eq!(*first, "{\"a\":1}");
    }

    #[test]
    fn split_identity_deltas_use_the_remapped_slot() {
        // docs/behaviour.md §3.3.5 worked example.
        let mut p = ToolCallParser::default();
        assert_eq!(
            add(
                &mut p,
                Valid(0),
                "{\"file_path\":\"a.sql\"}",
                Some("call-1"),
                Some("read_file")
            ),
            Some(0)
        );
        assert_eq!(add(&mut p, Valid(0), "", Some("call-2"), None), Some(1));
        assert_eq!(
            add(
                &mut p,
                Valid(0),
                "{\"file_path\":\"b.sql\"}",
                None,
                Some("write_file")
            ),
            Some(1)
        );
        assert_eq!(meta(&p, 1), (Some("call-2"), Some("write_file")));
        assert_eq!(
            add(&mut p, Valid(0), "", None, Some("delete_file")),
            Some(2)
        );
        assert_eq!(
            add(&mut p, Valid(0), "{\"file_path\":\"c.sql\"}", None, None),
            Some(2)
        );
        assert_eq!(add(&mut p, Valid(0), "", Some("call-3"), None), Some(2));
        let ids: Vec<_> = calls(&p).into_iter().map(|c| c.0.unwrap()).collect();
        assert_eq!(ids, ["call-1", "call-2", "call-3"]);
    }

    #[test]
    fn first_name_wins_and_names_are_trimmed() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "", Some("c"), Some(" read_file "));
        add(&mut p, Valid(0), "{}", Some("c"), Some("shell"));
        assert_eq!(meta(&p, 0), (Some("c"), Some("read_file")));
        assert!(p.has_conflicting_identity());
    }

    #[test]
    fn replays_of_a_completed_call_are_ignored() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "{\"a\":1}", Some("c"), Some("f"));
        add(&mut p, Valid(0), "{\"a\":1}", Some("c"), Some("g"));
        assert_eq!(
            calls(&p),
            vec![(Some("c".into()), "f".into(), serde_json::json!({"a":1}), 0)]
        );
    }

    #[test]
    fn collisions_relocate_complete_calls_and_reuse_incomplete_slots() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "{}", Some("call_1"), Some("f1"));
        assert_eq!(
            add(&mut p, Valid(0), "{}", Some("call_2"), Some("f2")),
            Some(1)
        );
        assert!(!p.has_conflicting_identity());
        let mut q = ToolCallParser::default();
        add(
            &mut q,
            Valid(0),
            "{\"a\":",
            Some("call_1"),
            Some("function1"),
        );
        assert_eq!(
            add(&mut q, Valid(0), "", Some("call_2"), Some("function2")),
            Some(0)
        );
        assert_eq!(meta(&q, 0), (Some("call_2"), Some("function1")));
    }

    #[test]
    fn repair_order_and_collapse() {
        let mut p = ToolCallParser::default();
        add(
            &mut p,
            Valid(0),
            "{\"text\":\"unclosed",
            Some("a"),
            Some("f"),
        );
        add(
            &mut p,
            Valid(1),
            "{\"valid\":\"data\",\"invalid\": }",
            Some("b"),
            Some("g"),
        );
        add(&mut p, Valid(2), "[1,2]", Some("c"), Some("h"));
        add(&mut p, Valid(3), "  ", Some("d"), Some("i"));
        let got: Vec<_> = calls(&p).into_iter().map(|c| c.2).collect();
        assert_eq!(
            got,
            vec![
                serde_json::json!({"text":"unclosed"}),
                serde_json::json!({"valid":"data","invalid":null}),
                serde_json::json!({}),
                serde_json::json!({}),
            ]
        );
    }

    #[test]
    fn phantom_and_invalid_index_chunks() {
        let mut p = ToolCallParser::default();
        assert_eq!(add(&mut p, Valid(0), "", None, None), None);
        assert!(!p.has_nameless_tool_call());
        assert_eq!(
            add(&mut p, ProviderIndex::Invalid, "{}", Some("x"), Some("f")),
            None
        );
        assert!(p.has_invalid_index() && p.has_conflicting_identity());
        add(&mut p, Valid(0), "", Some("call_1"), None);
        assert!(p.has_nameless_tool_call());
    }

    #[test]
    fn no_argument_slots_are_skipped_when_relocating() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "", Some("a"), Some("f"));
        add(&mut p, Valid(1), "", Some("b"), Some("g"));
        // A new id on index 0 collides with a complete no-argument call.
        assert_eq!(add(&mut p, Valid(0), "", Some("c"), Some("h")), Some(2));
    }

    /// A slot's buffer text, where it holds lone surrogates, its walk
    /// state, and the parser's byte count.
    fn state(p: &ToolCallParser, index: u64) -> (String, Vec<usize>, i64, bool, bool, usize) {
        let s = p.slot(index).unwrap();
        let Scan {
            depth,
            in_string,
            escape,
        } = s.scan;
        let lone = s.lone.offsets().to_vec();
        (
            s.buffer.to_string(),
            lone,
            depth,
            in_string,
            escape,
            p.buffered(),
        )
    }

    /// Argument fragments as a provider escapes them into a chunk:
    /// brackets, quotes, backslashes, escapes of every kind, multi-byte
    /// characters, and lone surrogate escapes.
    fn escaped_fragment() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                3 => Just("a"),
                2 => Just("{"),
                2 => Just("}"),
                1 => Just("["),
                1 => Just("]"),
                3 => Just("\\\""),
                2 => Just("\\\\"),
                1 => Just("\\n"),
                1 => Just("\\u0022"),
                1 => Just("\\u005c"),
                1 => Just("\\u007b"),
                1 => Just("\\ud800"),
                1 => Just("\\udc00"),
                1 => Just("é"),
                1 => Just("a run of plain text longer than sixteen bytes"),
            ],
            0..24,
        )
        .prop_map(|v| v.concat())
    }

    use proptest::prelude::*;

    proptest! {
        /// Decoding a chunk's string straight into a continuing slot gives
        /// the buffer and walk state of `addChunk` with the decoded text,
        /// and taking an append back restores them.
        #[test]
        fn append_string_is_add_chunk_of_the_decoded_text(
            fragments in prop::collection::vec(escaped_fragment(), 1..12),
            taken_back in prop::collection::vec(any::<bool>(), 12),
        ) {
            let mut long = ToolCallParser::default();
            let mut direct = ToolCallParser::default();
            for p in [&mut long, &mut direct] {
                add(p, Valid(0), "", Some("call_1"), Some("f"));
                add(p, Valid(0), "{\"a\":[", None, None);
                p.unannounced_meta(0);
            }
            for (fragment, back) in fragments.iter().zip(taken_back) {
                let text = format!("\"{fragment}\"}}");
                let mut decoded = String::new();
                let mut lone = LoneEscapes::new();
                let end = crate::foundations::json::scan_json_text_into(&text, 1, &mut decoded, &mut lone).unwrap();
                let Some(pos) = direct.continuing(0) else {
                    // The walk left the value: the next chunk goes the long way.
                    prop_assert!(long.slot(0).unwrap().scan.depth <= 0);
                    break;
                };
                let before = state(&direct, 0);
                let direct_end = direct.append_string(pos, text.as_bytes(), 1).unwrap();
                prop_assert_eq!(direct_end, end);
                if back {
                    direct.take_back();
                    prop_assert_eq!(state(&direct, 0), before);
                    direct.append_string(pos, text.as_bytes(), 1).unwrap();
                }
                long.add_chunk(Valid(0), ArgumentChunk::string(&decoded, &lone), None, None);
                prop_assert_eq!(state(&direct, 0), state(&long, 0));
                prop_assert_eq!(direct.still_continuing(pos), direct.continuing(0).is_some());
            }
        }
    }

    /// An array chunk is appended as `String(array)` and walked item by
    /// item: only an item that is exactly `}` closes the object.
    #[test]
    fn an_array_chunk_is_walked_item_by_item() {
        let items = |json: &str| match &crate::foundations::json::parse(json).unwrap() {
            crate::foundations::json::Value::Arr(items) => array_walk(items),
            _ => unreachable!(),
        };
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "{\"a\":", Some("c"), Some("f"));
        let walk = items(r#"["\"x\"}", 1, null]"#);
        assert_eq!(walk, b"aaa");
        let chunk = ArgumentChunk {
            text: "\"x\"},1,",
            walk: &walk,
            lone: NONE,
        };
        p.add_chunk(Valid(0), chunk, Some("c"), None);
        assert_eq!(p.slot(0).unwrap().scan.depth, 1);
        let walk = items(r#"["}", "\\", "\"", "["]"#);
        assert_eq!(walk, b"}\\\"[");
        // `[]`: length 0, a metadata-only update.
        let before = state(&p, 0);
        let chunk = ArgumentChunk {
            text: "",
            walk: &[],
            lone: NONE,
        };
        p.add_chunk(Valid(0), chunk, Some("c"), None);
        assert_eq!(state(&p, 0), before);
    }

    /// Invalid string content leaves a continuing slot as it was.
    #[test]
    fn an_invalid_string_appends_nothing() {
        let mut p = ToolCallParser::default();
        add(&mut p, Valid(0), "", Some("call_1"), Some("f"));
        add(&mut p, Valid(0), "{\"a\":\"", None, None);
        p.unannounced_meta(0);
        let pos = p.continuing(0).unwrap();
        let before = state(&p, 0);
        let long = "x".repeat(70);
        let invalid_utf8: [&[u8]; 4] = [
            b"\"ab\xff\"",
            b"\"ab\xc3\"",
            b"\"\xed\xa0\x80 a surrogate encoded in UTF-8 before a long run\"",
            b"\"abc\xe9\"}]}, a window's worth of text after the string..........",
        ];
        let texts = [
            "\"ab\\x\"".as_bytes(),
            b"\"ab\\u12\"",
            b"\"ab\x01\"",
            b"\"no closing quote",
        ];
        for text in texts.into_iter().chain(invalid_utf8) {
            assert!(
                p.append_string(pos, text, 1).is_none(),
                "{}",
                String::from_utf8_lossy(text)
            );
            assert_eq!(state(&p, 0), before);
            // The same after a long valid run (the window walk).
            let longer = [b"\"", long.as_bytes(), &text[1..]].concat();
            assert!(p.append_string(pos, &longer, 1).is_none());
            assert_eq!(state(&p, 0), before);
        }
        // Valid multi-byte text is taken, in a window and in the tail.
        for text in ["\"é\"", &format!("\"{long}é{long}\" and more")] {
            let end = p.append_string(pos, text.as_bytes(), 1).unwrap();
            assert_eq!(&text[end..end + 1], "\"");
            p.take_back();
        }
    }

    /// Only a named, announced slot inside a value with no pending remap
    /// continues without routing.
    #[test]
    fn continuing_needs_a_named_announced_slot_inside_a_value() {
        let mut p = ToolCallParser::default();
        assert_eq!(p.continuing(0), None, "no slot");
        add(&mut p, Valid(0), "", Some("call_1"), Some("f"));
        add(&mut p, Valid(0), "{", None, None);
        assert_eq!(p.continuing(0), None, "not announced");
        p.unannounced_meta(0);
        assert!(p.continuing(0).is_some());
        add(&mut p, Valid(0), "}", None, None);
        assert_eq!(p.continuing(0), None, "the value is complete");
        add(&mut p, Valid(1), "", Some("call_2"), None);
        add(&mut p, Valid(1), "{", None, None);
        assert_eq!(p.continuing(1), None, "nameless");
    }
}
