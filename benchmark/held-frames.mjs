// `npm run bench:held`: the last chunk before a pause, stock Qwen Code against
// the launcher (`toolcall-stream-qwen`, live progress on), in the published
// 0.24.4 and 0.21.10 over ACP (see BENCHMARKS.md "The last chunk before a
// pause").
//
// A loopback provider streams a text answer and, after one marked chunk,
// goes silent for PAUSE_MS before the rest. Measured: from the provider's
// write of the marked chunk (the byte reaching the loopback socket) to the
// ACP client receiving Qwen's `agent_message_chunk` with its text, which
// Qwen sends as soon as its content generator yields that response. Where
// the SDK Qwen bundles holds the frame until more bytes arrive (its
// Anthropic SDK, in every release: sdk-frames.mjs), stock waits out the
// pause and so must the preload, which holds it the same way; where it does
// not, both answer at once. The preload must be no later than stock.
//
// Then, through the launcher only (stock has no live progress): a write_file
// call whose last argument fragment is followed by the same silence; from
// that fragment's write to the first progress frame on its card that counts
// every argument byte.
//
//   npm run bench:held                  # full run (about 3 minutes)
//   node benchmark/held-frames.mjs --smoke   # one sample each, a short pause (CI: proves it runs)
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { listenOnLoopback } from '../devtools/loopback.mjs';
import { machine } from './machine.mjs';

const SMOKE = process.argv.includes('--smoke');
const PAUSE_MS = SMOKE ? 400 : 1500;
const RUNS = SMOKE ? 1 : 5;
const RELEASES = SMOKE ? ['0.24.4'] : ['0.24.4', '0.21.10'];
const PROVIDERS = ['anthropic', 'openai'];
const REPO = fileURLToPath(new URL('../', import.meta.url));
const launcher = path.join(REPO, 'bin', 'toolcall-stream-qwen.js');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---------------------------------------------------------------- provider bodies
const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-h', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/**
 * The steps of one answer: strings are written (one write each, 2 ms apart),
 * `{ pause }` is silence, `{ mark }` names the time of the write before it
 * (taken as `write()` returns: on loopback the bytes are in the socket). A text
 * answer (`mark` on its last chunk before the pause) or a write_file call
 * (`mark` on its last argument fragment).
 */
function answerSteps(provider, kind, { words = 40, callId, input } = {}) {
  const steps = [];
  const anthropic = provider === 'anthropic';
  if (anthropic)
    steps.push(
      sse('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_h',
          type: 'message',
          role: 'assistant',
          model: 'claude-replay',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      }),
    );
  if (kind === 'text') {
    if (anthropic)
      steps.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
      );
    const text = (t) =>
      anthropic
        ? sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } })
        : chunk({ content: t });
    for (let i = 0; i < words; i++) steps.push(text(`word${i} `));
    steps.push(text('MARKED-CHUNK '), { mark: 'marked' }, { pause: PAUSE_MS });
    for (let i = 0; i < 5; i++) steps.push(text(`after${i} `));
    if (anthropic)
      steps.push(
        sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
        sse('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn' },
          usage: { output_tokens: 9 },
        }),
        sse('message_stop', { type: 'message_stop' }),
      );
    else steps.push(chunk({}, 'stop'), 'data: [DONE]\n\n');
    return steps;
  }
  const json = JSON.stringify(input);
  const pieces = json.match(/[^]{1,200}/g);
  if (anthropic) {
    steps.push(
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: callId, name: 'write_file', input: {} },
      }),
    );
    for (const p of pieces)
      steps.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: p },
        }),
      );
  } else {
    steps.push(
      chunk({
        tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: 'write_file', arguments: '' } }],
      }),
    );
    for (const p of pieces) steps.push(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }));
  }
  steps.push({ mark: 'arguments' }, { pause: PAUSE_MS });
  if (anthropic)
    steps.push(
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
      sse('message_stop', { type: 'message_stop' }),
    );
  else steps.push(chunk({}, 'tool_calls'), 'data: [DONE]\n\n');
  return steps;
}

/** The text of the last user message Qwen sent (prompts are told apart by it). */
function lastUserText(body) {
  for (const m of [...(body.messages ?? [])].reverse()) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) return m.content.map((b) => b.text ?? '').join('\n');
  }
  return '';
}

/**
 * A loopback provider: a prompt naming a script (`script:<key>`) on its first
 * turn gets that script's steps; anything else (Qwen's own side requests,
 * the turn after a tool call) a short text answer. Marks are recorded.
 */
async function startProvider(scripts) {
  const marks = new Map();
  const server = http.createServer(async (req, res) => {
    const parts = [];
    for await (const c of req) parts.push(c);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
    const provider = req.url.endsWith('/messages') ? 'anthropic' : 'openai';
    const key = /script:(\S+)/.exec(lastUserText(body))?.[1];
    const firstTurn = !(body.messages ?? []).some((m) => m.role === 'assistant');
    const steps = key && firstTurn && scripts.has(key) ? scripts.get(key) : answerSteps(provider, 'text', { words: 3 });
    const scripted = steps !== undefined && key && firstTurn && scripts.has(key);
    if (provider === 'anthropic' && body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'msg_n',
          type: 'message',
          role: 'assistant',
          model: 'claude-replay',
          content: [{ type: 'text', text: 'Nothing to add.' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    let written;
    for (const step of steps) {
      if (res.destroyed) return;
      if (typeof step === 'string') {
        res.write(step);
        written = performance.now();
        await sleep(2);
      } else if (step.mark && scripted) marks.set(`${key}/${step.mark}`, written);
      else if (step.pause) await sleep(scripted ? step.pause : 0);
    }
    res.end();
  });
  return { ...(await listenOnLoopback(server)), marks };
}

/** write_file arguments with line breaks, about 12 KB. */
const writeInput = (dir, name) => ({
  file_path: path.join(dir, `${name}.txt`),
  content: Array.from({ length: 300 }, (_, i) => `line ${i} of the held-frames benchmark`).join('\n'),
});

/** One release and provider: the marked chunk's latency on each side, and the preload's card count latency. */
async function measure(version, provider, dir) {
  const scripts = new Map();
  const sides = ['stock', 'preload'];
  // One unmeasured answer per side first: the first prompt of a process loads and compiles what the others reuse.
  for (const side of sides)
    for (let i = -1; i < RUNS; i++) scripts.set(`text-${side}-${i}`, answerSteps(provider, 'text'));
  const inputs = [];
  for (let i = 0; i < RUNS; i++) {
    const input = writeInput(dir, `card-${version}-${provider}-${i}`);
    inputs.push(input);
    scripts.set(`card-${i}`, answerSteps(provider, 'call', { callId: `call_held_${i}`, input }));
  }
  const server = await startProvider(scripts);
  const qwen = {};
  const build = qwenBuildOrSkip(version);
  if (build.skip) throw new Error(build.skip);
  try {
    qwen.stock = await launchQwen({ version, provider, providerUrl: server.url, cwd: dir });
    qwen.preload = await launchQwen({
      version,
      provider,
      providerUrl: server.url,
      cwd: dir,
      command: launcher,
      permission: 'reject_once',
      env: {
        TOOLCALL_STREAM_QWEN_CLI: build.dir,
        XDG_CACHE_HOME: path.join(dir, 'cache'),
        TOOLCALL_STREAM_QWEN_PROGRESS: 'on',
      },
    });
    const latency = { stock: [], preload: [] };
    for (const side of sides) {
      const sessionId = await qwen[side].newSession(dir);
      await qwen[side].prompt(sessionId, `Answer script:text-${side}--1`);
    }
    for (let i = 0; i < RUNS; i++)
      for (const side of i % 2 ? [...sides].reverse() : sides) {
        const key = `text-${side}-${i}`;
        const q = qwen[side];
        const sessionId = await q.newSession(dir);
        await q.prompt(sessionId, `Answer script:${key}`);
        const shown = q
          .updates(sessionId)
          .find(
            (e) => e.update.sessionUpdate === 'agent_message_chunk' && e.update.content?.text?.includes('MARKED-CHUNK'),
          );
        if (!shown || !server.marks.has(`${key}/marked`)) throw new Error(`${side}: the marked chunk was not shown`);
        latency[side].push(shown.at - server.marks.get(`${key}/marked`));
      }
    const counted = [];
    for (let i = 0; i < RUNS; i++) {
      const q = qwen.preload;
      const sessionId = await q.newSession(dir);
      await q.prompt(sessionId, `Write it script:card-${i}`);
      const bytes = Buffer.byteLength(JSON.stringify(inputs[i]));
      const frame = q.updates(sessionId).find((e) => e.update._meta?.progress?.argumentBytes === bytes);
      const at = server.marks.get(`card-${i}/arguments`);
      if (!frame || at === undefined) throw new Error('no progress frame counted every argument byte');
      counted.push(frame.at - at);
    }
    return { stock: latency.stock, preload: latency.preload, counted };
  } finally {
    for (const side of sides) await qwen[side]?.close();
    await server.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-held-bench-'));
const rows = [];
let late = false;
try {
  console.log(`# the last chunk before a ${PAUSE_MS} ms pause: provider write → Qwen's response at the ACP client`);
  console.log(`# ${machine()}; ${RUNS} sample(s) per side; medians in ms\n`);
  console.log('| Qwen | provider | stock | launcher | card counts every byte (launcher) |');
  console.log('| --- | --- | ---: | ---: | ---: |');
  for (const version of RELEASES)
    for (const provider of PROVIDERS) {
      const r = await measure(version, provider, dir);
      const row = { version, provider, stock: median(r.stock), preload: median(r.preload), counted: median(r.counted) };
      rows.push(row);
      // Not a timing assertion: the two sides differ by milliseconds of noise,
      // but a frame held through the pause on one side and not on the other
      // differs by the whole pause.
      if (row.preload > row.stock + PAUSE_MS / 2) late = true;
      console.log(
        `| ${version} | ${provider} | ${row.stock.toFixed(1)} | ${row.preload.toFixed(1)} | ${row.counted.toFixed(1)} |`,
      );
    }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (late) {
  console.error('the launcher held the marked chunk through the pause where stock did not');
  process.exitCode = 1;
}
