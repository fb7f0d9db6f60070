//! Server-sent events framing over raw bytes, as the SDKs that Qwen Code
//! bundles frame them (openai 5.11.0 and @anthropic-ai/sdk 0.36.3,
//! `internal/decoders/line.mjs` and `SSEDecoder` in `streaming.mjs`).
//!
//! Input may be split anywhere: inside a line, inside `\r\n`, inside a
//! multi-byte UTF-8 sequence. Lines end at `\n`, `\r\n` or `\r`; `:` lines are
//! comments; `data:` lines accumulate (joined by `\n`); a blank line
//! dispatches an event that has data or a non-empty `event:` name (an
//! `event:`-only block dispatches empty data). Each line is decoded as the
//! SDKs decode it: invalid UTF-8 becomes U+FFFD (maximal subparts, as
//! `TextDecoder` and `Buffer.toString()` replace them), and a BOM is skipped
//! as [`Bom`] says. At the end of input a final event without its blank line
//! is dropped, as the SDKs drop it.
//!
//! A line that is not a `data:` line (a comment, `event:`, `id:`, an unknown
//! field) longer than [`MAX_OTHER_LINE`] is `LIMIT_EXCEEDED`, whether it is
//! complete or still arriving: endless whitespace or comments without a
//! newline fail after 1 MiB instead of growing to the converter's buffer
//! limit (256 MiB by default). `data:` lines stay bounded by that limit,
//! since one `data:` line may carry a whole tool call. A decoder with no
//! buffer limit (`usize::MAX`: the Qwen preload's, as the SDKs' decoders
//! have none) has none for other lines either.

use crate::foundations::error::{Error, ErrorCode};

/// The longest line that is not a `data:` line (bytes, without its line
/// ending). No provider sends such lines past a few hundred bytes.
pub const MAX_OTHER_LINE: usize = 1 << 20;

/// One dispatched event. `data` is valid UTF-8.
#[derive(Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The value of the event's last `event:` line (one leading space
    /// stripped, possibly empty); `None` when it had no `event:` line. The
    /// SDKs switch on it (`error` is an in-band error).
    pub event: Option<&'a str>,
    /// The values of its `data:` lines joined by `\n`; empty for an
    /// `event:`-only block.
    pub data: &'a str,
}

/// Where a decoder's events go (`push_to` / `finish_to`; `push` and
/// `finish` take a closure).
pub trait SseSink {
    /// One dispatched event.
    fn event(&mut self, e: SseEvent<'_>) -> Result<(), Error>;

    /// Whole events at the start of `rest` that the sink takes straight
    /// from the bytes, with the same effect as their dispatch: `rest` starts
    /// a line and no event is begun. What it takes must be valid UTF-8 (read
    /// through [`Rest::text`] or [`Rest::text_from`], or compared byte for
    /// byte with text that is, or validated by the sink). Returns how
    /// many bytes were taken (whole events, each through its blank line; 0:
    /// none) and the error of the last one taken.
    fn raw_events(&mut self, _rest: &mut Rest<'_>) -> (usize, Result<(), Error>) {
        (0, Ok(()))
    }
}

/// The bytes of a push from the decoder's position on (a line start), for
/// [`SseSink::raw_events`], with how far they are known to be UTF-8: a sink
/// that recognises most of its events by comparing them with text it keeps
/// need not have the push validated in a pass of its own.
pub struct Rest<'b> {
    bytes: &'b [u8],
    /// `bytes[..valid]` is valid UTF-8 (or taken by the sink, which vouches
    /// for it) and ends at a character boundary.
    valid: usize,
    /// `valid` is as far as the bytes are valid.
    checked_all: bool,
}

impl<'b> Rest<'b> {
    fn new(bytes: &'b [u8], valid: usize) -> Self {
        Rest {
            bytes,
            valid: valid.min(bytes.len()),
            checked_all: false,
        }
    }

    /// The bytes, not validated.
    pub fn bytes(&self) -> &'b [u8] {
        self.bytes
    }

    /// The longest valid UTF-8 prefix of the bytes.
    pub fn text(&mut self) -> &'b str {
        if !self.checked_all {
            self.valid += valid_prefix(&self.bytes[self.valid..]).len();
            self.checked_all = true;
        }
        // SAFETY: `bytes[..valid]` was validated (by `valid_prefix` here or
        // by the decoder that made this view).
        unsafe { std::str::from_utf8_unchecked(&self.bytes[..self.valid]) }
    }

    /// The text from `from` as far as it is known valid, after validating
    /// at least up to `to` (and `NEAR` bytes on) and, when it validates,
    /// `AHEAD` bytes further, so a run of short lines or events costs few
    /// calls: it ends before `to` only where the bytes are not valid UTF-8
    /// (or the push ends). `from` lies at a character boundary, and every
    /// byte before it is valid UTF-8 (known valid here, or taken by the
    /// sink, which vouches for it).
    pub fn text_from(&mut self, from: usize, to: usize) -> &'b str {
        let from = from.min(self.bytes.len());
        if !self.checked_all && self.valid < to.max(from + NEAR) {
            let start = self.valid.max(from);
            let end = self.bytes.len().min(to.max(start + AHEAD));
            self.valid = start + valid_prefix(&self.bytes[start..end]).len();
            self.checked_all = end == self.bytes.len();
        }
        // SAFETY: `bytes[from..valid]` lies within the validated part (or
        // is empty), both ends at character boundaries.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[from..self.valid.max(from)]) }
    }
}

/// How much text past where it is asked from [`Rest::text_from`] makes
/// sure of, and how far it validates when it does.
const NEAR: usize = 1024;
const AHEAD: usize = 4096;

/// A closure as a sink.
struct FnSink<F>(F);

impl<F: FnMut(SseEvent<'_>) -> Result<(), Error>> SseSink for FnSink<F> {
    fn event(&mut self, e: SseEvent<'_>) -> Result<(), Error> {
        (self.0)(e)
    }
}

/// Where a U+FEFF byte-order mark is skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bom {
    /// At the start of the stream only (WHATWG).
    #[default]
    Leading,
    /// At the start of every line: the OpenAI SDK decodes each line with
    /// its own `TextDecoder.decode` call, which skips a leading BOM.
    EveryLine,
    /// Never: the Anthropic SDK decodes with `Buffer.toString()`, which
    /// keeps it (a BOM before a field name makes the field unknown).
    Never,
}

/// The SDKs' `LineDecoder` and `SSEDecoder` in one, over raw bytes: push
/// input split anywhere ([`SseDecoder::push`] / [`SseDecoder::push_to`]),
/// then [`SseDecoder::finish`] at the end; events come out in order as
/// the module doc describes. One decoder per stream.
#[derive(Clone, Default)]
pub struct SseDecoder {
    /// Input not yet framed: normally a partial line waiting for its end;
    /// after an error, the rest of that push too (an empty push goes on).
    buf: Vec<u8>,
    /// Bytes of `buf` already known to hold no line terminator.
    scanned: usize,
    /// Absolute stream offset of `buf[0]` (of the next input byte when
    /// `buf` is empty).
    base: usize,
    fields: Fields,
    /// The previous chunk ended with `\r`: a leading `\n` belongs to it.
    after_cr: bool,
    started: bool,
    max_line: usize,
    /// [`MAX_OTHER_LINE`], or no limit where `max_line` is none.
    max_other_line: usize,
    bom: Bom,
}

/// The event being built.
#[derive(Clone, Default)]
struct Fields {
    event: String,
    has_event: bool,
    data: String,
    has_data: bool,
}

/// One line of the stream.
enum Line<'a> {
    Blank,
    Comment,
    Field(&'a str, &'a str),
}

impl SseDecoder {
    /// `max_line` bounds the bytes buffered for one line and one event.
    pub fn new(max_line: usize) -> Self {
        SseDecoder {
            max_line,
            max_other_line: if max_line == usize::MAX {
                usize::MAX
            } else {
                MAX_OTHER_LINE
            },
            ..Default::default()
        }
    }

    /// The same decoder with another BOM rule.
    pub fn with_bom(mut self, bom: Bom) -> Self {
        self.bom = bom;
        self.started = bom != Bom::Leading;
        self
    }

    /// Bytes buffered but not yet dispatched.
    pub fn buffered(&self) -> usize {
        self.buf.len() + self.fields.data.len()
    }

    /// Feeds bytes; calls `on_event` for every complete event, in order.
    /// Stops at the first error from `on_event` or from framing.
    ///
    /// Lines are framed where they lie in `bytes`; only a partial line at the
    /// end is copied (into `buf`), and an event's single `data:` line is
    /// handed over without being copied.
    pub fn push<F>(&mut self, bytes: &[u8], on_event: F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        self.push_to(bytes, &mut FnSink(on_event))
    }

    /// The events that pushing `bytes` would dispatch now, handed to
    /// `on_event`, the decoder itself unchanged: bytes that a caller holds
    /// back from the decoder (lib/qwen/sdk-frames.mjs: where the SDKs hold
    /// them) read as if they had been pushed. It works on a copy, which
    /// costs the partial line and the event begun so far: nothing between
    /// events, and one frame's data where a `\r` was held.
    pub fn peek<F>(&self, bytes: &[u8], on_event: F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        self.clone().push(bytes, on_event)
    }

    /// End of input: a final event without its blank line is dropped, as
    /// the SDKs drop it (their line decoder's `flush()` gives the last line,
    /// but no blank line follows to dispatch it).
    pub fn finish<F>(&mut self, on_event: F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        self.finish_to(&mut FnSink(on_event))
    }

    /// [`Self::push`] with a sink, which may take whole events straight
    /// from the bytes ([`SseSink::raw_events`]).
    pub fn push_to<S>(&mut self, bytes: &[u8], sink: &mut S) -> Result<(), Error>
    where
        S: SseSink,
    {
        let mut bytes = bytes;
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
                self.base += 1;
            }
        }
        if !self.started && !bytes.is_empty() {
            // Skip a UTF-8 BOM, which may itself arrive split.
            let mut probe = self.buf.clone();
            probe.extend_from_slice(&bytes[..bytes.len().min(3)]);
            if probe.len() < 3 && [0xEF, 0xBB, 0xBF].starts_with(&probe) {
                self.buf.extend_from_slice(bytes);
                return Ok(());
            }
            self.started = true;
            if probe.starts_with(&[0xEF, 0xBB, 0xBF]) {
                let from_buf = self.buf.len();
                self.buf.clear();
                // An empty push while the BOM was incomplete scanned it.
                self.scanned = 0;
                bytes = &bytes[3 - from_buf..];
                self.base += 3;
            }
        }
        // Lines held in `buf`, the first completed by the new bytes.
        loop {
            self.frame_buffered(sink)?;
            if self.buf.is_empty() || bytes.is_empty() {
                break;
            }
            match memchr::memchr2(b'\n', b'\r', bytes) {
                None => {
                    self.buf.extend_from_slice(bytes);
                    bytes = &[];
                }
                Some(end) => {
                    let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
                    let take = end + 1 + usize::from(crlf);
                    self.buf.extend_from_slice(&bytes[..take]);
                    bytes = &bytes[take..];
                }
            }
        }
        if !bytes.is_empty() {
            // A `\r` that ended `buf` was followed by something else.
            self.after_cr = false;
            self.frame_direct(bytes, sink)?;
        }
        // `buf` now holds at most the partial last line, starting at `base`.
        check_other_line(&self.buf, self.base, self.max_other_line)?;
        if self.buf.len() > self.max_line || self.fields.data.len() > self.max_line {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "an SSE line or event exceeds the limit of {} bytes",
                    self.max_line
                ),
            )
            .with_offset(self.base + self.buf.len()));
        }
        Ok(())
    }

    /// Frames the complete lines in `buf`.
    fn frame_buffered<S>(&mut self, sink: &mut S) -> Result<(), Error>
    where
        S: SseSink,
    {
        let mut start = 0;
        loop {
            let Some(rel) = memchr::memchr2(b'\n', b'\r', &self.buf[self.scanned..]) else {
                self.scanned = self.buf.len();
                break;
            };
            let end = self.scanned + rel;
            let (next, cr_at_end) = after_terminator(&self.buf, end);
            self.after_cr |= cr_at_end;
            let line_start = start;
            start = next;
            self.scanned = next;
            let raw = &self.buf[line_start..end];
            if let Err(e) = check_other_line(raw, self.base + line_start, self.max_other_line) {
                self.consume(start);
                return Err(e);
            }
            let lossy;
            let line = match simdutf8::compat::from_utf8(raw) {
                Ok(line) => line,
                Err(_) => {
                    lossy = String::from_utf8_lossy(raw);
                    &*lossy
                }
            };
            let result = self.fields.apply(split_line(line, self.bom), None, sink);
            if let Err(e) = result {
                self.consume(start);
                return Err(e);
            }
        }
        self.consume(start);
        Ok(())
    }

    /// Frames `bytes` (with `buf` empty) where they lie; a partial last line
    /// is kept in `buf`.
    fn frame_direct<'b, S>(&mut self, bytes: &'b [u8], sink: &mut S) -> Result<(), Error>
    where
        S: SseSink,
    {
        // The event's only `data:` line so far, not copied yet.
        let mut single: Option<&'b str> = None;
        // UTF-8 is checked as the push is framed, each byte once: what the
        // sink takes as whole events it has checked (or compared with text
        // it keeps); lines are validated ahead in blocks ([`Rest`]); the line
        // holding an invalid sequence is checked alone, for its offset.
        // `bytes[start..valid]` is valid UTF-8.
        let mut valid: usize = 0;
        let mut start = 0;
        let mut result = Ok(());
        loop {
            if single.is_none() && self.fields.is_empty() && start < bytes.len() {
                // Between events: the sink may take whole events as they lie.
                let mut rest = Rest::new(&bytes[start..], valid.saturating_sub(start));
                let (taken, taken_result) = sink.raw_events(&mut rest);
                valid = valid.max(start + rest.valid);
                start += taken;
                valid = valid.max(start);
                if taken_result.is_err() {
                    result = taken_result;
                    break;
                }
            }
            let Some(rel) = memchr::memchr2(b'\n', b'\r', &bytes[start..]) else {
                break;
            };
            let end = start + rel;
            let (next, cr_at_end) = after_terminator(bytes, end);
            self.after_cr |= cr_at_end;
            let line = if end == start {
                Some("")
            } else if end - start > MAX_OTHER_LINE {
                None
            } else {
                let mut rest = Rest::new(&bytes[start..], valid.saturating_sub(start));
                let line = rest.text_from(0, end - start).get(..end - start);
                valid = valid.max(start + rest.valid);
                line
            };
            result = match line {
                _ if bytes[start..end].len() > MAX_OTHER_LINE => {
                    check_other_line(&bytes[start..end], self.base + start, self.max_other_line)
                        .and_then(|()| self.apply_raw(&bytes[start..end], &mut single, sink))
                }
                Some(line) => {
                    self.fields
                        .apply(split_line(line, self.bom), Some(&mut single), sink)
                }
                None => self.apply_raw(&bytes[start..end], &mut single, sink),
            };
            start = next;
            if result.is_err() {
                break;
            }
        }
        if let Some(data) = single {
            self.fields.data.push_str(data);
        }
        self.buf.extend_from_slice(&bytes[start..]);
        self.base += start;
        self.scanned = if result.is_ok() { self.buf.len() } else { 0 };
        result
    }

    /// A line of the caller's bytes outside the valid prefix (or too long
    /// to be checked there): decoded on its own, lossily when it is not
    /// UTF-8; an owned line cannot stay borrowed.
    fn apply_raw<'b, S>(
        &mut self,
        raw: &'b [u8],
        single: &mut Option<&'b str>,
        sink: &mut S,
    ) -> Result<(), Error>
    where
        S: SseSink,
    {
        match simdutf8::compat::from_utf8(raw) {
            Ok(line) => self
                .fields
                .apply(split_line(line, self.bom), Some(single), sink),
            Err(_) => {
                if let Some(first) = single.take() {
                    self.fields.data.push_str(first);
                }
                let line = String::from_utf8_lossy(raw);
                self.fields.apply(split_line(&line, self.bom), None, sink)
            }
        }
    }

    /// [`Self::finish`] with a sink.
    pub fn finish_to<S>(&mut self, sink: &mut S) -> Result<(), Error>
    where
        S: SseSink,
    {
        self.frame_buffered(sink)?;
        // The last line, and the event it belongs to, are never dispatched.
        let end = self.buf.len();
        self.consume(end);
        self.fields.clear();
        Ok(())
    }

    fn consume(&mut self, upto: usize) {
        if upto > 0 {
            self.buf.drain(..upto);
            self.base += upto;
            self.scanned -= upto.min(self.scanned);
        }
    }
}

/// Where the input after the line ending at `end` (a `\n` or `\r` of `src`)
/// starts, and whether `src` ended with that `\r` (its `\n` may be next).
fn after_terminator(src: &[u8], end: usize) -> (usize, bool) {
    let next = end + 1;
    if src[end] != b'\r' {
        return (next, false);
    }
    match src.get(next) {
        Some(b'\n') => (next + 1, false),
        Some(_) => (next, false),
        None => (next, true),
    }
}

/// `max` ([`MAX_OTHER_LINE`]) for a line (or the start of one still
/// arriving) that is not a `data:` line (a BOM before `data:` counts as a
/// data line); `offset` is the line's absolute stream offset.
fn check_other_line(raw: &[u8], offset: usize, max: usize) -> Result<(), Error> {
    if raw.len() <= max || raw.starts_with(b"data:") || raw.starts_with(b"\xEF\xBB\xBFdata:") {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::LimitExceeded,
        format!("an SSE line that is not a data line exceeds {max} bytes"),
    )
    .with_offset(offset))
}

/// The longest prefix of `bytes` that is valid UTF-8.
fn valid_prefix(bytes: &[u8]) -> &str {
    match simdutf8::compat::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => simdutf8::compat::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Splits a line into its field and value.
fn split_line(line: &str, bom: Bom) -> Line<'_> {
    let line = match bom {
        Bom::EveryLine => line.strip_prefix('\u{FEFF}').unwrap_or(line),
        _ => line,
    };
    // Field names are short: a plain loop beats a vector search's set-up.
    match line.bytes().position(|c| c == b':') {
        _ if line.is_empty() => Line::Blank,
        Some(0) => Line::Comment,
        Some(i) => {
            let v = &line[i + 1..];
            Line::Field(&line[..i], v.strip_prefix(' ').unwrap_or(v))
        }
        None => Line::Field(line, ""),
    }
}

impl Fields {
    /// No event begun: no field seen since the last dispatch.
    fn is_empty(&self) -> bool {
        !self.has_data && !self.has_event
    }

    fn clear(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event.clear();
        self.has_event = false;
    }

    /// Applies one line. With `single`, an event's first `data:` line is
    /// kept there, borrowed, until a second one needs the joined copy.
    fn apply<'s, S>(
        &mut self,
        line: Line<'s>,
        single: Option<&mut Option<&'s str>>,
        sink: &mut S,
    ) -> Result<(), Error>
    where
        S: SseSink,
    {
        match line {
            Line::Blank => self.dispatch(single, sink),
            Line::Comment => Ok(()),
            Line::Field("data", value) => {
                match single {
                    Some(single) if !self.has_data => *single = Some(value),
                    single => {
                        if let Some(first) = single.and_then(Option::take) {
                            self.data.push_str(first);
                        }
                        if self.has_data {
                            self.data.push('\n');
                        }
                        self.data.push_str(value);
                    }
                }
                self.has_data = true;
                Ok(())
            }
            Line::Field("event", value) => {
                self.event.clear();
                self.event.push_str(value);
                self.has_event = true;
                Ok(())
            }
            Line::Field(..) => Ok(()),
        }
    }

    fn dispatch<S>(&mut self, single: Option<&mut Option<&str>>, sink: &mut S) -> Result<(), Error>
    where
        S: SseSink,
    {
        // The SDKs' `SSEDecoder.decode`: `if (!this.event && !this.data.length) return null`.
        let result = if self.has_data || !self.event.is_empty() {
            let data = match single.and_then(Option::take) {
                Some(data) => data,
                None => self.data.as_str(),
            };
            sink.event(SseEvent {
                event: self.has_event.then_some(self.event.as_str()),
                data,
            })
        } else {
            Ok(())
        };
        self.clear();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(chunks: &[&[u8]]) -> Result<Vec<(Option<String>, String)>, Error> {
        let mut d = SseDecoder::new(1 << 20);
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, |e| {
                out.push((e.event.map(str::to_owned), e.data.to_owned()));
                Ok(())
            })?;
        }
        d.finish(|e| {
            out.push((e.event.map(str::to_owned), e.data.to_owned()));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn frames_events_with_every_line_ending_and_comments() {
        let body = b"\xEF\xBB\xBF: comment\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\ndata: x\rdata: y\r\rid: 3\n\ndata: z";
        let whole = collect(&[body]).unwrap();
        assert_eq!(
            whole,
            vec![(Some("a".into()), "1\n2".into()), (None, "x\ny".into())],
            "the final event without its blank line is dropped"
        );
        for i in 0..body.len() {
            assert_eq!(
                collect(&[&body[..i], &body[i..]]).unwrap(),
                whole,
                "split at {i}"
            );
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(collect(&bytes).unwrap(), whole);
    }

    #[test]
    fn utf8_split_inside_a_character_is_kept() {
        let body = "data: héllo 😀\n\n".as_bytes();
        for i in 0..body.len() {
            assert_eq!(
                collect(&[&body[..i], &body[i..]]).unwrap(),
                vec![(None, "héllo 😀".into())]
            );
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_per_line_as_the_sdks_decode_it() {
        // Maximal subparts become one U+FFFD each (TextDecoder, Buffer.toString()).
        let body: &[u8] = b"data: ok\n\ndata: a\xFFb\xC3(\xE2\x82\n\nevent: e\xF0\x9F\ndata: 1\n\n";
        let want = vec![
            (None, "ok".into()),
            (None, "a\u{FFFD}b\u{FFFD}(\u{FFFD}".into()),
            (Some("e\u{FFFD}".into()), "1".into()),
        ];
        for i in 0..=body.len() {
            assert_eq!(
                collect(&[&body[..i], &body[i..]]).unwrap(),
                want,
                "split at {i}"
            );
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(collect(&bytes).unwrap(), want);
    }

    #[test]
    fn event_only_blocks_dispatch_empty_data_and_boms_follow_the_rule() {
        let body = "event: ping\n\nevent:\n\n\u{FEFF}data: 1\n\n";
        let run = |bom: Bom| {
            let mut d = SseDecoder::new(1 << 20).with_bom(bom);
            let mut out = Vec::new();
            d.push(body.as_bytes(), |e| {
                out.push((e.event.map(str::to_owned), e.data.to_owned()));
                Ok(())
            })
            .unwrap();
            out
        };
        let ping = (Some("ping".to_owned()), String::new());
        assert_eq!(run(Bom::EveryLine), vec![ping.clone(), (None, "1".into())]);
        assert_eq!(run(Bom::Never), vec![ping.clone()], "an unknown field");
        assert_eq!(run(Bom::Leading), vec![ping], "not at the stream start");
    }

    #[test]
    fn a_long_line_that_is_not_data_fails_at_one_mib_however_it_arrives() {
        for filler in [b' ', b':'] {
            let line = vec![filler; MAX_OTHER_LINE + 1];
            let mut body = b"data: 1\n\n".to_vec();
            body.extend_from_slice(&line);
            body.extend_from_slice(b"\ndata: 2\n\n");
            // Whole, split inside the long line, and without its newline.
            let cuts = [body.len(), 9 + MAX_OTHER_LINE / 2, 9 + MAX_OTHER_LINE + 1];
            for cut in cuts {
                let mut d = SseDecoder::new(1 << 30);
                let mut seen = Vec::new();
                let mut sink = |e: SseEvent<'_>| {
                    seen.push(e.data.to_owned());
                    Ok(())
                };
                let err = d
                    .push(&body[..cut], &mut sink)
                    .and_then(|()| d.push(&body[cut..], &mut sink))
                    .unwrap_err();
                assert_eq!(err.code, ErrorCode::LimitExceeded, "cut at {cut}");
                assert_eq!(err.offset, Some(9), "cut at {cut}");
                assert_eq!(seen, ["1"], "cut at {cut}");
            }
            // Still arriving, the line fails as soon as it is too long.
            let mut d = SseDecoder::new(1 << 30);
            let err = d.push(&line, |_| Ok(())).unwrap_err();
            assert_eq!(err.code, ErrorCode::LimitExceeded);
            // With no buffer limit at all, none for such a line either.
            let mut d = SseDecoder::new(usize::MAX);
            let mut seen = Vec::new();
            d.push(&body, |e: SseEvent<'_>| {
                seen.push(e.data.to_owned());
                Ok(())
            })
            .unwrap();
            assert_eq!(seen, ["1", "2"]);
        }
        // A data line of the same length is not this limit's business.
        let mut body = b"data: ".to_vec();
        body.extend(std::iter::repeat_n(b'x', MAX_OTHER_LINE + 1));
        body.extend_from_slice(b"\n\n");
        assert_eq!(collect(&[&body]).unwrap()[0].1.len(), MAX_OTHER_LINE + 1);
        // Nor is a short one of the other kinds.
        assert_eq!(
            collect(&[b": ping\nevent: x\nid: 1\ndata: y\n\n"]).unwrap(),
            vec![(Some("x".into()), "y".into())]
        );
    }

    #[test]
    fn an_oversized_line_is_a_limit_error() {
        let mut d = SseDecoder::new(8);
        let err = d.push(b"data: 0123456789", |_| Ok(())).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
    }

    /// `Rest` hands out only validated text: as far as asked (and ahead),
    /// never past an invalid sequence, never inside a character.
    #[test]
    fn rest_text_stops_at_invalid_bytes_and_whole_characters() {
        // `é` (two bytes) straddles the end of the first window validated
        // ahead; an invalid byte lies far beyond it.
        let mut bytes = vec![b'a'; AHEAD - 1];
        bytes.extend_from_slice("é".as_bytes());
        bytes.extend_from_slice(&[b'b'; 3 * AHEAD]);
        bytes.push(0xFF);
        bytes.extend_from_slice(b"tail");
        let invalid_at = bytes.len() - 5;
        let mut rest = Rest::new(&bytes, 0);
        let first = rest.text_from(0, 0);
        assert_eq!(first.len(), AHEAD - 1, "stops before the cut character");
        assert_eq!(rest.text_from(10, 10).len(), AHEAD - 1 - 10);
        let on = rest.text_from(AHEAD - 1, AHEAD + 1);
        assert!(on.starts_with('é'), "validates on from where it stopped");
        assert_eq!(rest.text_from(0, bytes.len()).len(), invalid_at);
        assert_eq!(rest.text().len(), invalid_at);
        // A view that starts known valid takes that on trust, and an empty
        // request past the end is empty.
        let mut trusted = Rest::new(b"abc", 3);
        assert_eq!(trusted.text_from(1, 1), "bc");
        assert_eq!(trusted.text_from(9, 9), "");
    }
}
