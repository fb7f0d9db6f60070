// Live progress on preparing cards, at the library level: the real provider
// SDKs against a loopback HTTP server, the real converters (SDK objects and
// raw SSE bytes), consumeModelStream and PreparationTracker (with and
// without a host emitter). Every frame goes through a client model that
// checks the progress rules as it receives it: a progress frame only while
// its card is preparing, counts only (never a piece of an argument value),
// counts that never go down and never pass the complete arguments, one frame
// per card per interval, a stall announced after the stall time and then at
// most once per stall interval, the discard always a card's last frame, no
// timer left and no unhandled rejection.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { assertValidUpdate } from './acp-helpers.mjs';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  ToolCallCards,
  PreparationTracker,
  consumeModelStream,
  getToolCallProgress,
} = require('../index.js');
const Anthropic = require('@anthropic-ai/sdk').default;
const OpenAI = require('openai').default;

/** Short times, so the rules show within a test's run. */
const RATES = { intervalMs: 20, stallMs: 200, stallIntervalMs: 50 };
/** Longer than a stall's announcement: a frame still due would have come by then. */
const SETTLE_MS = RATES.stallMs + 2 * RATES.stallIntervalMs;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- process checks
const unhandled = [];
const onUnhandled = (reason) => unhandled.push(reason);
before(() => process.on('unhandledRejection', onUnhandled));
after(() => {
  process.off('unhandledRejection', onUnhandled);
  assert.deepEqual(unhandled, [], 'no unhandled rejection');
});

const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Runs `body` and asserts it left no timer and no unhandled rejection behind. */
async function leavesNothing(body) {
  const seen = unhandled.length;
  const timers = timeouts();
  const out = await body();
  await sleep(SETTLE_MS);
  assert.equal(timeouts(), timers, 'no timer left running');
  assert.equal(unhandled.length, seen, 'no unhandled rejection');
  return out;
}

// ---------------------------------------------------------------- arguments and SSE
/** Argument values made of words that occur nowhere in a frame, so any leaked piece is found. */
function writeArgs(lines, tag = 'quartz') {
  const content = Array.from({ length: lines }, (_, i) => `${tag}-${String(i).padStart(4, '0')} zebra lantern`).join(
    '\n',
  );
  return { file_path: `/srv/${tag}/notes-7f3a.txt`, content };
}

function cut(text, size) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const PING = sse('ping', { type: 'ping' });
const COMMENT = ': keep-alive\n\n';

/**
 * A provider body as a list of steps: a string is written, a number pauses
 * that many ms, `{ keepAlive, ms, every }` writes keep-alives during a pause,
 * `{ gate: n }` waits until the client has received n progress frames.
 * `calls`: [{ id, name, args (object), fragment, gapMs }], streamed one after another;
 * `gates`: after each of the first `gates` fragments, the provider waits for
 * the progress frame that shows it (see `gate`).
 */
function anthropicBody(calls, { pauseAt, pause, text, gates = 0 } = {}) {
  const steps = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (text) {
    steps.push(
      sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
    );
    steps.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    steps.push(sse('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  }
  for (const call of calls) {
    steps.push(
      sse('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    cut(JSON.stringify(call.args), call.fragment ?? 40).forEach((partial_json, i) => {
      if (pauseAt === i) steps.push(...pause);
      steps.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        }),
      );
      if (i < gates) steps.push({ gate: i + 1 });
      if (call.gapMs) steps.push(call.gapMs);
    });
    steps.push(sse('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  }
  steps.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 9 },
    }),
  );
  steps.push(sse('message_stop', { type: 'message_stop' }));
  return steps;
}

const openaiLine = (delta, finish = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

/**
 * OpenAI: the calls' fragments interleaved when `interleave`, else one call
 * after another; `lateName` sends a call's name only with its third fragment.
 */
function openaiBody(calls, { pauseAt, pause, interleave, text, gates = 0 } = {}) {
  const steps = [];
  if (text) steps.push(openaiLine({ role: 'assistant', content: text }));
  const pieces = calls.map((call) => cut(JSON.stringify(call.args), call.fragment ?? 40));
  const order = [];
  if (interleave) {
    const longest = Math.max(...pieces.map((p) => p.length));
    for (let i = 0; i < longest; i++) pieces.forEach((p, k) => i < p.length && order.push([k, i]));
  } else {
    pieces.forEach((p, k) => p.forEach((_, i) => order.push([k, i])));
  }
  let n = 0;
  for (const [k, i] of order) {
    const call = calls[k];
    if (pauseAt === n++) steps.push(...pause);
    const fn = { arguments: pieces[k][i] };
    const named = call.lateName ? i === 2 : i === 0;
    if (named) fn.name = call.name;
    const entry = { index: k, function: fn };
    if (i === 0) Object.assign(entry, { id: call.id, type: 'function' });
    steps.push(openaiLine({ tool_calls: [entry] }));
    if (n <= gates) steps.push({ gate: n });
    if (call.gapMs) steps.push(call.gapMs);
  }
  steps.push(openaiLine({}, 'tool_calls'));
  steps.push('data: [DONE]\n\n');
  return steps;
}

const bodyOf = (provider, calls, options) =>
  provider === 'anthropic' ? anthropicBody(calls, options) : openaiBody(calls, options);

/** A pause with keep-alives (the provider's kind) every `every` ms, then a silent one. */
const keepAlive = (provider, ms, every = 25) => ({
  keepAlive: provider === 'anthropic' ? PING : COMMENT,
  ms,
  every,
});

// ---------------------------------------------------------------- loopback provider
/**
 * The provider runs in a worker thread, so that its own pauses are not
 * timers of this thread: what is left running here after a stream is ours.
 * Each request takes the next script posted to it. A gate step waits (at
 * most GATE_MS) until `progressSeen` counts that many progress frames, so a
 * test of the counts does not depend on this thread being scheduled while
 * the bytes arrive: on a loaded machine a starved event loop reads a whole
 * timed stream at once, and no tick falls inside it.
 */
const GATE_MS = 5000;
const progressSeen = new Int32Array(new SharedArrayBuffer(4));
const PROVIDER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const seen = workerData.progressSeen;
async function gate(n) {
  for (let waited = 0; Atomics.load(seen, 0) < n && waited < ${GATE_MS}; waited += 5) await sleep(5);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const scripts = [];
const waiting = [];
parentPort.on('message', (steps) => (waiting.length ? waiting.shift()(steps) : scripts.push(steps)));
const next = () => (scripts.length ? scripts.shift() : new Promise((resolve) => waiting.push(resolve)));
const server = http.createServer(async (req, res) => {
  req.resume();
  const steps = await next();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (const step of steps) {
    if (res.destroyed) return;
    if (typeof step === 'string') res.write(step);
    else if (typeof step === 'number') await sleep(step);
    else if (step.gate) await gate(step.gate);
    else {
      for (let t = 0; t < step.ms && !res.destroyed; t += step.every) {
        res.write(step.keepAlive);
        await sleep(step.every);
      }
    }
  }
  res.end();
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;
let providerThread;
let baseUrl;
const serve = (steps) => {
  Atomics.store(progressSeen, 0, 0);
  providerThread.postMessage(steps);
};

before(async () => {
  providerThread = new Worker(PROVIDER, { eval: true, workerData: { progressSeen } });
  const [port] = await once(providerThread, 'message');
  baseUrl = `http://127.0.0.1:${port}`;
});
after(() => providerThread.terminate());

/**
 * One model stream from the loopback provider through the real SDK and a
 * converter: `mode` 'objects' feeds the SDK's events / chunks, 'bytes' the
 * raw body. Yields Qwen's StreamEvents; `responses` collects what the
 * converter yielded, for comparing runs.
 */
async function* modelStream(provider, mode, steps, { signal, responses = [] } = {}) {
  serve(steps);
  const converter = provider === 'anthropic' ? new AnthropicConverter() : new OpenAIConverter();
  const request =
    provider === 'anthropic'
      ? new Anthropic({ apiKey: 'k', baseURL: baseUrl, maxRetries: 0 }).messages.create(
          { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'go' }], stream: true },
          { signal },
        )
      : new OpenAI({ apiKey: 'k', baseURL: `${baseUrl}/v1`, maxRetries: 0 }).chat.completions.create(
          { model: 'm', messages: [{ role: 'user', content: 'go' }], stream: true },
          { signal },
        );
  const push =
    mode === 'bytes'
      ? (bytes) => converter.pushBytes(bytes)
      : provider === 'anthropic'
        ? (event) => converter.pushEvent(event)
        : (chunk) => converter.pushChunk(chunk);
  const source = mode === 'bytes' ? (await request.asResponse()).body : await request;
  for await (const input of source) {
    for (const r of [push(input)].flat()) {
      if (!r) continue;
      responses.push(comparable(r));
      yield { type: 'chunk', value: r };
    }
  }
  for (const r of converter.end()) {
    responses.push(comparable(r));
    yield { type: 'chunk', value: r };
  }
}

/** A response as JSON, without its creation time (the clock's, not the stream's). */
const comparable = (response) => JSON.stringify({ ...response, createTime: undefined });

// ---------------------------------------------------------------- the client
const isProgress = (u) => u.sessionUpdate === 'tool_call_update' && u._meta?.progress !== undefined;

/** Every 8-character piece of every string value in `args`. */
function pieces(args) {
  const out = new Set();
  const walk = (v) => {
    if (typeof v === 'string') for (let i = 0; i + 8 <= v.length; i++) out.add(v.slice(i, i + 8));
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(args);
  return out;
}

/**
 * What a client sees, checked frame by frame: a progress frame only for a
 * card it was shown as preparing (its send settled) and not closed since,
 * of the progress frame's shape, counts that never go down.
 * `args`: callId → the complete arguments object.
 */
class Client {
  frames = [];
  failures = [];
  /** callId → 'sending' | 'preparing' | 'closed' */
  state = new Map();
  progress = new Map();
  constructor(args = {}) {
    this.args = args;
  }
  /** A send: records at call time, marks the preparing card shown once it settles. */
  send = (update) => this.receive(update);
  /**
   * A failed check is kept as well as thrown: a failing progress send is
   * only reported to onError, so the rules are asserted again at the end.
   */
  receive(update) {
    try {
      this.#receive(update);
    } catch (err) {
      this.failures.push(err);
      throw err;
    }
  }
  #receive(update) {
    assertValidUpdate(update);
    const at = performance.now();
    this.frames.push({ update, at });
    const id = update.toolCallId;
    if (update.sessionUpdate === 'tool_call') {
      this.state.set(id, update._meta?.phase === 'preparing' ? 'preparing' : 'closed');
    } else if (isProgress(update)) {
      Atomics.add(progressSeen, 0, 1);
      assert.equal(this.state.get(id), 'preparing', `a progress frame for ${id} while it is ${this.state.get(id)}`);
      this.#checkProgress(update, at);
    } else if (update.sessionUpdate === 'tool_call_update') {
      this.state.set(id, 'closed');
    }
  }
  /** The host showed a permission request for the card: no progress after it. */
  permission(toolCall) {
    this.state.set(toolCall.toolCallId, 'closed');
  }
  #checkProgress(update, at) {
    assert.deepEqual(Object.keys(update), ['sessionUpdate', 'toolCallId', 'title', '_meta']);
    assert.equal(typeof update.title, 'string');
    // An update carries what changes: nothing the preparing tool_call gave the card rides along
    // (core/src/acp/progress.rs).
    const { phase, progress, ...rest } = update._meta;
    assert.deepEqual(rest, {});
    assert.equal(phase, 'preparing');
    const keys = ['argumentBytes', 'argumentLines', 'elapsedMs', 'idleMs'];
    // A stall names the host's idle limit when it has one (core/src/acp/progress.rs IdleDeadline).
    const stalledKeys = 'idleLimitMs' in progress ? [...keys, 'stalled', 'idleLimitMs'] : [...keys, 'stalled'];
    assert.deepEqual(Object.keys(progress), progress.stalled === undefined ? keys : stalledKeys);
    for (const k of keys) assert.ok(Number.isInteger(progress[k]) && progress[k] >= 0, `${k} ${progress[k]}`);
    if (progress.stalled !== undefined) assert.ok(['model', 'connection'].includes(progress.stalled));
    const list = this.progress.get(update.toolCallId) ?? [];
    const previous = list.at(-1)?.progress;
    if (previous) {
      assert.ok(progress.argumentBytes >= previous.argumentBytes, 'argumentBytes never go down');
      assert.ok(progress.argumentLines >= previous.argumentLines, 'argumentLines never go down');
    }
    list.push({ progress, at, update });
    this.progress.set(update.toolCallId, list);
  }
  progressOf(id) {
    return (this.progress.get(id) ?? []).map((p) => p.progress);
  }
  framesOf(id) {
    return this.frames.map((f) => f.update).filter((u) => u.toolCallId === id);
  }
  /** The rules over the whole run, for each card that got progress. */
  assertRules({
    intervalMs = RATES.intervalMs,
    stallMs = RATES.stallMs,
    stallIntervalMs = RATES.stallIntervalMs,
  } = {}) {
    assert.deepEqual(this.failures, [], 'every frame passed the checks');
    for (const [id, list] of this.progress) {
      const args = this.args[id];
      assert.ok(args, `the test knows the arguments of ${id}`);
      const complete = Buffer.byteLength(JSON.stringify(args));
      assert.ok(list.at(-1).progress.argumentBytes <= complete, `${id}: last argumentBytes above ${complete}`);
      const secret = pieces(args);
      for (const { update } of list) {
        const text = JSON.stringify(update);
        for (let i = 0; i + 8 <= text.length; i++) {
          assert.ok(!secret.has(text.slice(i, i + 8)), `${id}: a progress frame shows "${text.slice(i, i + 8)}"`);
        }
      }
      for (let i = 1; i < list.length; i++) {
        // The timer's jitter allowance of lib/acp/progress.js, and a little more.
        assert.ok(list[i].at - list[i - 1].at >= intervalMs * 0.9, `${id}: two frames within one interval`);
        const [a, b] = [list[i - 1].progress, list[i].progress];
        if (a.stalled && a.stalled === b.stalled) {
          assert.ok(
            list[i].at - list[i - 1].at >= stallIntervalMs * 0.9,
            `${id}: a stall repeated within its interval`,
          );
        }
      }
      for (const { progress } of list) if (progress.stalled) assert.ok(progress.idleMs >= stallMs);
    }
  }
}

const progressOptions = (extra = {}) => ({ ...RATES, ...extra });

/** A C0 or C1 control, or a bidirectional formatting character: what no title shows. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * The frames of a card whose tool name is `name` (far longer than any real
 * one): each a few hundred bytes however long the name, all of them together
 * less than the name once, every title printable, every name the same cut.
 */
function assertBoundedFrames(frames, name) {
  let total = 0;
  for (const update of frames) {
    const bytes = Buffer.byteLength(JSON.stringify(update));
    assert.ok(bytes < 2048, `a ${bytes}-byte ${update.sessionUpdate}`);
    total += bytes;
    if (update.title !== undefined) assert.doesNotMatch(update.title, UNPRINTABLE);
    for (const shown of [update.name, update._meta?.toolName, update._meta?.tool_name]) {
      if (shown !== undefined) assert.equal(shown, `${name.slice(0, 119)}…`);
    }
  }
  assert.ok(total < 256 << 10, `${total} bytes in ${frames.length} frames`);
}

// ---------------------------------------------------------------- the scenarios
const PROVIDERS = ['anthropic', 'openai'];

for (const provider of PROVIDERS) {
  const id = provider === 'anthropic' ? 'toolu_01Write' : 'call_write';

  describe(`live progress through consumeModelStream: ${provider}`, () => {
    for (const mode of ['objects', 'bytes']) {
      it(`counts a streaming card up within the rules, and the responses are unchanged (${mode})`, async () => {
        const args = writeArgs(40);
        const calls = [{ id, name: 'write_file', args, gapMs: 8 }];
        const client = new Client({ [id]: args });
        const withProgress = [];
        const result = await leavesNothing(() =>
          consumeModelStream(
            modelStream(provider, mode, bodyOf(provider, calls, { text: 'Writing.', gates: 4 }), {
              responses: withProgress,
            }),
            {
              cards: new ToolCallCards(),
              send: client.send,
              progress: progressOptions(),
            },
          ),
        );
        assert.deepEqual(
          result.functionCalls.map((c) => [c.id, c.args]),
          [[id, args]],
        );
        const progress = client.progressOf(id);
        assert.ok(progress.length >= 3, `progress frames: ${progress.length}`);
        assert.ok(new Set(progress.map((p) => p.argumentBytes)).size >= 3, 'the count changes while bytes arrive');
        assert.ok(progress.at(-1).argumentLines > 0, 'line breaks counted');
        for (const p of progress) assert.equal(p.stalled, undefined, 'no stall while bytes arrive');
        for (const f of client.progress.get(id)) assert.match(f.update.title, /^write_file · receiving [\d.]+ (B|KB)/);
        client.assertRules();
        // Nothing executes early: the card is still preparing until the host starts it.
        const frames = client.framesOf(id);
        assert.deepEqual(
          frames.filter((u) => !isProgress(u)).map((u) => `${u.sessionUpdate}:${u.status}`),
          ['tool_call:pending'],
        );
        // The same stream without progress: the same responses, no new Part.
        const without = [];
        await consumeModelStream(
          modelStream(provider, mode, bodyOf(provider, calls, { text: 'Writing.' }), { responses: without }),
          {
            cards: new ToolCallCards(),
            send: () => {},
          },
        );
        assert.deepEqual(withProgress, without);
      });
    }

    it('announces a stall: the model while keep-alives arrive, the connection when nothing does', async () => {
      const args = writeArgs(20);
      const calls = [{ id, name: 'write_file', args, gapMs: 5 }];
      const pause = [keepAlive(provider, 450), 450];
      const client = new Client({ [id]: args });
      // The raw body: both SDKs drop keep-alives (Anthropic's ping events, OpenAI's SSE comments).
      const mode = 'bytes';
      await leavesNothing(() =>
        consumeModelStream(modelStream(provider, mode, bodyOf(provider, calls, { pauseAt: 3, pause })), {
          cards: new ToolCallCards(),
          send: client.send,
          progress: progressOptions(),
        }),
      );
      client.assertRules();
      const progress = client.progressOf(id);
      const model = progress.findIndex((p) => p.stalled === 'model');
      const connection = progress.findIndex((p) => p.stalled === 'connection');
      assert.ok(model >= 0, 'the pause with keep-alives is the model');
      assert.ok(connection > model, 'then the silent pause is the connection');
      assert.ok(progress.filter((p) => p.stalled === 'model').length >= 2, 'a stall is repeated while it lasts');
      const titles = client.progress.get(id).map((f) => f.update.title);
      assert.match(titles[model], /^write_file · waiting for the model, \d+ s$/);
      assert.match(titles[connection], /^write_file · no data from the provider, \d+ s$/);
      assert.ok(
        progress.slice(connection).some((p) => p.stalled === undefined),
        'the count goes on after the pause',
      );
    });

    it("a stall names the host's idle limit, given as a progress option", async () => {
      const args = writeArgs(20);
      const calls = [{ id, name: 'write_file', args, gapMs: 5 }];
      const pause = [keepAlive(provider, 450), 450];
      const client = new Client({ [id]: args });
      await leavesNothing(() =>
        consumeModelStream(modelStream(provider, 'bytes', bodyOf(provider, calls, { pauseAt: 3, pause })), {
          cards: new ToolCallCards(),
          send: client.send,
          progress: progressOptions({ idleLimitMs: 240_000, hostName: 'Qwen' }),
        }),
      );
      client.assertRules();
      const frames = client.progress.get(id).map((f) => f.update);
      const stalled = frames.filter((f) => f._meta.progress.stalled);
      assert.ok(stalled.some((f) => f._meta.progress.stalled === 'model'));
      assert.ok(stalled.some((f) => f._meta.progress.stalled === 'connection'));
      for (const f of stalled) {
        assert.match(
          f.title,
          /^write_file · (waiting for the model|no data from the provider), \d+ s \(Qwen gives up at 240 s\)$/,
        );
        assert.equal(f._meta.progress.idleLimitMs, 240_000);
      }
      for (const f of frames.filter((f) => !f._meta.progress.stalled)) {
        assert.equal('idleLimitMs' in f._meta.progress, false, 'no deadline while bytes arrive');
        assert.doesNotMatch(f.title, /gives up/);
      }
    });

    it('no frame for a suppressed card, and none before a card whose frame is slow to send', async () => {
      const args = writeArgs(30);
      const todo = { todos: [{ id: '1', content: 'secretive-todo-item', status: 'pending' }] };
      const todoId = `${id}_todo`;
      const calls = [
        { id: todoId, name: 'todo_write', args: todo, fragment: 8, gapMs: 8 },
        { id, name: 'write_file', args, gapMs: 8 },
      ];
      const client = new Client({ [id]: args, [todoId]: todo });
      const pending = new Set();
      // The preparing frame takes 80 ms to go out: no progress before it has.
      const send = async (update) => {
        if (update.sessionUpdate === 'tool_call') {
          client.state.set(update.toolCallId, 'sending');
          assertValidUpdate(update);
          pending.add(update.toolCallId);
          await sleep(80);
          pending.delete(update.toolCallId);
          client.frames.push({ update, at: performance.now() });
          client.state.set(update.toolCallId, 'preparing');
          return;
        }
        client.receive(update);
      };
      await leavesNothing(() =>
        consumeModelStream(modelStream(provider, 'objects', bodyOf(provider, calls)), {
          cards: new ToolCallCards(),
          send,
          progress: progressOptions(),
        }),
      );
      assert.deepEqual(client.framesOf(todoId), [], 'todo_write never gets a card');
      assert.ok(client.progressOf(id).length >= 2);
      client.assertRules();
    });

    it('a 4 MiB hostile tool name, with keep-alives: every frame small, titles printable, names cut', async () => {
      const name = `\u001b[31m\u202eevil\r\nname\u2066\u0085${'x'.repeat(4 << 20)}`;
      const args = writeArgs(20);
      const calls = [{ id, name, args, gapMs: 5 }];
      const client = new Client({ [id]: args });
      const result = await leavesNothing(() =>
        consumeModelStream(
          modelStream(
            provider,
            'bytes',
            bodyOf(provider, calls, { gates: 2, pauseAt: 3, pause: [keepAlive(provider, 600)] }),
          ),
          { cards: new ToolCallCards(), send: client.send, progress: progressOptions() },
        ),
      );
      // Each frame passed the client's checks. (The timing rules are the other tests': here every
      // tick reads the converter's snapshot, which names the call by its whole 4 MiB name, so the
      // delivery times jitter by that much.)
      assert.deepEqual(client.failures, []);
      // The response keeps the name the model sent: only the frames bound it.
      assert.equal(result.functionCalls[0].name, name);
      const frames = client.framesOf(id);
      assert.ok(client.progressOf(id).length >= 3, `${client.progressOf(id).length} progress frames`);
      assertBoundedFrames(frames, name);
      const [opened] = frames;
      assert.equal(opened.sessionUpdate, 'tool_call');
      assert.equal(opened.name, `${name.slice(0, 119)}…`);
      assert.equal(opened.title, `[31mevil  name ${'x'.repeat(104)}…`);
      for (const update of frames.filter(isProgress)) assert.match(update.title, /^\[31mevil {2}name x{104}… · /);
    });

    it('ids reused in history are normalised, and the normalised card counts its own call', async () => {
      const args = writeArgs(25);
      const calls = [{ id, name: 'write_file', args, gapMs: 8 }];
      const dup = `${id}__qwen_dup_2`;
      const client = new Client({ [dup]: args });
      const result = await leavesNothing(() =>
        consumeModelStream(modelStream(provider, 'bytes', bodyOf(provider, calls)), {
          cards: new ToolCallCards(),
          send: client.send,
          historyIds: [id],
          progress: progressOptions(),
        }),
      );
      assert.equal(result.functionCalls[0].id, dup);
      assert.deepEqual(client.framesOf(id), []);
      assert.ok(client.progressOf(dup).length >= 2, 'the normalised card counts up');
      client.assertRules();
    });

    it('one huge fragment and one byte at a time both stay within the rules', async () => {
      const big = writeArgs(400, 'huge');
      const small = writeArgs(3, 'tiny');
      const client = new Client({ [`${id}_big`]: big, [`${id}_small`]: small });
      await leavesNothing(() =>
        consumeModelStream(
          modelStream(
            provider,
            'bytes',
            bodyOf(provider, [
              { id: `${id}_big`, name: 'write_file', args: big, fragment: 1e6, gapMs: 60 },
              { id: `${id}_small`, name: 'write_file', args: small, fragment: 1, gapMs: 1 },
            ]),
          ),
          { cards: new ToolCallCards(), send: client.send, progress: progressOptions() },
        ),
      );
      const [last] = client.progressOf(`${id}_big`).slice(-1);
      assert.equal(last.argumentBytes, Buffer.byteLength(JSON.stringify(big)), 'one fragment: all of it, at once');
      assert.ok(client.progressOf(`${id}_small`).length >= 2);
      client.assertRules();
    });

    for (const [end, what] of [
      ['retry', 'a retry'],
      ['model_fallback', 'a model fallback'],
      ['stream error', 'a thrown stream error'],
      ['abort', 'an aborted signal'],
    ]) {
      it(`${what} in the middle of a progressing card: its discard is its last frame, and no timer is left`, async () => {
        const args = writeArgs(60);
        const calls = [{ id, name: 'write_file', args, gapMs: 10 }];
        const client = new Client({ [id]: args });
        const controller = new AbortController();
        const transport = new AbortController();
        let seen = 0;
        let third;
        const thirdFrame = new Promise((resolve) => (third = resolve));
        const send = async (update) => {
          client.receive(update);
          if (!isProgress(update)) return;
          if (++seen === 3) third();
          // A slow transport for progress frames: the end arrives while one is in flight.
          await sleep(15);
        };
        // The end comes in the middle of the arguments, whenever the third progress frame went out.
        async function* events() {
          const source = modelStream(provider, 'objects', bodyOf(provider, calls), { signal: transport.signal })[
            Symbol.asyncIterator
          ]();
          for (;;) {
            const next = source.next();
            const step = await Promise.race([next, thirdFrame.then(() => null)]);
            if (step === null) {
              // The attempt is abandoned as Qwen abandons it: its converter keeps the open call
              // (the request is released once the test has looked).
              next.catch(() => {});
              if (end === 'abort') return void controller.abort();
              if (end === 'stream error') throw new Error('socket hang up');
              yield { type: end };
              return;
            }
            if (step.done) return;
            yield step.value;
          }
        }
        const run = leavesNothing(() =>
          consumeModelStream(events(), {
            cards: new ToolCallCards(),
            send,
            signal: controller.signal,
            progress: progressOptions(),
          }),
        );
        if (end === 'stream error') await assert.rejects(run, /socket hang up/);
        else {
          const result = await run;
          assert.deepEqual(result.functionCalls, []);
          if (end === 'abort') assert.equal(result.cancelled, true);
        }
        await sleep(600);
        transport.abort();
        const frames = client.framesOf(id);
        assert.ok(client.progressOf(id).length >= 3);
        assert.equal(frames.at(-1)._meta.preparationDiscarded, true, 'the discard is the last frame');
        assert.equal(frames.filter((u) => u._meta?.preparationDiscarded).length, 1);
        client.assertRules();
      });
    }

    it('a send that fails or is slow: reported to onError, fewer frames, never a queue, no unhandled rejection', async () => {
      const args = writeArgs(40);
      const calls = [{ id, name: 'write_file', args, gapMs: 8 }];
      const errors = [];
      const client = new Client({ [id]: args });
      let inFlight = 0;
      let n = 0;
      const progressSend = async (update) => {
        assert.equal(inFlight, 0, 'one progress frame in flight at a time');
        inFlight++;
        client.receive(update);
        try {
          await sleep(60);
          if (++n % 2 === 1) throw new Error(`transport down ${n}`);
        } finally {
          inFlight--;
        }
      };
      const result = await leavesNothing(() =>
        consumeModelStream(modelStream(provider, 'objects', bodyOf(provider, calls)), {
          cards: new ToolCallCards(),
          send: client.send,
          progress: progressOptions({ send: progressSend, onError: (e) => errors.push(e.message) }),
        }),
      );
      assert.equal(result.functionCalls.length, 1);
      assert.ok(n >= 2, `progress frames: ${n}`);
      assert.deepEqual(
        errors,
        Array.from({ length: Math.ceil(n / 2) }, (_, i) => `transport down ${2 * i + 1}`),
      );
      client.assertRules();
      // A send that throws synchronously is reported the same way.
      const thrown = [];
      await leavesNothing(() =>
        consumeModelStream(modelStream(provider, 'objects', bodyOf(provider, calls)), {
          cards: new ToolCallCards(),
          send: () => {},
          progress: progressOptions({
            send: () => {
              throw new Error('sync failure');
            },
            onError: (e) => thrown.push(e.message),
          }),
        }),
      );
      assert.ok(thrown.length >= 1 && thrown.every((m) => m === 'sync failure'));
    });

    it('a wall clock that jumps changes nothing: no stall, elapsed time from the monotonic clock', async () => {
      const args = writeArgs(40);
      const calls = [{ id, name: 'write_file', args, gapMs: 8 }];
      const client = new Client({ [id]: args });
      const realNow = Date.now;
      // A minute forward at every reading, as a clock that is being corrected.
      let shift = 0;
      Date.now = () => realNow() + (shift += 60_000);
      const started = performance.now();
      try {
        await leavesNothing(() =>
          consumeModelStream(modelStream(provider, 'objects', bodyOf(provider, calls)), {
            cards: new ToolCallCards(),
            send: client.send,
            progress: progressOptions(),
          }),
        );
      } finally {
        Date.now = realNow;
      }
      const took = performance.now() - started;
      const progress = client.progressOf(id);
      assert.ok(progress.length >= 2);
      for (const p of progress) {
        assert.equal(p.stalled, undefined);
        assert.ok(p.elapsedMs <= took && p.idleMs <= took);
      }
      client.assertRules();
    });
  });

  describe(`live progress through PreparationTracker: ${provider}`, () => {
    /**
     * Feeds a stream through a tracker by hand, as a host with its own loop does; the raw
     * body, so a card's first argument bytes come in the read that opens it.
     */
    async function drive(steps, onChunk) {
      for await (const event of modelStream(provider, 'bytes', steps)) await onChunk(event.value);
    }

    it('without an emitter: progress only after sent(), none after the card starts, asks permission or fails', async () => {
      for (const ending of ['started', 'permission', 'failed']) {
        const args = writeArgs(60);
        const client = new Client({ [id]: args });
        const cards = new ToolCallCards();
        const tracker = new PreparationTracker(cards, { progress: { ...RATES, send: client.send } });
        let progressBeforeEnd = 0;
        // The host moves the card on while its arguments still stream.
        const moveOn = async () => {
          while (client.progressOf(id).length < 2) await sleep(2);
          progressBeforeEnd = client.progressOf(id).length;
          const call = { callId: id, toolName: 'write_file', rawInput: args };
          if (ending === 'started') client.send(cards.started(call));
          else if (ending === 'failed') client.send(cards.failed(id, 'write_file', 'no'));
          else client.permission(cards.permission(call, []));
          movedEarly = !callArrived;
        };
        let moved;
        let callArrived = false;
        let movedEarly = false;
        await leavesNothing(async () => {
          await drive(bodyOf(provider, [{ id, name: 'write_file', args, gapMs: 10 }]), async (response) => {
            for (const frame of tracker.observe(response)) {
              // Sent late: nothing may come before.
              await sleep(RATES.intervalMs * 3);
              assert.equal(client.progressOf(id).length, 0, 'no progress before sent()');
              client.send(frame);
              tracker.sent(frame);
              moved = moveOn();
            }
            if (response.functionCalls) callArrived = true;
          });
          await moved;
          tracker.discard();
        });
        assert.ok(movedEarly, 'the card moved on while its arguments streamed');
        assert.ok(progressBeforeEnd >= 2, `${ending}: progress before`);
        assert.equal(client.progressOf(id).length, progressBeforeEnd, `${ending}: no progress after`);
        assert.equal(tracker.progressRunning, false);
        client.assertRules();
      }
    });

    it('with an emitter: progress once emitStart answered truthy, to emitPreparationProgress; none for a declined card', async () => {
      const args = writeArgs(40);
      const declinedArgs = writeArgs(40, 'declined');
      const declined = `${id}_no`;
      const client = new Client({ [id]: args, [declined]: declinedArgs });
      const params = [];
      let tracker;
      const emitter = {
        async emitStart(p) {
          if (p.callId === declined) return false;
          const frame = tracker.frame;
          await sleep(RATES.intervalMs * 3);
          client.send(frame);
          return true;
        },
        emitPreparationDiscarded() {
          client.send(tracker.frame);
        },
        emitPreparationProgress(p) {
          params.push(p);
          client.send(tracker.frame);
        },
      };
      const cards = new ToolCallCards({ suppressedTools: [] });
      tracker = new PreparationTracker(cards, { emitter, progress: RATES });
      await leavesNothing(async () => {
        await drive(
          bodyOf(provider, [
            { id: declined, name: 'write_file', args: declinedArgs, gapMs: 8 },
            { id, name: 'write_file', args, gapMs: 8 },
          ]),
          (response) => tracker.observe(response),
        );
        await tracker.discard();
      });
      assert.deepEqual(client.framesOf(declined), []);
      const progress = client.progress.get(id);
      assert.ok(progress.length >= 2);
      assert.deepEqual(
        params.map((p) => [p.callId, p.toolName, p.title, p.progress]),
        progress.map((f) => [id, 'write_file', f.update.title, f.update._meta.progress]),
      );
      // The call never resolved here: the discard ends the card.
      assert.equal(client.framesOf(id).at(-1)._meta.preparationDiscarded, true);
      client.assertRules();
    });

    it('with an emitter without emitPreparationProgress: frames go to progress.send; discard() leaves no timer', async () => {
      const args = writeArgs(40);
      const client = new Client({ [id]: args });
      let tracker;
      const emitter = {
        emitStart: () => (client.send(tracker.frame), true),
        emitPreparationDiscarded: () => client.send(tracker.frame),
      };
      tracker = new PreparationTracker(new ToolCallCards(), { emitter, progress: { ...RATES, send: client.send } });
      await leavesNothing(async () => {
        let discarded = false;
        await drive(bodyOf(provider, [{ id, name: 'write_file', args, gapMs: 8 }]), async (response) => {
          if (discarded) return;
          await tracker.observe(response);
          if (client.progressOf(id).length >= 2) {
            discarded = true;
            await tracker.discard(true);
            assert.equal(tracker.progressRunning, false, 'the timer is gone at once');
          }
        });
      });
      assert.ok(client.progressOf(id).length >= 2);
      assert.equal(client.framesOf(id).at(-1)._meta.preparationDiscarded, true);
      client.assertRules();
    });
  });
}

describe('live progress: OpenAI calls side by side', () => {
  it('two calls progressing at once each count their own arguments; a name that arrives late', async () => {
    const a = writeArgs(30, 'alpha');
    const b = writeArgs(60, 'bravo');
    const client = new Client({ call_a: a, call_b: b });
    await leavesNothing(() =>
      consumeModelStream(
        modelStream(
          'openai',
          'bytes',
          openaiBody(
            [
              { id: 'call_a', name: 'write_file', args: a, gapMs: 5 },
              { id: 'call_b', name: 'edit', args: b, gapMs: 5, lateName: true },
            ],
            { interleave: true },
          ),
        ),
        { cards: new ToolCallCards(), send: client.send, progress: progressOptions() },
      ),
    );
    const [pa, pb] = [client.progressOf('call_a'), client.progressOf('call_b')];
    assert.ok(pa.length >= 2 && pb.length >= 2, `${pa.length} ${pb.length}`);
    // Interleaved: the two counts are apart once call_a's arguments are complete.
    assert.ok(pb.at(-1).argumentBytes > pa.at(-1).argumentBytes);
    client.assertRules();
  });
});

// ---------------------------------------------------------------- split invariance
describe('live progress: any split of the bytes', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: random reads never change the rules or the responses`, async () => {
      const id = provider === 'anthropic' ? 'toolu_split' : 'call_split';
      const args = writeArgs(30, 'split');
      const body = Buffer.from(bodyOf(provider, [{ id, name: 'write_file', args, fragment: 17 }]).join(''));
      const reference = [];
      const c0 = provider === 'anthropic' ? new AnthropicConverter() : new OpenAIConverter();
      for (const r of [...c0.pushBytes(body), ...c0.end()]) reference.push(comparable(r));
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 40 }),
          async (cuts) => {
            const at = [0, ...cuts.sort((x, y) => x - y), body.length];
            const client = new Client({ [id]: args });
            const responses = [];
            async function* events() {
              const c = provider === 'anthropic' ? new AnthropicConverter() : new OpenAIConverter();
              for (let i = 1; i < at.length; i++) {
                for (const r of c.pushBytes(body.subarray(at[i - 1], at[i]))) {
                  responses.push(comparable(r));
                  yield { type: 'chunk', value: r };
                }
                await sleep(3);
              }
              for (const r of c.end()) {
                responses.push(comparable(r));
                yield { type: 'chunk', value: r };
              }
            }
            const timers = timeouts();
            await consumeModelStream(events(), {
              cards: new ToolCallCards(),
              send: client.send,
              progress: { ...RATES, intervalMs: 10 },
            });
            assert.equal(timeouts(), timers, 'no timer left running');
            assert.deepEqual(responses, reference);
            client.assertRules({ intervalMs: 10 });
          },
        ),
        { numRuns: 30 },
      );
    });
  }
});

// ---------------------------------------------------------------- converter level
describe('argumentProgress / getToolCallProgress: exact counts', () => {
  /** Bytes and line breaks (`\n` escapes: the values hold no other backslash) of a text. */
  const counts = (text) => ({
    argumentBytes: Buffer.byteLength(text),
    argumentLines: text.split('\\n').length - 1,
  });
  // Multi-byte characters, so bytes and characters differ.
  const args = { file_path: '/srv/ünïcode/notes.txt', content: 'ligne — un\nzwei ✓\n三\n' + 'x'.repeat(50) };
  const text = JSON.stringify(args);

  for (const provider of PROVIDERS) {
    for (const mode of ['objects', 'bytes']) {
      it(`${provider}, ${mode}: bytes and lines exact after every fragment`, () => {
        const id = provider === 'anthropic' ? 'toolu_count' : 'call_count';
        const frags = cut(text, 7);
        const body = bodyOf(provider, [{ id, name: 'write_file', args, fragment: 7 }]);
        const converter = provider === 'anthropic' ? new AnthropicConverter() : new OpenAIConverter();
        const push = (step) => {
          if (mode === 'bytes') return converter.pushBytes(Buffer.from(step));
          return step
            .split('\n\n')
            .filter(Boolean)
            .flatMap((event) => {
              const data = JSON.parse(event.slice(event.indexOf('data: ') + 6));
              return provider === 'anthropic' ? converter.pushEvent(data) : converter.pushChunk(data);
            });
        };
        let opened;
        let sent = '';
        let fragment = 0;
        for (const step of body) {
          if (step === 'data: [DONE]\n\n') {
            if (mode === 'bytes') push(step);
            continue;
          }
          const out = [push(step)].flat().filter(Boolean);
          opened ??= out.find((r) => getToolCallProgress(r) !== null);
          if (step.includes('"input_json_delta"') || (provider === 'openai' && step.includes('"tool_calls":[{'))) {
            sent += frags[fragment++];
            const progress = converter.argumentProgress();
            assert.deepEqual(progress.calls, [{ callId: id, toolName: 'write_file', ...counts(sent) }]);
            assert.deepEqual(getToolCallProgress(opened), progress);
          }
        }
        assert.equal(sent, text);
        assert.ok(converter.argumentProgress().received > fragment);
        converter.end();
        assert.deepEqual(converter.argumentProgress().calls, []);
      });
    }
  }

  it('one byte at a time through pushBytes: the counts follow every argument byte', () => {
    const id = 'toolu_bytewise';
    const body = Buffer.from(anthropicBody([{ id, name: 'write_file', args, fragment: 3 }]).join(''));
    const converter = new AnthropicConverter();
    let last = { argumentBytes: 0, argumentLines: 0 };
    for (let i = 0; i < body.length; i++) {
      converter.pushBytes(body.subarray(i, i + 1));
      const [call] = converter.argumentProgress().calls;
      if (!call) continue;
      assert.ok(call.argumentBytes >= last.argumentBytes && call.argumentLines >= last.argumentLines);
      last = call;
    }
    assert.deepEqual({ argumentBytes: last.argumentBytes, argumentLines: last.argumentLines }, counts(text));
  });

  it('a response no converter made, or one without preparations, has no progress', () => {
    assert.equal(getToolCallProgress({}), null);
    const converter = new AnthropicConverter();
    const [start] = converter.pushEvent({
      type: 'message_start',
      message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1 } },
    });
    assert.equal(start === undefined ? null : getToolCallProgress(start), null);
  });
});

describe("the host's idle limit as a progress option", () => {
  const isInvalid = (err) => err?.code === 'INVALID_ARGUMENT';
  it('is a positive whole number of milliseconds, and the host a non-empty name', () => {
    const cards = new ToolCallCards();
    for (const bad of [0, -1, 1.5, Number.NaN, '240000', 2 ** 31]) {
      assert.throws(
        () => new PreparationTracker(cards, { progress: { idleLimitMs: bad, send: () => {} } }),
        isInvalid,
        String(bad),
      );
    }
    for (const bad of ['', '   ', 7]) {
      assert.throws(
        () => new PreparationTracker(cards, { progress: { idleLimitMs: 1000, hostName: bad, send: () => {} } }),
        isInvalid,
      );
    }
    new PreparationTracker(cards, { progress: { idleLimitMs: 240_000, hostName: 'Qwen', send: () => {} } });
  });
});
