//! Timings of the pure-Rust core on generated `write_file` and text streams
//! of each provider (Anthropic, OpenAI chat, OpenAI Responses), fed as 16
//! KiB reads: the memchr floor, SSE framing alone, conversion, and
//! conversion plus writing the batch as JSON text (what crosses to JS).
//! `-- profile KB N [openai | openai-drop | openai-text | anthropic-text |
//! responses | responses-text]` runs only that stream's last path N times
//! (Anthropic `write_file` when none is named), for callgrind.
use std::hint::black_box;
use std::time::Instant;

use toolcall_stream_core::convert::anthropic::{AnthropicOptions, AnthropicStream};
use toolcall_stream_core::convert::openai::{OpenAIOptions, OpenAIStream};
use toolcall_stream_core::convert::openai_responses::{
    OpenAIResponsesOptions, OpenAIResponsesStream,
};
use toolcall_stream_core::foundations::sse::SseDecoder;
use toolcall_stream_core::model::gemini::Response;
use toolcall_stream_core::wire::{write_batch, StateWord};
use toolcall_stream_core::Error;

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

/// `{"file_path": …, "content": <TypeScript-like source>}` as JSON text.
fn write_file_arguments(content_bytes: usize) -> String {
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
    args
}

/// One Anthropic Messages stream of a single content block: `block` is
/// its `content_block`, each piece one `content_block_delta` whose delta has
/// type `delta_type` and carries the piece under `key`. Returns the body and
/// its number of events.
fn anthropic_stream(
    start_usage: &str,
    block: &str,
    (delta_type, key): (&str, &str),
    pieces: &[String],
    end: &str,
) -> (Vec<u8>, usize) {
    let mut body = String::new();
    let mut event = |ty: &str, data: &str| {
        body.push_str("event: ");
        body.push_str(ty);
        body.push_str("\ndata: ");
        body.push_str(data);
        body.push_str("\n\n");
    };
    event(
        "message_start",
        &format!(
            r#"{{"type":"message_start","message":{{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{start_usage}}}}}"#
        ),
    );
    event(
        "content_block_start",
        &format!(r#"{{"type":"content_block_start","index":0,"content_block":{block}}}"#),
    );
    for piece in pieces {
        let mut data = format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"{delta_type}","{key}":"#
        );
        escape(&mut data, piece);
        data.push_str("}}");
        event("content_block_delta", &data);
    }
    event(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    );
    event("message_delta", end);
    event("message_stop", r#"{"type":"message_stop"}"#);
    (body.into_bytes(), pieces.len() + 5)
}

/// ~50-character pieces of `text`.
fn pieces_of(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(50).map(|p| p.iter().collect()).collect()
}

/// The same shape as streams.mjs `anthropicWriteFile`: ~50-char input_json_delta events.
fn anthropic_write_file(content_bytes: usize) -> (Vec<u8>, usize) {
    anthropic_stream(
        r#"{"input_tokens":1843,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024,"output_tokens":1}"#,
        r#"{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"write_file","input":{}}"#,
        ("input_json_delta", "partial_json"),
        &pieces_of(&write_file_arguments(content_bytes)),
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":26000}}"#,
    )
}

/// The header every OpenAI chunk of these streams repeats, up to its delta.
const OPENAI_HEAD: &str = r#"{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":"#;

/// One OpenAI `data:` event: the header, `delta`, `finish` (JSON text).
fn openai_chunk(body: &mut String, delta: &str, finish: &str) {
    body.push_str("data: ");
    body.push_str(OPENAI_HEAD);
    body.push_str(delta);
    body.push_str(",\"logprobs\":null,\"finish_reason\":");
    body.push_str(finish);
    body.push_str("}]}\n\n");
}

/// The same shape as streams.mjs `openaiWriteFile`: ~50-char argument fragments.
fn openai_write_file(content_bytes: usize) -> (Vec<u8>, usize) {
    let mut body = String::new();
    openai_chunk(&mut body, r#"{"role":"assistant","content":null}"#, "null");
    openai_chunk(
        &mut body,
        r#"{"tool_calls":[{"index":0,"id":"call_q8NvWbJ0pT0Xk2","type":"function","function":{"name":"write_file","arguments":""}}]}"#,
        "null",
    );
    let pieces = pieces_of(&write_file_arguments(content_bytes));
    for piece in &pieces {
        let mut delta = String::from(r#"{"tool_calls":[{"index":0,"function":{"arguments":"#);
        escape(&mut delta, piece);
        delta.push_str("}}]}");
        openai_chunk(&mut body, &delta, "null");
    }
    openai_chunk(&mut body, "{}", "\"tool_calls\"");
    body.push_str(r#"data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_eb9dce56a8","choices":[],"usage":{"prompt_tokens":1843,"completion_tokens":26000,"total_tokens":27843,"prompt_tokens_details":{"cached_tokens":1024}}}"#);
    body.push_str("\n\ndata: [DONE]\n\n");
    (body.into_bytes(), pieces.len() + 4)
}

/// Prose in token-sized pieces (4–27 characters), like streams.mjs `proseDeltas`.
fn prose_deltas(chars: usize) -> Vec<String> {
    const WORDS: [&str; 12] = [
        "The",
        "converter",
        "reads",
        "the",
        "stream",
        "and",
        "keeps",
        "\"path\"",
        "`write_file`",
        "ünïcødé",
        "→",
        "tests.",
    ];
    let mut seed: u32 = 21;
    let mut pick = |n: usize| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 8) as usize % n
    };
    let mut text = String::new();
    while text.len() < chars {
        if pick(12) == 0 {
            text.push_str("\n\n");
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push(' ');
        }
        text.push_str(WORDS[pick(WORDS.len())]);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let n = 4 + pick(24);
        out.push(chars[i..(i + n).min(chars.len())].iter().collect());
        i += n;
    }
    out
}

/// Anthropic text-heavy (P7): one text block of `text_delta` events.
fn anthropic_text(chars: usize) -> (Vec<u8>, usize) {
    anthropic_stream(
        r#"{"input_tokens":1843,"output_tokens":1}"#,
        r#"{"type":"text","text":""}"#,
        ("text_delta", "text"),
        &prose_deltas(chars),
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9000}}"#,
    )
}

/// OpenAI text-heavy (P7): `content` deltas.
fn openai_text(chars: usize) -> (Vec<u8>, usize) {
    let mut body = String::new();
    openai_chunk(&mut body, r#"{"role":"assistant","content":""}"#, "null");
    let deltas = prose_deltas(chars);
    for piece in &deltas {
        let mut delta = String::from(r#"{"content":"#);
        escape(&mut delta, piece);
        delta.push('}');
        openai_chunk(&mut body, &delta, "null");
    }
    openai_chunk(&mut body, "{}", "\"stop\"");
    body.push_str("data: [DONE]\n\n");
    (body.into_bytes(), deltas.len() + 2)
}

/// One Responses frame as OpenAI sends it (the same shape as streams.mjs
/// `responsesFrame`): `event: <type>`, and data numbered after its type
/// (`sequence_number`), `members` (JSON object members) next, and a delta
/// padded with an `obfuscation` string of 1 to 16 characters.
fn responses_frame(body: &mut String, seq: &mut usize, kind: &str, members: &str) {
    const OBFUSCATION: &str = "q7Zk2XvN0bLr5TgWm9HcJd3PsYa8FeUo";
    let n = *seq;
    *seq += 1;
    body.push_str(&format!(
        "event: {kind}\ndata: {{\"type\":\"{kind}\",\"sequence_number\":{n},{members}"
    ));
    if kind.ends_with(".delta") {
        let (from, len) = ((n + 1) % 16, 1 + ((n + 1) * 7) % 16);
        body.push_str(&format!(
            ",\"obfuscation\":\"{}\"",
            &OBFUSCATION[from..from + len]
        ));
    }
    body.push_str("}\n\n");
}

const RESPONSES_CREATED: &str = r#""response":{"id":"resp_67ccd2bed1ec8190b14f964abc054267","object":"response","status":"in_progress","output":[]}"#;

fn responses_completed(body: &mut String, seq: &mut usize, output_tokens: usize) {
    let members = format!(
        r#""response":{{"id":"resp_67ccd2bed1ec8190b14f964abc054267","object":"response","status":"completed","output":[],"usage":{{"input_tokens":1843,"input_tokens_details":{{"cached_tokens":1024}},"output_tokens":{output_tokens},"output_tokens_details":{{"reasoning_tokens":0}},"total_tokens":{}}}}}"#,
        1843 + output_tokens
    );
    responses_frame(body, seq, "response.completed", &members);
}

/// The same shape as streams.mjs `responsesWriteFile`: ~50-char
/// `function_call_arguments.delta` events, the whole arguments again in
/// `function_call_arguments.done` and `output_item.done`.
fn responses_write_file(content_bytes: usize) -> (Vec<u8>, usize) {
    let args = write_file_arguments(content_bytes);
    let (mut body, mut seq) = (String::new(), 0);
    responses_frame(&mut body, &mut seq, "response.created", RESPONSES_CREATED);
    let item =
        r#""type":"function_call","id":"fc_0","call_id":"call_q8NvWbJ0pT0Xk2","name":"write_file""#;
    responses_frame(
        &mut body,
        &mut seq,
        "response.output_item.added",
        &format!(r#""output_index":0,"item":{{{item},"arguments":"","status":"in_progress"}}"#),
    );
    let pieces = pieces_of(&args);
    for piece in &pieces {
        let mut members = String::from(r#""item_id":"fc_0","output_index":0,"delta":"#);
        escape(&mut members, piece);
        responses_frame(
            &mut body,
            &mut seq,
            "response.function_call_arguments.delta",
            &members,
        );
    }
    let mut quoted = String::new();
    escape(&mut quoted, &args);
    responses_frame(
        &mut body,
        &mut seq,
        "response.function_call_arguments.done",
        &format!(r#""item_id":"fc_0","output_index":0,"arguments":{quoted}"#),
    );
    responses_frame(
        &mut body,
        &mut seq,
        "response.output_item.done",
        &format!(r#""output_index":0,"item":{{{item},"arguments":{quoted},"status":"completed"}}"#),
    );
    responses_completed(&mut body, &mut seq, args.len() / 4);
    (body.into_bytes(), pieces.len() + 6)
}

/// Responses text-heavy (P7): `output_text.delta` events of one message.
fn responses_text(chars: usize) -> (Vec<u8>, usize) {
    let (mut body, mut seq) = (String::new(), 0);
    responses_frame(&mut body, &mut seq, "response.created", RESPONSES_CREATED);
    responses_frame(
        &mut body,
        &mut seq,
        "response.output_item.added",
        r#""output_index":0,"item":{"type":"message","id":"msg_0","role":"assistant","status":"in_progress","content":[]}"#,
    );
    let deltas = prose_deltas(chars);
    for piece in &deltas {
        let mut members =
            String::from(r#""item_id":"msg_0","output_index":0,"content_index":0,"delta":"#);
        escape(&mut members, piece);
        members.push_str(r#","logprobs":[]"#);
        responses_frame(&mut body, &mut seq, "response.output_text.delta", &members);
    }
    responses_completed(&mut body, &mut seq, chars / 4);
    (body.into_bytes(), deltas.len() + 3)
}

/// The converters' byte input, for one driver.
trait Bytes {
    fn push(&mut self, read: &[u8], out: &mut Vec<Response>) -> Result<(), Error>;
    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error>;
}

impl Bytes for AnthropicStream {
    fn push(&mut self, read: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_bytes(read, out)
    }
    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        AnthropicStream::end(self, out)
    }
}

impl Bytes for OpenAIStream {
    fn push(&mut self, read: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_bytes(read, out)
    }
    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIStream::end(self, out)
    }
}

impl Bytes for OpenAIResponsesStream {
    fn push(&mut self, read: &[u8], out: &mut Vec<Response>) -> Result<(), Error> {
        self.push_bytes(read, out)
    }
    fn end(&mut self, out: &mut Vec<Response>) -> Result<(), Error> {
        OpenAIResponsesStream::end(self, out)
    }
}

/// Bytes → responses in 16 KiB reads, and (with `write`) each read's batch
/// as the JSON text that crosses to JS.
fn drive(mut stream: impl Bytes, body: &[u8], write: bool) -> usize {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut strings = Vec::new();
    let mut n = 0;
    for read in body.chunks(READ) {
        stream.push(read, &mut out).expect("valid stream");
        if write {
            text.clear();
            strings.clear();
            write_batch(
                &mut out,
                None,
                StateWord::OPEN,
                None,
                &mut text,
                &mut strings,
            );
            n += text.len() + strings.iter().map(String::len).sum::<usize>();
        }
        n += out.len();
        out.clear();
    }
    stream.end(&mut out).expect("valid stream");
    n + out.len()
}

// Named entry points: callgrind.mjs collects from these.
fn convert(body: &[u8], write: bool) -> usize {
    drive(
        AnthropicStream::new(AnthropicOptions::default()),
        body,
        write,
    )
}

fn convert_openai(body: &[u8], write: bool) -> usize {
    drive(OpenAIStream::new(OpenAIOptions::default()), body, write)
}

/// The pipeline's output: the empty responses are never built.
fn convert_openai_dropped(body: &[u8], write: bool) -> usize {
    drive(
        OpenAIStream::new(OpenAIOptions {
            drop_empty: true,
            ..OpenAIOptions::default()
        }),
        body,
        write,
    )
}

fn convert_responses(body: &[u8], write: bool) -> usize {
    drive(
        OpenAIResponsesStream::new(OpenAIResponsesOptions::default()),
        body,
        write,
    )
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
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().map(String::as_str) == Some("profile") {
        let kb: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
        let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
        type Make = fn(usize) -> (Vec<u8>, usize);
        type Convert = fn(&[u8], bool) -> usize;
        let (make, convert): (Make, Convert) = match args.get(3).map(String::as_str) {
            Some("openai-drop") => (openai_write_file, convert_openai_dropped),
            Some("openai") => (openai_write_file, convert_openai),
            Some("openai-text") => (openai_text, convert_openai),
            Some("anthropic-text") => (anthropic_text, convert),
            Some("responses") => (responses_write_file, convert_responses),
            Some("responses-text") => (responses_text, convert_responses),
            _ => (anthropic_write_file, convert),
        };
        let (body, _) = make(kb * 1024);
        for _ in 0..n {
            black_box(convert(&body, true));
        }
        return;
    }
    println!("| stream | SSE / events | memchr scan ms | SSE framing ms | convert ms | convert + JSON text ms |");
    println!("|---|---|---:|---:|---:|---:|");
    let streams: [(
        &str,
        usize,
        usize,
        fn(usize) -> (Vec<u8>, usize),
        fn(&[u8], bool) -> usize,
    ); 11] = [
        ("Anthropic 100 KB", 100, 400, anthropic_write_file, convert),
        ("Anthropic 1 MB", 1024, 40, anthropic_write_file, convert),
        ("OpenAI 100 KB", 100, 200, openai_write_file, convert_openai),
        ("OpenAI 1 MB", 1024, 20, openai_write_file, convert_openai),
        (
            "OpenAI 100 KB, drop_empty",
            100,
            200,
            openai_write_file,
            convert_openai_dropped,
        ),
        (
            "OpenAI 1 MB, drop_empty",
            1024,
            20,
            openai_write_file,
            convert_openai_dropped,
        ),
        (
            "Anthropic text 33 KB (P7)",
            33,
            200,
            anthropic_text,
            convert,
        ),
        (
            "OpenAI text 33 KB (P7)",
            33,
            200,
            openai_text,
            convert_openai,
        ),
        (
            "OpenAI Responses 100 KB",
            100,
            200,
            responses_write_file,
            convert_responses,
        ),
        (
            "OpenAI Responses 1 MB",
            1024,
            20,
            responses_write_file,
            convert_responses,
        ),
        (
            "OpenAI Responses text 33 KB (P7)",
            33,
            200,
            responses_text,
            convert_responses,
        ),
    ];
    for (label, kb, iterations, make, convert) in streams {
        let (body, events) = make(kb * 1024);
        let scan = median_ms(iterations, || {
            body.chunks(READ)
                .map(|r| memchr::memchr(0, r).unwrap_or(0))
                .sum()
        });
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
