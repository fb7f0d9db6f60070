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

/** A deterministic pseudo-random sequence (LCG), so every run streams the same bytes. */
function lcg(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s >>> 8) % n;
  };
}

/**
 * Source text with the escape density of real code (about one character to
 * escape in JSON per 35, mostly newlines; single-quoted strings, an
 * occasional double quote or backslash), as models write it into
 * `write_file`. fileContent (P1) is denser: one per 28.
 */
export function realisticContent(bytes) {
  const pick = lcg(14);
  const names = ['config', 'request', 'result', 'items', 'handler', 'options', 'session', 'buffer', 'index', 'value'];
  const name = () => names[pick(names.length)] + (pick(3) ? '' : String(pick(90)));
  const statements = [
    () => `const ${name()} = await load${pick(2) ? 'Config' : 'Items'}(${name()}, '${name()}/${name()}.json');`,
    () => `if (${name()} === undefined || ${name()}.length === 0) return null;`,
    () => `// ${names[pick(10)]}s are kept until the ${names[pick(10)]} is closed; see ${name()}.ts`,
    () => `${name()}.${name()} = ${name()}.map((x) => x.${name()} ?? ${pick(100)});`,
    () => `throw new Error(\`unexpected ${name()}: \${${name()}}\`);`,
    () => `logger.debug("${name()} ready", { ${name()}, ${name()} });`,
    () => `return ${name()}.split('\\n').filter(Boolean);`,
    () => `for (const ${name()} of ${name()}) total += ${name()}.size;`,
  ];
  const lines = [];
  let size = 0;
  let depth = 0;
  while (size < bytes) {
    let line;
    const r = pick(10);
    if (r === 0 && depth < 4) {
      line = `${'  '.repeat(depth)}export async function ${name()}(${name()}, ${name()} = {}) {`;
      depth++;
    } else if (r === 1 && depth > 0) {
      depth--;
      line = `${'  '.repeat(depth)}}`;
    } else if (r === 2 || r === 3) {
      line = '';
    } else {
      line = '  '.repeat(depth) + statements[pick(statements.length)]();
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

/** Prose with markdown (paragraphs, a list, inline code, quotes), cut into token-sized deltas. */
function proseDeltas(totalChars, seed) {
  const pick = lcg(seed);
  const words = [
    'The',
    'converter',
    'reads',
    'the',
    'stream',
    'and',
    'keeps',
    'each',
    'call',
    'until',
    'its',
    'arguments',
    'are',
    'complete;',
    'then',
    'it',
    'hands',
    'them',
    'over.',
    '`write_file`',
    'takes',
    'a',
    '"path"',
    'and',
    'the',
    'content,',
    'so',
    'we',
    'check',
    'both',
    'first.',
    'ünïcødé',
    '→',
    'tests',
  ];
  let text = '';
  while (text.length < totalChars) {
    const r = pick(12);
    if (r === 0) text += '\n\n';
    else if (r === 1) text += '\n- ';
    text += (text && !text.endsWith('\n') && !text.endsWith(' ') ? ' ' : '') + words[pick(words.length)];
  }
  const out = [];
  for (let i = 0; i < text.length;) {
    const n = 4 + pick(24);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
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
  return { bytes: bytes.length, reads: readsOf(bytes) };
}

/**
 * `bytes` (a Uint8Array or Buffer) cut into READ_SIZE `Uint8Array` reads, each
 * with its own ArrayBuffer, as a socket hands them over (a plain view: a
 * Buffer's `slice` would share its memory).
 */
export function readsOf(bytes) {
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reads = [];
  for (let off = 0; off < view.length; off += READ_SIZE) reads.push(view.slice(off, off + READ_SIZE));
  return reads;
}

const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const openaiSse = (data) => `data: ${JSON.stringify(data)}\n\n`;

function writeFileArguments(contentBytes, content = fileContent) {
  return JSON.stringify({ file_path: '/work/src/generated/handlers.ts', content: content(contentBytes) });
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
export function anthropicWriteFile(contentBytes, { content = fileContent, fragment = 50 } = {}) {
  const args = writeFileArguments(contentBytes, content);
  const { body, events } = anthropicBody({
    blocks: [
      {
        start: { type: 'text', text: '' },
        deltas: ["I'll write", ' the handlers', ' file now.'].map((text) => ({ type: 'text_delta', text })),
      },
      {
        start: { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'write_file', input: {} },
        deltas: fragments(args, fragment).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
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
export function openaiToolCalls(argsList, { fragment = 50, text = [] } = {}) {
  let body = openaiSse(openaiChunk({ role: 'assistant', content: text.length ? '' : null }));
  let events = 1;
  for (const content of text) {
    body += openaiSse(openaiChunk({ content }));
    events++;
  }
  const parts = argsList.map((a) => fragments(a, fragment));
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

// P7: streams shaped like an independent tool-heavy benchmark: a short text
// block first, ~52-character argument fragments, realistic escape density
// (realisticContent), a ~100 KB write_file; text-heavy: prose in token-sized
// deltas, no thinking.
const LEAD = ["I'll create", ' the handlers module', ' with the new', ' config loader.'];

/** P7, Anthropic tool-heavy. */
export function anthropicToolHeavy(contentBytes) {
  return anthropicWriteFile(contentBytes, { content: realisticContent, fragment: 52 });
}

/** P7, OpenAI tool-heavy: the same text lead and arguments. */
export function openaiToolHeavy(contentBytes) {
  return openaiToolCalls([writeFileArguments(contentBytes, realisticContent)], { fragment: 52, text: LEAD });
}

/** P7, Anthropic text-heavy: `chars` characters of prose in token-sized text deltas. */
export function anthropicTextHeavy(chars) {
  const text = proseDeltas(chars, 21);
  const { body, events } = anthropicBody({
    blocks: [{ start: { type: 'text', text: '' }, deltas: text.map((t) => ({ type: 'text_delta', text: t })) }],
    stopReason: 'end_turn',
    outputTokens: Math.ceil(chars / 4),
  });
  return { ...toReads(body), events, finalText: text.join('') };
}

/** P7, OpenAI text-heavy. */
export function openaiTextHeavy(chars) {
  const text = proseDeltas(chars, 21);
  let body = openaiSse(openaiChunk({ role: 'assistant', content: '' }));
  for (const t of text) body += openaiSse(openaiChunk({ content: t }));
  body += openaiTail('stop', Math.ceil(chars / 4));
  return { ...toReads(body), events: 1 + text.length + 3, finalText: text.join('') };
}

// OpenAI Responses API streams (Qwen's `openai-responses` auth type): typed
// `event:`/`data:` frames, as OpenAI sends them: every event numbered
// (`sequence_number`, after `type`), and each delta padded with an
// `obfuscation` string of 1 to 16 characters (on by default:
// `stream_options.include_obfuscation`); text deltas carry `logprobs: []`.
/** `ev` as a frame of the stream `seq` numbers. */
function responsesFrame(seq, ev) {
  const { type, ...rest } = ev;
  const data = { type, sequence_number: seq.next++, ...rest };
  if (type.endsWith('.delta')) data.obfuscation = obfuscation(seq.next);
  return sse(type, data);
}
const OBFUSCATION = 'q7Zk2XvN0bLr5TgWm9HcJd3PsYa8FeUo';
/** A padding string of 1–16 characters, fixed per sequence number. */
const obfuscation = (n) => OBFUSCATION.slice(n % 16, (n % 16) + 1 + ((n * 7) % 16));
const RESPONSE_ID = 'resp_67ccd2bed1ec8190b14f964abc054267';

function responsesHead(seq) {
  return responsesFrame(seq, {
    type: 'response.created',
    response: { id: RESPONSE_ID, object: 'response', status: 'in_progress', output: [] },
  });
}

function responsesTail(seq, outputTokens) {
  return responsesFrame(seq, {
    type: 'response.completed',
    response: {
      id: RESPONSE_ID,
      object: 'response',
      status: 'completed',
      output: [],
      usage: {
        input_tokens: 1843,
        input_tokens_details: { cached_tokens: 1024 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 1843 + outputTokens,
      },
    },
  });
}

/** Responses, P1 shape: one `write_file` function call, its arguments in `fragment`-character deltas. */
export function responsesWriteFile(contentBytes, { fragment = 50 } = {}) {
  const args = writeFileArguments(contentBytes);
  const item = { type: 'function_call', id: 'fc_0', call_id: 'call_q8NvWbJ0pT0Xk2', name: 'write_file' };
  const seq = { next: 0 };
  let body = responsesHead(seq);
  body += responsesFrame(seq, {
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...item, arguments: '', status: 'in_progress' },
  });
  const parts = fragments(args, fragment);
  for (const delta of parts)
    body += responsesFrame(seq, {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_0',
      output_index: 0,
      delta,
    });
  body += responsesFrame(seq, {
    type: 'response.function_call_arguments.done',
    item_id: 'fc_0',
    output_index: 0,
    arguments: args,
  });
  body += responsesFrame(seq, {
    type: 'response.output_item.done',
    output_index: 0,
    item: { ...item, arguments: args, status: 'completed' },
  });
  body += responsesTail(seq, Math.ceil(args.length / 4));
  return { ...toReads(body), events: parts.length + 6, finalArguments: [args] };
}

/** Responses, P2 shape: reasoning summary deltas, then `textCount` output text deltas. */
export function responsesText(textCount) {
  const thinking = textDeltas(Math.ceil(textCount / 4), 7);
  const text = textDeltas(textCount, 11);
  const seq = { next: 0 };
  let body = responsesHead(seq);
  for (const delta of thinking)
    body += responsesFrame(seq, {
      type: 'response.reasoning_summary_text.delta',
      item_id: 'rs_0',
      output_index: 0,
      summary_index: 0,
      delta,
    });
  body += responsesFrame(seq, {
    type: 'response.output_item.added',
    output_index: 1,
    item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] },
  });
  for (const delta of text)
    body += responsesFrame(seq, {
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 1,
      content_index: 0,
      delta,
      logprobs: [],
    });
  body += responsesTail(seq, textCount * 6);
  return { ...toReads(body), events: thinking.length + text.length + 3, finalText: thinking.join('') + text.join('') };
}

/**
 * Wraps 16 KiB reads as a fetch Response, the shape the SDK decoders take:
 * a ReadableStream that hands over one read per pull, as a fetch body does
 * (the bench's peer setup used before; kept to report both).
 */
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
