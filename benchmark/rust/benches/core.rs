//! Timings of the pure-Rust core on generated Anthropic `write_file` streams
//! fed as 16 KiB reads: the memchr floor, SSE framing alone, conversion, and
//! conversion plus writing the batch as JSON text (what crosses to JS).
//! `-- profile KB N` runs only the last path N times, for callgrind.
use std::hint::black_box;
use std::time::Instant;

use toolcall_stream_core::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::sse::SseDecoder;

const READ: usize = 16 * 1024;

fn escape(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The same shape as streams.mjs `anthropicWriteFile`: ~50-char input_json_delta events.
fn anthropic_write_file(content_bytes: usize) -> (Vec<u8>, usize) {
    let mut content = String::new();
    let mut i = 0;
    while content.len() < content_bytes {
        let line = match i % 7 {
            0 => format!("export function handler{i}(req: Request): Promise<Response> {{"),
            6 => "}".to_owned(),
            _ => format!("  const value{i} = await fetch(\"https://example.test/api/{i}\", {{ method: 'POST', body: `${{req.url}}\\t{i}` }});"),
        };
        content.push_str(&line);
        content.push('\n');
        i += 1;
    }
    content.truncate(content_bytes);
    let mut args = String::from("{\"file_path\":\"/work/src/generated/handlers.ts\",\"content\":");
    escape(&mut args, &content);
    args.push('}');

    let mut body = String::new();
    let mut event = |ty: &str, data: &str| {
        body.push_str("event: ");
        body.push_str(ty);
        body.push_str("\ndata: ");
        body.push_str(data);
        body.push_str("\n\n");
    };
    event("message_start", r#"{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1843,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024,"output_tokens":1}}}"#);
    event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"write_file","input":{}}}"#);
    let chars: Vec<char> = args.chars().collect();
    let mut events = 2;
    for piece in chars.chunks(50) {
        let piece: String = piece.iter().collect();
        let mut data = String::from(r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"#);
        escape(&mut data, &piece);
        data.push_str("}}");
        event("content_block_delta", &data);
        events += 1;
    }
    event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#);
    event("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":26000}}"#);
    event("message_stop", r#"{"type":"message_stop"}"#);
    (body.into_bytes(), events + 3)
}

fn convert(body: &[u8], write: bool) -> usize {
    let mut stream = AnthropicStream::new(AnthropicOptions { model: Some("bench-model".into()), ..Default::default() });
    let mut out = Vec::new();
    let mut text = String::new();
    let mut n = 0;
    for read in body.chunks(READ) {
        stream.push_bytes(read, &mut out).expect("valid stream");
        if write {
            text.clear();
            for r in &out {
                r.write_item(&mut text);
            }
            n += text.len();
        }
        n += out.len();
        out.clear();
    }
    stream.end(&mut out).expect("valid stream");
    n + out.len()
}

fn median_ms(iterations: usize, mut f: impl FnMut() -> usize) -> f64 {
    for _ in 0..iterations.min(10) {
        black_box(f());
    }
    let mut xs: Vec<f64> = (0..iterations)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.first().map(String::as_str) == Some("profile") {
        let kb: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
        let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
        let (body, _) = anthropic_write_file(kb * 1024);
        for _ in 0..n {
            black_box(convert(&body, true));
        }
        return;
    }
    println!("| Anthropic write_file | SSE / events | memchr scan ms | SSE framing ms | convert ms | convert + JSON text ms |");
    println!("|---|---|---:|---:|---:|---:|");
    for (label, kb, iterations) in [("100 KB", 100, 400), ("1 MB", 1024, 40)] {
        let (body, events) = anthropic_write_file(kb * 1024);
        let scan = median_ms(iterations, || body.chunks(READ).map(|r| memchr::memchr(0, r).unwrap_or(0)).sum());
        let framing = median_ms(iterations, || {
            let mut sse = SseDecoder::new(usize::MAX);
            let mut n = 0;
            for read in body.chunks(READ) {
                sse.push(read, |e| {
                    n += e.data.len();
                    Ok(())
                })
                .expect("valid SSE");
            }
            n
        });
        let plain = median_ms(iterations, || convert(&body, false));
        let written = median_ms(iterations, || convert(&body, true));
        println!(
            "| {label} | {} KB / {events} | {scan:.3} | {framing:.3} | {plain:.3} | {written:.3} |",
            body.len() / 1024
        );
    }
}
