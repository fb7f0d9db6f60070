// Live progress on preparing cards, measured (see BENCHMARKS.md "Live
// progress"). A write_file call streams from a loopback HTTP server through
// the real SDK (`asResponse()`, its raw body) and a converter into
// consumeModelStream, as an agent runs it:
//
//   (a) the longest gap between visible changes of the card while its
//       arguments stream, with progress (default rates) and without;
//   (b) the delay from a stall's start (the server's last argument byte) to
//       its announcement, for a pause with keep-alives and a silent one;
//   (c) the cost on conversion throughput: the large write_file streams
//       converted with a reader calling argumentProgress() at the default
//       rate (and, as an upper bound, after every read) against none.
//
//   npm run bench:progress                 # full run (about 2 minutes)
//   node benchmark/progress.mjs --smoke    # short streams, a short stall time (CI: proves it runs)
import http from 'node:http';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import * as streams from './streams.mjs';
import { machine } from './machine.mjs';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter, ToolCallCards, consumeModelStream } = require('..');
const { DEFAULTS } = require('../lib/acp/progress.js');
const Anthropic = require('@anthropic-ai/sdk').default;
const OpenAI = require('openai').default;

const SMOKE = process.argv.includes('--smoke');
/** How long the arguments stream (a), and the stall time used for (b). */
const ARGUMENT_MS = SMOKE ? 1000 : 6000;
const FRAGMENT = 40; // characters per delta, about ten tokens
const FRAGMENT_GAP_MS = 10; // one delta every 10 ms: 4 KB/s
const STALL_MS = SMOKE ? 500 : DEFAULTS.stallMs;
const LARGE = SMOKE ? 32 * 1024 : 1024 * 1024;
const THROUGHPUT_MS = SMOKE ? 300 : 4000; // per side and round
const ROUNDS = SMOKE ? 1 : 3;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- provider bodies
const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const openaiLine = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-b', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const cut = (text, size) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** Server steps: strings are written, `{ pause, keepAlive }` pauses (writing keep-alives every 100 ms when given). */
function writeFileSteps(provider, fragments, pauses = {}) {
  const id = provider === 'anthropic' ? 'toolu_bench' : 'call_bench';
  const steps = [];
  if (provider === 'anthropic') {
    steps.push(
      sse('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_b',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id, name: 'write_file', input: {} },
      }),
    );
  }
  fragments.forEach((partial, i) => {
    if (pauses[i]) steps.push(...pauses[i]);
    steps.push(
      provider === 'anthropic'
        ? sse('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: partial },
          })
        : openaiLine({
            tool_calls: [
              {
                index: 0,
                ...(i === 0 ? { id, type: 'function' } : {}),
                function: { ...(i === 0 ? { name: 'write_file' } : {}), arguments: partial },
              },
            ],
          }),
      FRAGMENT_GAP_MS,
    );
  });
  if (provider === 'anthropic') {
    steps.push(
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 9 },
      }),
      sse('message_stop', { type: 'message_stop' }),
    );
  } else {
    steps.push(openaiLine({}, 'tool_calls'), 'data: [DONE]\n\n');
  }
  return { id, steps };
}

const argumentText = (bytes) =>
  JSON.stringify({ file_path: '/work/src/generated/handlers.ts', content: streams.realisticContent(bytes) });

// ---------------------------------------------------------------- loopback server
const scripts = [];
/** performance.now() when the server began each pause, in order. */
const pauseStarts = [];
const server = http.createServer(async (req, res) => {
  req.resume();
  await once(req, 'end');
  const steps = scripts.shift() ?? [];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  for (const step of steps) {
    if (res.destroyed) return;
    if (typeof step === 'string') res.write(step);
    else if (typeof step === 'number') await sleep(step);
    else {
      pauseStarts.push(performance.now());
      const end = performance.now() + step.pause;
      while (performance.now() < end && !res.destroyed) {
        if (step.keepAlive) res.write(step.keepAlive);
        await sleep(Math.min(100, end - performance.now()));
      }
    }
  }
  res.end();
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const baseURL = `http://127.0.0.1:${server.address().port}`;

/** One model stream through the real SDK (raw body) and a converter, as Qwen's StreamEvents. */
async function* modelStream(provider, steps) {
  scripts.push(steps);
  const converter = provider === 'anthropic' ? new AnthropicConverter() : new OpenAIConverter();
  const request =
    provider === 'anthropic'
      ? new Anthropic({ apiKey: 'k', baseURL, maxRetries: 0 }).messages.create({
          model: 'm',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'go' }],
          stream: true,
        })
      : new OpenAI({ apiKey: 'k', baseURL: `${baseURL}/v1`, maxRetries: 0 }).chat.completions.create({
          model: 'm',
          messages: [{ role: 'user', content: 'go' }],
          stream: true,
        });
  for await (const bytes of (await request.asResponse()).body) {
    for (const value of converter.pushBytes(bytes)) yield { type: 'chunk', value };
  }
  for (const value of converter.end()) yield { type: 'chunk', value };
}

/** Runs one stream; returns every tool frame of the card with its arrival time, and when its call arrived. */
async function run(provider, steps, id, progress) {
  const frames = [];
  let callAt;
  const send = (update) => {
    if (update.toolCallId === id) frames.push({ at: performance.now(), update });
  };
  async function* events() {
    for await (const event of modelStream(provider, steps)) {
      if (event.value.functionCalls?.length && callAt === undefined) callAt = performance.now();
      yield event;
    }
  }
  await consumeModelStream(events(), { cards: new ToolCallCards(), send, progress });
  return { frames, callAt };
}

// ---------------------------------------------------------------- (a) visible changes
const ms = (x) => `${Math.round(x)} ms`;
const rowsA = [];
for (const provider of ['anthropic', 'openai']) {
  const fragments = cut(argumentText(((ARGUMENT_MS / FRAGMENT_GAP_MS) * FRAGMENT) | 0), FRAGMENT);
  const { id, steps } = writeFileSteps(provider, fragments);
  const gaps = {};
  for (const progress of [true, false]) {
    const { frames, callAt } = await run(provider, steps, id, progress);
    // Visible changes: the card opening, each progress frame, then the call arriving (the card starts).
    const times = [frames[0].at, ...frames.slice(1).map((f) => f.at), callAt].sort((a, b) => a - b);
    let longest = 0;
    for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i] - times[i - 1]);
    gaps[progress] = { longest, total: callAt - frames[0].at, changes: frames.length - 1 };
  }
  rowsA.push([
    provider,
    `${ms(gaps.true.total)}`,
    `${ms(gaps.true.longest)} (${gaps.true.changes} progress frames)`,
    `${ms(gaps.false.longest)}`,
  ]);
}

// ---------------------------------------------------------------- (b) stall announcements
const rowsB = [];
for (const provider of ['anthropic', 'openai']) {
  const keepAlive = provider === 'anthropic' ? sse('ping', { type: 'ping' }) : ': keep-alive\n\n';
  const pause = STALL_MS + (SMOKE ? 600 : 1500);
  const fragments = cut(argumentText(4000), FRAGMENT);
  const { id, steps } = writeFileSteps(provider, fragments, {
    20: [{ pause, keepAlive }],
    40: [{ pause }],
  });
  const first = pauseStarts.length;
  const { frames } = await run(provider, steps, id, { stallMs: STALL_MS });
  const [modelStart, connectionStart] = pauseStarts.slice(first);
  const announced = (kind) => frames.find((f) => f.update._meta?.progress?.stalled === kind)?.at;
  rowsB.push([provider, ms(announced('model') - modelStart), ms(announced('connection') - connectionStart)]);
}

server.closeAllConnections();
server.close();

// ---------------------------------------------------------------- (c) throughput
const cases = [
  {
    label: `Anthropic write_file ${LARGE >> 10} KB`,
    Converter: AnthropicConverter,
    st: streams.anthropicWriteFile(LARGE),
  },
  { label: `OpenAI write_file ${LARGE >> 10} KB`, Converter: OpenAIConverter, st: streams.openaiWriteFile(LARGE) },
];
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** One conversion, yielding to the event loop after every 16 KiB read, as a socket's reads arrive. */
async function convert(Converter, reads, reader) {
  const c = new Converter({ model: 'bench-model' });
  let timer;
  if (reader === 'timer') timer = setInterval(() => c.argumentProgress(), DEFAULTS.intervalMs);
  try {
    for (const read of reads) {
      c.pushBytes(read);
      if (reader === 'every') c.argumentProgress();
      await turn();
    }
    c.end();
  } finally {
    clearInterval(timer);
  }
}
const SIDES = ['none', 'timer', 'every'];
const rowsC = [];
for (const { label, Converter, st } of cases) {
  const samples = Object.fromEntries(SIDES.map((s) => [s, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of r % 2 ? [...SIDES].reverse() : SIDES) {
      const until = performance.now() + THROUGHPUT_MS;
      while (performance.now() < until) {
        const t0 = performance.now();
        await convert(Converter, st.reads, side);
        samples[side].push(performance.now() - t0);
      }
    }
  }
  const median = (xs) => {
    xs.sort((a, b) => a - b);
    return xs[xs.length >> 1];
  };
  const [none, timer, every] = SIDES.map((s) => median(samples[s]));
  rowsC.push([
    label,
    `${none.toFixed(2)} ms`,
    `${timer.toFixed(2)} ms (×${(timer / none).toFixed(3)})`,
    `${every.toFixed(2)} ms (×${(every / none).toFixed(3)})`,
  ]);
}

// ---------------------------------------------------------------- report
const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
console.log(`${machine()}${SMOKE ? ' (smoke)' : ''}\n`);
console.log(
  `(a) Longest gap between visible changes while the arguments stream (${FRAGMENT}-character deltas every ${FRAGMENT_GAP_MS} ms, progress every ${DEFAULTS.intervalMs} ms)\n`,
);
console.log(table(['provider', 'arguments streamed for', 'with progress', 'without progress'], rowsA));
console.log(`\n(b) From a stall's start to its announcement (stallMs ${STALL_MS})\n`);
console.log(table(['provider', 'model stall (keep-alives arrive)', 'connection stall (nothing arrives)'], rowsB));
console.log(`\n(c) Conversion of the large write_file streams, median per stream, reader against none\n`);
console.log(
  table(['stream', 'no reader', `reader every ${DEFAULTS.intervalMs} ms`, 'reader after every 16 KiB read'], rowsC),
);
