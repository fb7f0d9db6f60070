// Recorded-stream generators: provider SSE bodies built in memory (no large
// files in the repo), deterministic, cut into the 16 KiB reads a socket gives.
const enc = new TextEncoder();
export const READ_SIZE = 16 * 1024;

/** Source text that looks like what a model writes into `write_file`. */
export function fileContent(bytes) {
  const lines = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      i % 7 === 0
        ? `export function handler${i}(req: Request): Promise<Response> {`
        : i % 7 === 6
          ? '}'
          : `  const value${i} = await fetch("https://example.test/api/${i}", { method: 'POST', body: \`\${req.url}\\t${i}\` });`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

/** Splits text into fragments of about `size` chars (deltas are cut anywhere, escapes included). */
function fragments(text, size) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Sentence-ish deltas, like token streams: a few words each. */
function textDeltas(count, seed) {
  const words = [
    'the',
    'stream',
    'converter',
    'reads',
    'bytes',
    'and',
    'emits',
    'parts,',
    'so',
    'a',
    'tool',
    'call',
    'is',
    'ready.',
    'Next',
    'we',
    'check',
    '`write_file`',
    'arguments',
    '"quoted"',
    'ünïcødé',
    '→',
  ];
  const out = [];
  let s = seed;
  for (let i = 0; i < count; i++) {
    let d = '';
    const n = 3 + (i % 5);
    for (let w = 0; w < n; w++) {
      s = (s * 1103515245 + 12345) >>> 0;
      d += (w === 0 && i > 0 ? ' ' : w ? ' ' : '') + words[s % words.length];
    }
    if (i % 40 === 39) d += '\n\n';
    out.push(d);
  }
  return out;
}

function toReads(body) {
  const bytes = enc.encode(body);
  const reads = [];
  for (let off = 0; off < bytes.length; off += READ_SIZE) {
    // Own ArrayBuffer per read, as a socket hands them over.
    reads.push(bytes.slice(off, Math.min(off + READ_SIZE, bytes.length)));
  }
  return { bytes: bytes.length, reads };
}

const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const openaiSse = (data) => `data: ${JSON.stringify(data)}\n\n`;

function writeFileArguments(contentBytes) {
  return JSON.stringify({ file_path: '/work/src/generated/handlers.ts', content: fileContent(contentBytes) });
}

function anthropicBody({ blocks, stopReason, outputTokens }) {
  let body = sse('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1843, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 1 },
    },
  });
  body += sse('ping', { type: 'ping' });
  let events = 2;
  blocks.forEach((block, index) => {
    body += sse('content_block_start', { type: 'content_block_start', index, content_block: block.start });
    for (const delta of block.deltas) {
      body += sse('content_block_delta', { type: 'content_block_delta', index, delta });
    }
    body += sse('content_block_stop', { type: 'content_block_stop', index });
    events += block.deltas.length + 2;
  });
  body += sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  body += sse('message_stop', { type: 'message_stop' });
  return { body, events: events + 2 };
}

/** P1, Anthropic: a short text block, then one `write_file` tool_use with ~50-char input_json_delta events. */
export function anthropicWriteFile(contentBytes) {
  const args = writeFileArguments(contentBytes);
  const { body, events } = anthropicBody({
    blocks: [
      {
        start: { type: 'text', text: '' },
        deltas: ["I'll write", ' the handlers', ' file now.'].map((text) => ({ type: 'text_delta', text })),
      },
      {
        start: { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'write_file', input: {} },
        deltas: fragments(args, 50).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      },
    ],
    stopReason: 'tool_use',
    outputTokens: Math.ceil(args.length / 4),
  });
  return { ...toReads(body), events, finalArguments: [args] };
}

/** P2, Anthropic: a thinking block (deltas + signature), then `textCount` text deltas. */
export function anthropicText(textCount) {
  const thinking = textDeltas(Math.ceil(textCount / 4), 7);
  const text = textDeltas(textCount, 11);
  const { body, events } = anthropicBody({
    blocks: [
      {
        start: { type: 'thinking', thinking: '', signature: '' },
        deltas: [
          ...thinking.map((t) => ({ type: 'thinking_delta', thinking: t })),
          { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds'.repeat(4) },
        ],
      },
      { start: { type: 'text', text: '' }, deltas: text.map((t) => ({ type: 'text_delta', text: t })) },
    ],
    stopReason: 'end_turn',
    outputTokens: textCount * 6,
  });
  return { ...toReads(body), events, finalText: thinking.join('') + text.join('') };
}

function openaiChunk(delta, finishReason = null) {
  return {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion.chunk',
    created: 1741570283,
    model: 'gpt-4o-2024-08-06',
    system_fingerprint: 'fp_eb9dce56a8',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

function openaiTail(finishReason, completionTokens) {
  return (
    openaiSse(openaiChunk({}, finishReason)) +
    openaiSse({
      ...openaiChunk({}),
      choices: [],
      usage: {
        prompt_tokens: 1843,
        completion_tokens: completionTokens,
        total_tokens: 1843 + completionTokens,
        prompt_tokens_details: { cached_tokens: 1024 },
      },
    }) +
    'data: [DONE]\n\n'
  );
}

/**
 * OpenAI tool calls: each call opens with {index, id, type, function: {name, arguments: ''}},
 * then ~50-char argument fragments; with several calls the fragments are interleaved
 * round-robin (P4).
 */
export function openaiToolCalls(argsList) {
  let body = openaiSse(openaiChunk({ role: 'assistant', content: null }));
  let events = 1;
  const parts = argsList.map((a) => fragments(a, 50));
  argsList.forEach((_, index) => {
    body += openaiSse(
      openaiChunk({
        tool_calls: [
          {
            index,
            id: `call_${'q8NvWbJ0pTz3'.slice(0, 10)}${index}Xk2`,
            type: 'function',
            function: { name: 'write_file', arguments: '' },
          },
        ],
      }),
    );
    events++;
  });
  const longest = Math.max(...parts.map((p) => p.length));
  for (let i = 0; i < longest; i++) {
    for (let index = 0; index < parts.length; index++) {
      if (i >= parts[index].length) continue;
      body += openaiSse(openaiChunk({ tool_calls: [{ index, function: { arguments: parts[index][i] } }] }));
      events++;
    }
  }
  const totalArgs = argsList.reduce((n, a) => n + a.length, 0);
  body += openaiTail('tool_calls', Math.ceil(totalArgs / 4));
  return { ...toReads(body), events: events + 3, finalArguments: argsList };
}

/** P1, OpenAI: one `write_file` call. */
export function openaiWriteFile(contentBytes) {
  return openaiToolCalls([writeFileArguments(contentBytes)]);
}

/** P4: `calls` interleaved `write_file` calls of `contentBytes` each. */
export function openaiParallel(calls, contentBytes) {
  return openaiToolCalls(Array.from({ length: calls }, () => writeFileArguments(contentBytes)));
}

/** P2, OpenAI: reasoning_content deltas, then `textCount` content deltas. */
export function openaiText(textCount) {
  const thinking = textDeltas(Math.ceil(textCount / 4), 7);
  const text = textDeltas(textCount, 11);
  let body = openaiSse(openaiChunk({ role: 'assistant', content: '' }));
  for (const t of thinking) body += openaiSse(openaiChunk({ reasoning_content: t }));
  for (const t of text) body += openaiSse(openaiChunk({ content: t }));
  body += openaiTail('stop', textCount * 6);
  return {
    ...toReads(body),
    events: 1 + thinking.length + text.length + 3,
    finalText: thinking.join('') + text.join(''),
  };
}

/** Wraps 16 KiB reads as a fetch Response, the shape the SDK decoders take. */
export function responseOf(reads) {
  let i = 0;
  return new Response(
    new ReadableStream({
      pull(controller) {
        if (i < reads.length) controller.enqueue(reads[i++]);
        else controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

export async function* feed(items) {
  for (const item of items) yield item;
}
