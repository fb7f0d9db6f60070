//! The Anthropic SSE body: events as the Anthropic SDK that Qwen Code
//! bundles hands them on (by their `event:` name; `ping` skipped, `error`
//! thrown), with runs of the hot event handed over whole ([`super::byte_path`]).

use super::events::stream_error;
use super::AnthropicStream;
use crate::convert::anthropic::prefix;
use crate::convert::stream_input::{SseConsumer, StreamInput};
use crate::foundations::error::Error;
use crate::foundations::json::{self};
use crate::foundations::sse::{Rest, SseEvent};
use crate::model::gemini::Response;

impl SseConsumer for AnthropicStream {
    fn input(&mut self) -> &mut StreamInput {
        &mut self.input
    }

    fn sse_event(&mut self, e: SseEvent<'_>, out: &mut Vec<Response>) -> Result<(), Error> {
        self.on_sse_event(e, out)
    }

    /// Runs of the hot event exactly as the API sends it (`event:` line,
    /// `data:` line, blank line, all ending in `\n`), taken without line
    /// framing; anything else is left to the decoder.
    fn raw_sse_events(
        &mut self,
        rest: &mut Rest<'_>,
        out: &mut Vec<Response>,
    ) -> (usize, Result<(), Error>) {
        const EVENT: &str = "event: content_block_delta\ndata: ";
        const END: &str = "\n\n";
        let text = rest.text();
        let mut taken = 0;
        while let Some(data) = prefix::strip(&text[taken..], EVENT) {
            let ends = |rest: &str| rest.starts_with(END);
            let Some((len, result)) = self.hot_event(data, ends, out) else {
                break;
            };
            taken += EVENT.len() + len + END.len();
            if let Err(e) = result {
                return (taken, Err(*e));
            }
        }
        (taken, Ok(()))
    }
}

/// Whether the SDK parses and yields an event of this `event:` name
/// (`Stream.fromSSEResponse`): the message and content-block events and the
/// legacy `completion`. `error` throws; any other name, none included, is
/// passed over.
pub(super) fn yields_event(event: Option<&str>) -> bool {
    matches!(
        event,
        Some(
            "completion"
                | "message_start"
                | "message_delta"
                | "message_stop"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
        )
    )
}

impl AnthropicStream {
    /// The SDK's view of an SSE event: `ping` skipped, `error` thrown.
    /// One SSE event, as the Anthropic SDK that Qwen Code bundles (0.36.3,
    /// `Stream.fromSSEResponse`) hands it on: by its `event:` name. The
    /// message and content-block events (and the legacy `completion`) are
    /// parsed and yielded, `ping` is skipped, `error` throws; any other
    /// event, data-only ones included, yields nothing.
    pub(super) fn on_sse_event(
        &mut self,
        e: SseEvent<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        let (event, data) = (e.event, e.data);
        self.sdk_event(e, out)
            .map_err(|err| err.in_frame(event, data))
    }

    pub(super) fn sdk_event(
        &mut self,
        e: SseEvent<'_>,
        out: &mut Vec<Response>,
    ) -> Result<(), Error> {
        if e.event != Some("error") && !yields_event(e.event) {
            return Ok(());
        }
        if e.event != Some("error") && self.byte_path_event(e.data, out)? {
            return Ok(());
        }
        let ev = json::parse(e.data)?;
        if e.event == Some("error") {
            let mut err = stream_error(&ev);
            err.provider_event = Some(e.data.into());
            self.message.failed_in_band = true;
            return Err(err);
        }
        self.event(&ev, out)
    }
}
