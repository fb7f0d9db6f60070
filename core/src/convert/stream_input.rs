//! What both converters share around their state machines: the SSE decoder
//! for raw byte input and the finished flag (set by `end()` or by a fatal
//! error, after which every call is `FINISHED`).

use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::sse::{Bom, Rest, SseDecoder, SseEvent, SseSink};
use crate::model::clock::CallClock;
use crate::model::gemini::Response;

/// The byte-input decoder and the finished flag of one converter.
pub struct StreamInput {
    sse: SseDecoder,
    finished: bool,
}

impl StreamInput {
    /// `max_line` bounds one buffered SSE line or event; `bom` is the
    /// provider SDK's BOM rule.
    pub fn new(max_line: usize, bom: Bom) -> Self {
        StreamInput {
            sse: SseDecoder::new(max_line).with_bom(bom),
            finished: false,
        }
    }

    /// No more input is taken: every call is `FINISHED`.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Bytes held by the SSE decoder.
    pub fn buffered(&self) -> usize {
        self.sse.buffered()
    }

    /// The events that pushing `bytes` would dispatch now, the decoder
    /// unchanged ([`SseDecoder::peek`]).
    pub fn peek_events<F>(&self, bytes: &[u8], on_event: F) -> Result<(), Error>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), Error>,
    {
        self.sse.peek(bytes, on_event)
    }

    /// No more input is taken.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// `FINISHED` once finished; every input call starts with it.
    pub fn check_open(&self) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(
                ErrorCode::Finished,
                "the converter is finished: end() was called or the stream failed",
            ));
        }
        Ok(())
    }

    /// Passes `result` through; a fatal error finishes the converter.
    pub fn settle<T>(&mut self, result: Result<T, Error>) -> Result<T, Error> {
        if result.as_ref().is_err_and(|e| e.fatal) {
            self.finished = true;
        }
        result
    }
}

/// A converter that consumes SSE events; the byte-input plumbing is shared.
pub trait SseConsumer: Sized {
    /// The converter's shared input state.
    fn input(&mut self) -> &mut StreamInput;

    /// One dispatched SSE event.
    fn sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error>;

    /// Whole events taken straight from the bytes (see
    /// [`SseSink::raw_events`]); by default none.
    fn raw_sse_events(
        &mut self,
        _rest: &mut Rest<'_>,
        _out: &mut Vec<Response>,
    ) -> (usize, Result<(), Error>) {
        (0, Ok(()))
    }

    /// Raw bytes of the SSE body, split anywhere.
    fn push_sse(&mut self, bytes: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.input().check_open()?;
        let _clock = CallClock::start();
        // The decoder calls back into the converter, so it is taken out of it
        // for the duration of the call.
        let mut sse = std::mem::take(&mut self.input().sse);
        let result = sse.push_to(bytes, &mut Sink { to: self, out });
        self.input().sse = sse;
        self.input().settle(result)
    }

    /// End of byte input: a final event without its blank line is dropped,
    /// as the SDKs drop it. Finished afterwards.
    fn finish_sse(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        self.input().check_open()?;
        let _clock = CallClock::start();
        let mut sse = std::mem::take(&mut self.input().sse);
        let result = sse.finish_to(&mut Sink { to: self, out });
        self.input().sse = sse;
        self.input().finished = true;
        result
    }
}

/// A converter and its output as the decoder's sink.
struct Sink<'a, C> {
    to: &'a mut C,
    out: &'a mut Vec<Response>,
}

impl<C: SseConsumer> SseSink for Sink<'_, C> {
    fn event(&mut self, e: SseEvent<'_>) -> Result<(), Error> {
        self.to.sse_event(e, self.out)
    }

    fn raw_events(&mut self, rest: &mut Rest<'_>) -> (usize, Result<(), Error>) {
        self.to.raw_sse_events(rest, self.out)
    }
}
