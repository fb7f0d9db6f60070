//! An error the provider SDK's own decoder would have thrown for a frame (a
//! payload that is not JSON, an in-band error event) carries that frame as the
//! SDK reads it (`Error::sse_frame`), so a host can replay it through the SDK
//! and throw exactly what the SDK throws. Every data line is kept.

use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::ErrorCode;

fn anthropic(body: &str) -> toolcall_stream_core::Error {
    let mut s = AnthropicStream::new(AnthropicOptions::default());
    let mut out = Vec::new();
    s.push_bytes(body.as_bytes(), &mut out)
        .and_then(|()| s.end(&mut out))
        .unwrap_err()
}

fn openai(body: &str) -> toolcall_stream_core::Error {
    let mut s = OpenAIStream::new(OpenAIOptions::default());
    let mut out = Vec::new();
    s.push_bytes(body.as_bytes(), &mut out)
        .and_then(|()| s.end(&mut out))
        .unwrap_err()
}

#[test]
fn a_payload_that_is_not_json_carries_its_frame() {
    let e = anthropic("event: content_block_delta\ndata: {nope\n\n");
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert_eq!(
        e.sse_frame.as_deref(),
        Some("event: content_block_delta\ndata: {nope\n")
    );
    let e = openai("data: {not json}\n\n");
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert_eq!(e.sse_frame.as_deref(), Some("data: {not json}\n"));
}

#[test]
fn an_event_only_block_has_no_data_line() {
    let e = anthropic("event: content_block_delta\n\n");
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert_eq!(e.sse_frame.as_deref(), Some("event: content_block_delta\n"));
}

#[test]
fn an_in_band_error_over_several_data_lines_keeps_every_line() {
    let e = anthropic("event: error\ndata: {\"type\":\"error\",\ndata: \"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n\n");
    assert_eq!(e.code, ErrorCode::StreamError);
    assert_eq!(
        e.sse_frame.as_deref(),
        Some("event: error\ndata: {\"type\":\"error\",\ndata: \"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n")
    );
    let e = openai("data:\ndata: {\"error\":{\"message\":\"m\"}}\n\n");
    assert_eq!(e.code, ErrorCode::StreamError);
    assert_eq!(
        e.sse_frame.as_deref(),
        Some("data: \ndata: {\"error\":{\"message\":\"m\"}}\n")
    );
}

#[test]
fn other_errors_carry_no_frame() {
    // A null event is Qwen's own code failing on it, not the SDK's decoder.
    let e = anthropic("event: message_start\ndata: null\n\n");
    assert_eq!(e.code, ErrorCode::InvalidEvent);
    assert_eq!(e.sse_frame, None);
}
