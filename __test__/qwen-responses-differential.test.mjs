// Qwen Code's OpenAI Responses generator (0.23.3 and 0.24.4, one per code
// variant), stock against the same generator with toolcall-stream/qwen
// installed, each in its own process, over loopback HTTP: every response
// Qwen's callers see (its JSON text, key order included, and Qwen's own
// getters), what a caller that keeps them sees at the end, and the error
// each stream ends with (class, name, message, type, code, status) are the
// same. The streams: the Responses corpus (__test__/fixtures/providers/openai-responses/streams),
// each piece written on its own, and random streams (random events, random
// framing, arguments cut or malformed, bodies split at random bytes, a
// dropped connection), and Qwen's idle and lifetime guards and an abort met
// mid-stream. With the preload, every stream was converted natively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const runner = path.join(here, 'helpers', 'qwen-run-responses.mjs');
const streamsDir = path.join(here, 'fixtures', 'providers', 'openai-responses', 'streams');

/** The corpus as body pieces: an event as Qwen's provider frames it, `__raw__` as it is, `__cut__` a drop. */
function corpusCases() {
  if (!fs.existsSync(streamsDir)) return [];
  return fs
    .readdirSync(streamsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const raw = JSON.parse(fs.readFileSync(path.join(streamsDir, f), 'utf8'));
      const items = Array.isArray(raw) ? raw : raw.events;
      const pieces = items.map((e) =>
        e && typeof e === 'object' && '__raw__' in e
          ? String(e.__raw__)
          : e && typeof e === 'object' && e.__cut__
            ? null
            : `event: ${e?.type ?? 'message'}\ndata: ${JSON.stringify(e)}\n\n`,
      );
      return { name: f, pieces };
    });
}

/** A seeded generator (mulberry32). */
function random(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  return { next, int, pick, chance: (p) => next() < p };
}

const WORDS = ['read', 'the', 'file', 'ünï', '日本', '😀', '"q"', '\\', '\n', 'x'];

/** The argument text of one call: JSON, JSON cut short, or JSON repair has to guess at. */
function argumentText(r) {
  const value = { path: `src/${r.pick(WORDS)}.rs`, lines: [r.int(100), r.int(100)], deep: { a: r.pick(WORDS) } };
  const json = JSON.stringify(value);
  switch (r.int(6)) {
    case 0:
      return json.slice(0, r.int(json.length));
    case 1:
      return `{path: 'a', "b": [1, 2,`;
    case 2:
      return r.pick(['[1,2]', '"text"', '42', 'null', '']);
    default:
      return json;
  }
}

/** Cuts `text` into 1 to 6 pieces of random lengths. */
function fragments(r, text) {
  const out = [];
  let rest = text;
  while (rest.length > 0 && out.length < 5 && r.chance(0.6)) {
    const at = 1 + r.int(rest.length);
    out.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  out.push(rest);
  return out;
}

/** One random Responses stream's events (the SDK-free shape: each with its `type`). */
function randomEvents(r) {
  const events = [{ type: 'response.created', response: { id: `resp_${r.int(1000)}`, output: [] } }];
  const outputs = 1 + r.int(4);
  for (let index = 0; index < outputs; index++) {
    const kind = r.pick(['message', 'message', 'function_call', 'function_call', 'reasoning', 'unknown']);
    if (kind === 'message') {
      const item = {
        type: 'message',
        id: `msg_${index}`,
        ...(r.chance(0.5) ? { phase: r.pick(['commentary', 'final_answer']) } : {}),
      };
      if (r.chance(0.8)) events.push({ type: 'response.output_item.added', output_index: index, item });
      for (let i = r.int(4); i >= 0; i--)
        events.push({
          type: r.pick(['response.output_text.delta', 'response.output_text.delta', 'response.refusal.delta']),
          output_index: index,
          item_id: `msg_${index}`,
          delta: r.pick(WORDS),
        });
      if (r.chance(0.7)) events.push({ type: 'response.output_item.done', output_index: index, item });
    } else if (kind === 'function_call') {
      const callId = r.chance(0.9) ? `call_${index}` : '';
      const name = r.chance(0.9) ? r.pick(['read_file', 'write_file', 'run_shell_command']) : '';
      const args = argumentText(r);
      events.push({
        type: 'response.output_item.added',
        output_index: index,
        item: { type: 'function_call', id: `fc_${index}`, call_id: callId, name, arguments: '' },
      });
      for (const delta of fragments(r, args))
        events.push({
          type: 'response.function_call_arguments.delta',
          output_index: index,
          item_id: `fc_${index}`,
          delta,
        });
      const doneArgs = r.pick([args, args, argumentText(r), undefined]);
      events.push({
        type: 'response.output_item.done',
        output_index: index,
        item: {
          type: 'function_call',
          id: `fc_${index}`,
          call_id: callId,
          name,
          ...(doneArgs === undefined ? {} : { arguments: doneArgs }),
        },
      });
    } else if (kind === 'reasoning') {
      for (let i = r.int(3); i >= 0; i--)
        events.push({
          type: r.pick(['response.reasoning_text.delta', 'response.reasoning_summary_text.delta']),
          output_index: index,
          delta: r.pick(WORDS),
        });
      events.push({
        type: 'response.output_item.done',
        output_index: index,
        item: { type: 'reasoning', id: `rs_${index}`, ...(r.chance(0.5) ? { encrypted_content: 'enc' } : {}) },
      });
    } else {
      events.push({ type: 'response.something_new', output_index: index });
    }
  }
  const usage = { input_tokens: r.int(100), output_tokens: r.int(100), total_tokens: r.int(200) };
  if (r.chance(0.5)) usage.input_tokens_details = { cached_tokens: r.int(50) };
  if (r.chance(0.5)) usage.output_tokens_details = { reasoning_tokens: r.int(50) };
  switch (r.int(7)) {
    case 0:
      events.push({
        type: 'response.incomplete',
        response: { usage, incomplete_details: { reason: r.pick(['max_output_tokens', 'content_filter', 'other']) } },
      });
      break;
    case 1:
      events.push({
        type: 'response.failed',
        response: { error: { code: r.pick(['server_error', 'rate_limit_exceeded', 'other']), message: 'boom' } },
      });
      break;
    case 2:
      events.push({ type: 'error', code: r.pick(['server_error', undefined]), message: 'bad' });
      break;
    case 3:
      // A malformed item: Qwen's own code fails on it (a TypeError).
      events.push({ type: 'response.output_item.done', output_index: 0 });
      break;
    case 4:
      break; // truncated: no terminal event
    default:
      events.push({ type: 'response.completed', response: { id: 'resp_done', usage, output: [] } });
  }
  return events;
}

/** The events as an SSE body, framed at random, split at random bytes; sometimes dropped before the end. */
function randomCase(seed) {
  const r = random(seed);
  const events = randomEvents(r);
  const eol = r.chance(0.15) ? '\r\n' : '\n';
  let text = '';
  for (const e of events) {
    if (r.chance(0.1)) text += `: keep-alive${eol}${eol}`;
    text += r.chance(0.8)
      ? `event: ${e.type}${eol}data: ${JSON.stringify(e)}${eol}${eol}`
      : `data: ${JSON.stringify(e)}${eol}${eol}`;
  }
  if (r.chance(0.2)) text += 'data: [DONE]\n\n';
  // Sometimes the last frame lacks its blank line, or its newline.
  if (r.chance(0.15)) text = text.replace(/\r?\n\r?\n$/, r.chance(0.5) ? '\n' : '');
  const bytes = Buffer.from(text);
  const pieces = [];
  let at = 0;
  while (at < bytes.length) {
    const n = 1 + r.int(Math.min(bytes.length - at, r.chance(0.3) ? 8 : 400));
    pieces.push(bytes.subarray(at, at + n).toString('latin1'));
    at += n;
  }
  if (r.chance(0.1)) pieces.splice(1 + r.int(pieces.length), pieces.length, null);
  return { name: `random-${seed}`, pieces, latin1: true };
}

/**
 * Qwen's own guards and an abort, at the moments Qwen's reads meet them: a
 * call whose arguments stop for longer than the idle limit, a body that
 * drips past the lifetime limit, a request aborted after its first response.
 */
function guardCases() {
  const frame = (e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  const head = [
    frame({ type: 'response.created', response: { id: 'resp_g' } }),
    frame({ type: 'response.output_text.delta', output_index: 0, item_id: 'm', delta: 'hi' }),
    frame({
      type: 'response.output_item.added',
      output_index: 1,
      item: { type: 'function_call', id: 'fc', call_id: 'call_g', name: 'write_file', arguments: '' },
    }),
    frame({ type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc', delta: '{"a":' }),
  ];
  const tail = [
    frame({ type: 'response.function_call_arguments.delta', output_index: 1, item_id: 'fc', delta: '1}' }),
    frame({
      type: 'response.completed',
      response: { id: 'resp_g', usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } },
    }),
  ];
  return [
    { name: 'idle-limit', pieces: [...head, 900, ...tail], guards: { idleMs: 300 } },
    { name: 'lifetime-limit', pieces: [...head, 150, 150, 150, ...tail], guards: { lifetimeMs: 250, idleMs: 0 } },
    { name: 'aborted', pieces: [...head, 300, ...tail], abortAfter: 1 },
  ];
}

const RANDOM_CASES = Number(process.env.TOOLCALL_STREAM_RESPONSES_CASES ?? 150);

function run(dir, mode, casesFile) {
  const out = execFileSync(process.execPath, [runner, dir, mode, casesFile], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: 300_000,
  });
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

for (const version of ['0.23.3', '0.24.4']) {
  const build = qwenBuildOrSkip(version);
  test(
    `Qwen Code ${version}'s Responses generator: the preload's output is stock's, corpus and random streams`,
    { skip: build.skip },
    () => {
      const cases = [
        ...corpusCases(),
        ...guardCases(),
        ...Array.from({ length: RANDOM_CASES }, (_, i) => randomCase(1000 + i)),
      ];
      assert.ok(cases.length > RANDOM_CASES, 'the corpus is there');
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-responses-')), 'cases.json');
      try {
        fs.writeFileSync(file, JSON.stringify(cases));
        const stock = run(build.dir, 'stock', file);
        const native = run(build.dir, 'native', file);
        assert.equal(native.length, stock.length);
        for (let i = 0; i < cases.length; i++) assert.deepEqual(native[i], stock[i], cases[i].name);
        // Every stream went through the native converter: each body streamed, and again not (an aborted one only streamed).
        const streams = cases.length + cases.filter((c) => c.abortAfter === undefined).length;
        assert.deepEqual(native.at(-1), { stats: { bytes: streams } });
        // The cases reach what they are for: calls, errors Qwen throws, the TypeErrors of malformed items, drops.
        const errors = stock.slice(0, -1).map((c) => c.error?.class);
        assert.ok(errors.includes('TypeError') && errors.includes('Error'), JSON.stringify([...new Set(errors)]));
        const byName = Object.fromEntries(stock.slice(0, -1).map((c) => [c.name, c.error?.name]));
        assert.deepEqual(
          [byName['idle-limit'], byName['lifetime-limit'], byName.aborted],
          ['StreamInactivityTimeoutError', 'StreamLifetimeExceededError', 'AbortError'],
        );
        assert.ok(stock.some((c) => c.responses.some((r) => r.json.includes('functionCall'))));
      } finally {
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
    },
  );
}
