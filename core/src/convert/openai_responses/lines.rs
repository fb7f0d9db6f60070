//! Qwen's own reader of the Responses SSE body, line by line, exactly as
//! `ResponsesPipeline.iterateBody` reads it (Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-pipeline.ts),
//! which is not the SSE specification's: the text is cut at `"\n"` only; an
//! `event:` line sets the event type (trimmed) and clears the data; a
//! `data:` line loses one leading space, `[DONE]` is skipped, and it is
//! either appended to the frame's data (joined by `"\n"`) when an event type
//! is set, or parsed at once as an event named by its own `type`; a line
//! that `trim()`s to nothing ends the frame (converted when it has a type
//! and data) and clears both; every other line (comments, `id:`, `retry:`)
//! is ignored. At the end, a last unterminated `data:` line is taken as a
//! data line, and a frame still open is converted.
//!
//! The body is decoded as `TextDecoder` decodes it with `{stream: true}`: a
//! BOM at the very start is dropped, malformed UTF-8 becomes U+FFFD, and an
//! incomplete sequence at the very end is never flushed. A `"\n"` byte never
//! occurs inside a UTF-8 sequence, so decoding line by line is the same.

use std::borrow::Cow;

use crate::convert::path_counters::{self, Path};
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::{is_blank, js_trim};

/// What the reader hands on: an event to parse and convert.
pub(super) trait FrameSink {
    /// `event`: the `event:` line's type, or `None` for a `data:` line read
    /// on its own (its JSON's `type` names it); `data`: the JSON text.
    fn frame(&mut self, event: Option<&str>, data: &str) -> Result<(), Error>;
}

/// The reader's state between two pushes.
#[derive(Clone, Debug)]
pub(super) struct LineReader {
    /// The bytes of the line not yet ended by `"\n"`.
    partial: Vec<u8>,
    /// `currentEventType` (empty: `null`, or the empty string, both falsy).
    event: String,
    /// `dataAccumulator`.
    data: String,
    /// No line was ended yet: the first line may start with a BOM.
    first: bool,
    /// Bytes the reader may hold at most (`maxBufferedBytes`).
    max: usize,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl LineReader {
    pub(super) fn new(max: usize) -> Self {
        LineReader {
            partial: Vec::new(),
            event: String::new(),
            data: String::new(),
            first: true,
            max,
        }
    }

    /// Bytes held (the partial line and the open frame's data).
    pub(super) fn buffered(&self) -> usize {
        self.partial.len() + self.data.len() + self.event.len()
    }

    /// Raw body bytes, split anywhere.
    pub(super) fn push(
        &mut self,
        mut bytes: &[u8],
        sink: &mut impl FrameSink,
    ) -> Result<(), Error> {
        while let Some(at) = memchr::memchr(b'\n', bytes) {
            if self.partial.is_empty() {
                if let Some((len, result)) = self.whole_frame(bytes, at, sink) {
                    result?;
                    bytes = &bytes[len..];
                    continue;
                }
                self.line_bytes(&bytes[..at], sink)?;
            } else {
                self.partial.extend_from_slice(&bytes[..at]);
                let line = std::mem::take(&mut self.partial);
                let result = self.line_bytes(&line, sink);
                // The buffer is kept for the next partial line.
                self.partial = line;
                self.partial.clear();
                result?;
            }
            bytes = &bytes[at + 1..];
        }
        self.partial.extend_from_slice(bytes);
        if self.buffered() > self.max {
            return Err(limit(self.max));
        }
        Ok(())
    }

    /// The end of the body: the last unterminated line, if it is a `data:`
    /// line, then the frame still open.
    pub(super) fn finish(&mut self, sink: &mut impl FrameSink) -> Result<(), Error> {
        let partial = std::mem::take(&mut self.partial);
        let bytes = self.strip_bom(&partial);
        let line = decode_unflushed(bytes);
        if let Some(rest) = line.strip_prefix("data:") {
            self.data_line(rest, sink)?;
        }
        if !self.event.is_empty() && !self.data.is_empty() {
            let (event, data) = (
                std::mem::take(&mut self.event),
                std::mem::take(&mut self.data),
            );
            sink.frame(Some(&event), &data)?;
        }
        Ok(())
    }

    /// The frame at the start of `bytes` (its first line ends at `at`),
    /// when it is the common one, whole in this read and from a clean
    /// state: an `event:` line with a type, a `data:` line that is not
    /// `[DONE]`, then an empty line (`"\n"` or `"\r\n"`), all valid UTF-8.
    /// Handed on as the three lines would hand it on, without copying it
    /// into the reader's state: its length, and the sink's outcome. `None`
    /// for any other bytes, which are read line by line.
    fn whole_frame(
        &mut self,
        bytes: &[u8],
        at: usize,
        sink: &mut impl FrameSink,
    ) -> Option<(usize, Result<(), Error>)> {
        if self.first
            || !self.event.is_empty()
            || !self.data.is_empty()
            || path_counters::disabled(Path::Fields)
        {
            return None;
        }
        let event = bytes[..at].strip_prefix(b"event:")?;
        let data_end = at + 1 + memchr::memchr(b'\n', &bytes[at + 1..])?;
        let data = bytes[at + 1..data_end].strip_prefix(b"data:")?;
        let blank = &bytes[data_end + 1..];
        let len = data_end
            + 1
            + match blank {
                [b'\n', ..] => 1,
                [b'\r', b'\n', ..] => 2,
                _ => return None,
            };
        let event = js_trim(simdutf8::basic::from_utf8(event).ok()?);
        let data = data_content(simdutf8::basic::from_utf8(data).ok()?)?;
        if event.is_empty() || data.is_empty() {
            return None;
        }
        // `data_line`'s limit, on what the reader would have held.
        if event.len() + data.len() > self.max {
            return None;
        }
        path_counters::taken(Path::Fields);
        Some((len, sink.frame(Some(event), data)))
    }

    fn strip_bom<'b>(&mut self, line: &'b [u8]) -> &'b [u8] {
        if std::mem::replace(&mut self.first, false) {
            line.strip_prefix(BOM).unwrap_or(line)
        } else {
            line
        }
    }

    fn line_bytes(&mut self, line: &[u8], sink: &mut impl FrameSink) -> Result<(), Error> {
        let line = self.strip_bom(line);
        // Valid UTF-8 (nearly every line) is checked by the faster
        // validator; only a malformed line is decoded with U+FFFD.
        match std::str::from_utf8(line) {
            Ok(line) => self.line(line, sink),
            Err(_) => self.line(&String::from_utf8_lossy(line), sink),
        }
    }

    /// One line of `lines` in `iterateBody`'s loop.
    fn line(&mut self, line: &str, sink: &mut impl FrameSink) -> Result<(), Error> {
        if let Some(rest) = line.strip_prefix("event:") {
            self.event.clear();
            self.event.push_str(js_trim(rest));
            self.data.clear();
            return Ok(());
        }
        if let Some(rest) = line.strip_prefix("data:") {
            return self.data_line(rest, sink);
        }
        if is_blank(line) {
            if !self.event.is_empty() && !self.data.is_empty() {
                let result = sink.frame(Some(&self.event), &self.data);
                self.event.clear();
                self.data.clear();
                return result;
            }
            self.event.clear();
            self.data.clear();
        }
        Ok(())
    }

    /// A `data:` line's content after `data:`.
    fn data_line(&mut self, rest: &str, sink: &mut impl FrameSink) -> Result<(), Error> {
        let Some(content) = data_content(rest) else {
            return Ok(());
        };
        if self.event.is_empty() {
            return sink.frame(None, content);
        }
        if !self.data.is_empty() {
            self.data.push('\n');
        }
        self.data.push_str(content);
        if self.buffered() > self.max {
            return Err(limit(self.max));
        }
        Ok(())
    }
}

/// A `data:` line's value, after `data:`: `.replace(/^ /, "")` takes one
/// leading space; `None` for `[DONE]`, which `iterateBody` skips.
fn data_content(rest: &str) -> Option<&str> {
    let content = rest.strip_prefix(' ').unwrap_or(rest);
    (content != "[DONE]").then_some(content)
}

/// The text `TextDecoder.decode(bytes, {stream: true})` has handed out for
/// the last bytes of the body: a trailing incomplete sequence is held by the
/// decoder, and `iterateBody` never flushes it.
fn decode_unflushed(bytes: &[u8]) -> Cow<'_, str> {
    let mut end = bytes.len();
    // An incomplete sequence is one to three bytes at the end, from a lead
    // byte that promises more than follow it.
    for at in (bytes.len().saturating_sub(3)..bytes.len()).rev() {
        if bytes[at] & 0xC0 != 0x80 {
            if std::str::from_utf8(&bytes[at..]).is_err_and(|e| e.error_len().is_none()) {
                end = at;
            }
            break;
        }
    }
    String::from_utf8_lossy(&bytes[..end])
}

fn limit(max: usize) -> Error {
    Error::new(
        ErrorCode::LimitExceeded,
        format!("an SSE line or frame is larger than maxBufferedBytes ({max} bytes)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Frames(Vec<(Option<String>, String)>);

    impl FrameSink for Frames {
        fn frame(&mut self, event: Option<&str>, data: &str) -> Result<(), Error> {
            self.0.push((event.map(str::to_owned), data.to_owned()));
            Ok(())
        }
    }

    fn read(body: &[u8]) -> Vec<(Option<String>, String)> {
        let mut r = LineReader::new(usize::MAX);
        let mut frames = Frames::default();
        r.push(body, &mut frames).unwrap();
        r.finish(&mut frames).unwrap();
        frames.0
    }

    #[test]
    fn frames_data_lines_and_the_end_as_iterate_body_reads_them() {
        let frame = |e: Option<&str>, d: &str| (e.map(str::to_owned), d.to_owned());
        assert_eq!(
            read(b"\xEF\xBB\xBFevent:  a \r\ndata: 1\r\ndata:  2\n\r\ndata: {\"type\":\"b\"}\n: c\nid: 1\ndata: [DONE]\nevent: x\ndata: 3"),
            [
                frame(Some("a"), "1\r\n 2"),
                frame(None, "{\"type\":\"b\"}"),
                frame(Some("x"), "3"),
            ]
        );
    }

    /// The frames and the outcome of `body` pushed as `pieces` (lengths,
    /// cycled) under a limit of `max` bytes.
    fn read_in(body: &[u8], pieces: &[usize], max: usize) -> (Vec<(Option<String>, String)>, bool) {
        let mut r = LineReader::new(max);
        let mut frames = Frames::default();
        let mut rest = body;
        let mut ok = true;
        for &len in pieces.iter().cycle() {
            if rest.is_empty() || !ok {
                break;
            }
            let (now, later) = rest.split_at(len.clamp(1, rest.len()));
            ok = r.push(now, &mut frames).is_ok();
            rest = later;
        }
        ok = ok && r.finish(&mut frames).is_ok();
        (frames.0, ok)
    }

    proptest::proptest! {
        /// A frame taken whole from a read (`whole_frame`) is what reading
        /// its lines gives: pushed at once, a byte at a time (no frame
        /// whole) or in random pieces, a body gives the same frames and the
        /// same limit error with the path as without it.
        #[test]
        fn frames_taken_whole_are_the_frames_of_their_lines(
            lines in proptest::collection::vec(proptest::sample::select(vec![
                "event: response.output_text.delta\n", "event:x\r\n", "event: \n",
                "event: \u{2028}a\u{A0}\n", "data: {\"delta\":\"a\"}\n", "data:[DONE]\n",
                "data:  2\r\n", "data: \n", "data: \u{e9}\n", "\n", "\r\n", " \n", ": c\n",
                "id: 1\n", "malformed", "data: {\"type\":\"t\"}",
            ]), 0..24),
            pieces in proptest::collection::vec(1usize..40, 1..6),
            max in proptest::sample::select(vec![8usize, 40, usize::MAX]),
        ) {
            let body: Vec<u8> = lines
                .iter()
                .flat_map(|l| match *l {
                    "malformed" => b"data: \xff\n".to_vec(),
                    l => l.as_bytes().to_vec(),
                })
                .collect();
            let all = [body.len().max(1)];
            for split in [&all[..], &[1], &pieces] {
                let on = read_in(&body, split, max);
                path_counters::set_disabled(Path::Fields, true);
                let off = read_in(&body, split, max);
                path_counters::set_disabled(Path::Fields, false);
                proptest::prop_assert_eq!(&on, &off);
                // The limit is on what a read leaves held, which depends on
                // the split; without one, every split gives the same.
                if max == usize::MAX {
                    proptest::prop_assert_eq!(&on, &read_in(&body, &all, max));
                }
            }
        }
    }

    #[test]
    fn an_incomplete_sequence_at_the_end_is_never_flushed_and_malformed_bytes_are_replaced() {
        assert_eq!(decode_unflushed(b"data: \xE2\x82"), "data: ");
        assert_eq!(decode_unflushed(b"data: \xE2\x41"), "data: \u{FFFD}A");
        assert_eq!(decode_unflushed(b"data: \xFF"), "data: \u{FFFD}");
        assert_eq!(
            read(b"data: \xF0\x9F\x98\x80x\xC3\n")[0].1,
            "\u{1F600}x\u{FFFD}"
        );
    }
}
