// JS fuzz: random event objects (wrong types, nulls, huge numbers,
// `__proto__` keys, deep nesting, BigInt, circular references, huge strings,
// throwing getters), random bytes, and call-order misuse through every
// converter entry point, in a child process that must exit cleanly (no
// abort, no segfault). Every thrown error is a ToolCallStreamError with a
// stable code; a converter is never left half-usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rng } from '../devtools/random.mjs';

const CHILD = 'TOOLCALL_STREAM_FUZZ_CHILD';
const CODES = new Set([
  'INVALID_JSON',
  'INVALID_UTF8',
  'INVALID_EVENT',
  'MALFORMED_TOOL_CALL',
  'PROTOCOL_TAG_LEAK',
  'STREAM_ERROR',
  'LIMIT_EXCEEDED',
  'FINISHED',
  'INVALID_ARGUMENT',
]);

async function runChild(iterations, seed) {
  const require = createRequire(import.meta.url);
  const m = require('../index.js');
  const random = rng(seed);
  const pick = (a) => a[Math.floor(random() * a.length)];
  const int = (n) => Math.floor(random() * n);
  const codes = new Map();
  let calls = 0;

  // What hostile user objects throw (getters, toJSON, proxy traps): it
  // surfaces as INVALID_ARGUMENT with the exception as `cause`.
  class HostileError extends Error {}
  const nested = (depth) => {
    let v = {};
    for (let i = 0; i < depth; i++) v = random() < 0.5 ? { a: v } : [v];
    return v;
  };
  const scalar = () =>
    pick([
      null,
      undefined,
      true,
      0,
      -0,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      NaN,
      Infinity,
      1.5,
      -1,
      '',
      ' ',
      'x',
      '\u0000',
      '\ud800',
      '😀',
      '</think>',
      '[DONE]',
      'tool_use',
      'call_1',
      'read_file',
    ]);
  const weird = () => {
    switch (int(12)) {
      case 0: {
        const o = { a: 1 };
        o.self = o;
        return o;
      }
      case 1:
        return BigInt(int(100));
      case 2:
        return nested(int(2000));
      case 3:
        return 'x'.repeat(int(4) === 0 ? 3_000_000 : 1000);
      case 4:
        return JSON.parse('{"__proto__": {"polluted": true}, "type": "message_start"}');
      case 5:
        return Object.create(null);
      case 6:
        return {
          toJSON: () => {
            throw new HostileError('toJSON throws');
          },
        };
      case 7:
        return Object.defineProperty({}, 'type', {
          enumerable: true,
          get: () => {
            throw new HostileError('getter throws');
          },
        });
      case 8:
        return Symbol('s');
      case 9:
        return () => 1;
      case 10:
        return new Proxy(
          {},
          {
            ownKeys: () => {
              throw new HostileError('proxy');
            },
          },
        );
      default:
        return [scalar(), scalar()];
    }
  };
  const value = (depth = 0) => {
    const r = random();
    if (r < 0.5 || depth > 3) return scalar();
    if (r < 0.6) return weird();
    if (r < 0.8) return Array.from({ length: int(3) }, () => value(depth + 1));
    const o = {};
    for (let i = 0; i < int(4); i++) o[pick(['type', 'index', 'id', 'name', 'delta', 'text', 'x'])] = value(depth + 1);
    return o;
  };
  // Structured events with random field values.
  const anthropicEvent = () => {
    const block = {
      type: pick(['tool_use', 'text', 'thinking', 'server_tool_use', value()]),
      id: value(),
      name: value(),
      input: value(),
    };
    return pick([
      {
        type: 'message_start',
        message:
          random() < 0.8
            ? {
                id: value(),
                model: value(),
                usage: { input_tokens: value(), output_tokens: value() },
              }
            : value(),
      },
      {
        type: 'content_block_start',
        index: value(),
        content_block: random() < 0.8 ? block : value(),
      },
      {
        type: 'content_block_delta',
        index: value(),
        delta: {
          type: pick(['input_json_delta', 'text_delta', 'thinking_delta', 'signature_delta', value()]),
          partial_json: value(),
          text: value(),
          thinking: value(),
          signature: value(),
        },
      },
      { type: 'content_block_stop', index: value() },
      {
        type: 'message_delta',
        delta: random() < 0.8 ? { stop_reason: value() } : value(),
        usage: value(),
      },
      { type: 'message_stop' },
      { type: 'error', error: value() },
      { type: 'ping' },
      value(),
    ]);
  };
  const openaiChunk = () =>
    pick([
      {
        id: value(),
        created: value(),
        model: value(),
        choices: [
          {
            index: value(),
            finish_reason: pick([null, 'stop', 'tool_calls', 'length', 'error_finish', '', value()]),
            delta: {
              content: value(),
              reasoning_content: value(),
              role: value(),
              tool_calls:
                random() < 0.7
                  ? [
                      {
                        index: value(),
                        id: value(),
                        type: value(),
                        function: { name: value(), arguments: value() },
                      },
                    ]
                  : value(),
            },
          },
        ],
        usage:
          random() < 0.2
            ? {
                prompt_tokens: value(),
                completion_tokens: value(),
                total_tokens: value(),
              }
            : undefined,
      },
      { choices: value(), error: random() < 0.3 ? value() : undefined },
      value(),
    ]);
  // The test's own serialisation of a random value (which may throw).
  const text = (v) => {
    try {
      return JSON.stringify(v) ?? 'null';
    } catch {
      return '{"type":';
    }
  };
  const bytes = () =>
    pick([
      () => Uint8Array.from({ length: int(64) }, () => int(256)),
      () => Buffer.from(`data: ${text(openaiChunk())}\n\n`),
      () => `event: x\ndata: ${text(anthropicEvent())}\r\n\r\n`,
      () => new Uint8Array([0xef, 0xbb, 0xbf, 0xff, 0x0a, 0x0d]).buffer,
      () => value(),
      () => new DataView(new ArrayBuffer(4)),
      () => new Uint16Array([0xd83d, 0xde00]),
    ])();

  const check = (fn) => {
    calls++;
    try {
      const out = fn();
      if (out !== undefined) assert.ok(Array.isArray(out) || typeof out === 'object', 'responses');
    } catch (err) {
      if (err?.cause instanceof HostileError) {
        codes.set('user exception as cause', (codes.get('user exception as cause') ?? 0) + 1);
      }
      if (!(err instanceof m.ToolCallStreamError)) {
        throw new Error(`not a ToolCallStreamError: ${err?.stack ?? err}`);
      }
      if (!CODES.has(err.code)) throw new Error(`unstable code ${err.code}: ${err.stack}`);
      if (!Array.isArray(err.responses)) throw new Error('responses missing');
      codes.set(err.code, (codes.get(err.code) ?? 0) + 1);
    }
  };

  for (let i = 0; i < iterations; i++) {
    const anthropic = random() < 0.5;
    let c;
    try {
      c = anthropic
        ? new m.AnthropicConverter(
            random() < 0.8
              ? {
                  model: pick(['m', undefined]),
                  limits:
                    random() < 0.3
                      ? {
                          maxCallBytes: int(200) + 1,
                          maxBufferedBytes: int(400) + 1,
                          maxRepairDepth: int(10) + 1,
                        }
                      : undefined,
                }
              : value(),
          )
        : new m.OpenAIConverter(random() < 0.8 ? undefined : value());
    } catch (err) {
      if (!(err instanceof m.ToolCallStreamError) || err.code !== 'INVALID_ARGUMENT') throw err;
      codes.set('ctor ' + err.code, (codes.get('ctor ' + err.code) ?? 0) + 1);
      continue;
    }
    for (let k = int(12); k > 0; k--) {
      const op = int(10);
      if (op < 5) check(() => (anthropic ? c.pushEvent(anthropicEvent()) : c.pushChunk(openaiChunk())));
      else if (op < 6) {
        const t = text(anthropic ? anthropicEvent() : openaiChunk());
        check(() => (anthropic ? c.pushEvent(t) : c.pushChunk(t)));
      } else if (op < 9) check(() => c.pushBytes(bytes()));
      else check(() => c.end());
      assert.equal(typeof c.finished, 'boolean');
    }
    // Misuse: end twice, push after end.
    check(() => c.end());
    assert.equal(c.finished, true, 'finished after end()');
    check(() => c.end());
    check(() => c.pushBytes('data: {}\n\n'));
    check(() => (anthropic ? c.pushEvent({ type: 'ping' }) : c.pushChunk({ choices: [] })));
    // The async generators over random iterables.
    if (i % 20 === 0) {
      const items = Array.from({ length: int(6) }, () => (anthropic ? anthropicEvent() : openaiChunk()));
      try {
        for await (const r of (anthropic ? m.convertAnthropicStream : m.convertOpenAIStream)(items)) assert.ok(r);
      } catch (err) {
        if (!(err instanceof m.ToolCallStreamError) || !CODES.has(err.code))
          throw new Error(`generator: ${err?.stack ?? err}`);
      }
    }
  }
  // After all that, a normal stream still works in this process.
  const ok = new m.AnthropicConverter();
  ok.pushEvent({ type: 'message_start', message: { id: 'm', model: 'x' } });
  const out = ok.pushEvent({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 't', name: 'n', input: {} },
  });
  assert.equal(m.getToolCallPreparations(out[0])[0].callId, 't');
  console.log(
    JSON.stringify({
      iterations,
      calls,
      codes: Object.fromEntries(codes),
      polluted: {}.polluted ?? null,
    }),
  );
}

if (process.env[CHILD]) {
  const [iterations, seed] = process.env[CHILD].split(',').map(Number);
  await runChild(iterations, seed);
} else {
  for (const seed of [1, 2, 3]) {
    test(`random events, bytes and misuse in a child process exit cleanly (seed ${seed})`, () => {
      const child = spawnSync(process.execPath, ['--stack-size=900', fileURLToPath(import.meta.url)], {
        env: { ...process.env, [CHILD]: `1500,${seed}` },
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(child.signal, null, `killed by ${child.signal}\n${child.stderr}`);
      assert.equal(child.status, 0, `exit ${child.status}\n${child.stderr}`);
      const summary = JSON.parse(child.stdout.trim().split('\n').at(-1));
      assert.equal(summary.polluted, null, 'no prototype pollution');
      assert.ok(summary.calls > 10_000, `enough calls: ${summary.calls}`);
      for (const code of ['INVALID_ARGUMENT', 'FINISHED', 'INVALID_JSON']) {
        assert.ok(summary.codes[code] > 0, `saw ${code}: ${JSON.stringify(summary.codes)}`);
      }
    });
  }
}
