//! Server-sent events framing over raw bytes (WHATWG `text/event-stream`).
//!
//! Input may be split anywhere: inside a line, inside `\r\n`, inside a
//! multi-byte UTF-8 sequence. Lines end at `\n`, `\r\n` or `\r`; `:` lines are
//! comments; `data:` lines accumulate (joined by `\n`); a blank line
//! dispatches. A leading BOM is skipped. Invalid UTF-8 is an error with the
//! absolute byte offset, never a lossy replacement.

use crate::error::{Error, ErrorCode};

/// One dispatched event. `data` is valid UTF-8.
#[derive(Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    pub event: Option<&'a str>,
    pub data: &'a str,
}

#[derive(Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already known to hold no line terminator.
    scanned: usize,
    /// Absolute stream offset of `buf[0]`.
    base: usize,
    event: String,
    has_event: bool,
    data: String,
    has_data: bool,
    /// The previous chunk ended with `\r`: a leading `\n` belongs to it.
    after_cr: bool,
    started: bool,
    max_line: usize,
}

impl SseDecoder {
    /// `max_line` bounds the bytes buffered for one line and one event.
    pub fn new(max_line: usize) -> Self {
        SseDecoder {
            max_line,
            ..Default::default()
        }
    }

    /// Bytes buffered but not yet dispatched.
    pub fn buffered(&self) -> usize {
        self.buf.len() + self.data.len()
    }

    /// Feeds bytes; calls `on_event` for every complete event, in order. Stops
    /// at the first error from `on_event` or from framing.
    pub fn push<F>(&mut self, bytes: &[u8], mut on_event: F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
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
        self.buf.extend_from_slice(bytes);
        let mut start = 0;
        loop {
            let Some(rel) = memchr::memchr2(b'\n', b'\r', &self.buf[self.scanned..]) else {
                self.scanned = self.buf.len();
                break;
            };
            let end = self.scanned + rel;
            let mut next = end + 1;
            if self.buf[end] == b'\r' {
                if next < self.buf.len() {
                    if self.buf[next] == b'\n' {
                        next += 1;
                    }
                } else {
                    self.after_cr = true;
                }
            }
            let line_start = start;
            start = next;
            self.scanned = next;
            let result = self.line(line_start, end, &mut on_event);
            if let Err(e) = result {
                self.consume(start);
                return Err(e);
            }
        }
        self.consume(start);
        if self.buf.len() > self.max_line || self.data.len() > self.max_line {
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

    /// End of input: a final event without its blank line is still
    /// dispatched, so nothing that arrived is dropped.
    pub fn finish<F>(&mut self, mut on_event: F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        if !self.buf.is_empty() {
            let end = self.buf.len();
            self.line(0, end, &mut on_event)?;
            self.consume(end);
        }
        self.dispatch(&mut on_event)
    }

    fn consume(&mut self, upto: usize) {
        if upto > 0 {
            self.buf.drain(..upto);
            self.base += upto;
            self.scanned -= upto.min(self.scanned);
        }
    }

    fn line<F>(&mut self, start: usize, end: usize, on_event: &mut F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        let raw = &self.buf[start..end];
        let line = std::str::from_utf8(raw).map_err(|e| {
            let at = self.base + start + e.valid_up_to();
            Error::new(
                ErrorCode::InvalidUtf8,
                format!("invalid UTF-8 in the SSE stream at byte {at}"),
            )
            .with_offset(at)
        })?;
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => {
                self.event.clear();
                self.event.push_str(value);
                self.has_event = true;
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch<F>(&mut self, on_event: &mut F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        let result = if self.has_data {
            on_event(SseEvent {
                event: self.has_event.then_some(self.event.as_str()),
                data: &self.data,
            })
        } else {
            Ok(())
        };
        self.data.clear();
        self.has_data = false;
        self.event.clear();
        self.has_event = false;
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
            vec![
                (Some("a".into()), "1\n2".into()),
                (None, "x\ny".into()),
                (None, "z".into()),
            ]
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
    fn invalid_utf8_reports_the_absolute_offset() {
        let err = collect(&[b"data: ok\n\n", b"data: \xFF\n\n"]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidUtf8);
        assert_eq!(err.offset, Some(16));
    }

    #[test]
    fn an_oversized_line_is_a_limit_error() {
        let mut d = SseDecoder::new(8);
        let err = d.push(b"data: 0123456789", |_| Ok(())).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
    }
}
