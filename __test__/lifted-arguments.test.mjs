// Large string arguments lifted out of the batch (core/src/model/lifted.rs,
// core/src/wire/lift.rs): a call whose top-level string members are large
// crosses with those values as separate JS strings, put back into `args` in
// JS. What a caller gets must be exactly `JSON.parse` of the arguments' text
// in every input form: the same values (escapes, astral characters, pairs
// and lone surrogates written as escapes), the same key order (integer-like
// keys first, a duplicate key at its first place with its last value), the
// same own `__proto__` key, the same prototype.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rng } from '../devtools/random.mjs';
import { anthropicSse, openaiSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter } = require('../index.js');
const { native } = require('../lib/native.js');

/** The size from which the core lifts a string member (core/src/wire/lift.rs `LIFT_MIN`). */
const LIFT_MIN = 8 * 1024;

/** Counts the native answers in the lifted form (an array: text, then strings). */
const liftedBatches = (() => {
  let n = 0;
  for (const [name, fn] of Object.entries(native)) {
    if (typeof fn !== 'function' || /^[A-Z]/.test(name)) continue;
    native[name] = (...args) => {
      const out = fn(...args);
      if (Array.isArray(out)) n++;
      return out;
    };
  }
  return () => n;
})();

// Pieces of string content as JSON text: plain runs, every escape, raw and
// escaped non-ASCII, surrogate pairs, lone surrogates.
const PIECES = [
  'export function handler(req) {',
  '  return fetch(url);',
  ' ',
  '\\n',
  '\\"',
  '\\\\',
  '\\/',
  '\\t',
  '\\r\\n',
  '\\b\\f',
  '\\u0041',
  '\\u00e9',
  'é',
  '中文',
  '😀',
  '\\ud83d\\ude00',
  '\\uD83D\\uDE00',
  '\\u2028',
];
const LONE = ['\\ud800', '\\uDFFF', '\\ud83d', '\\ude00x'];

function stringText(random, size, lone) {
  let s = '';
  while (s.length < size) s += PIECES[Math.floor(random() * PIECES.length)];
  if (lone) {
    const at = Math.floor(random() * s.length);
    // Cut only where no escape is split: before a backslash or at the end.
    const cut = s.indexOf('\\', at) < 0 ? s.length : s.indexOf('\\', at);
    s = s.slice(0, cut) + LONE[Math.floor(random() * LONE.length)] + s.slice(cut);
  }
  return `"${s}"`;
}

const KEYS = ['"content"', '"file_path"', '"c\\u006fntent"', '"__proto__"', '"1"', '"0"', '"new_string"', '"é"'];
const ws = (random) => [' ', '', '\n  ', '\t'][Math.floor(random() * 4)];

/** The text of a random arguments object: large and small strings, other values, duplicates. */
function argumentsText(random) {
  const members = [];
  const count = 1 + Math.floor(random() * 5);
  for (let i = 0; i < count; i++) {
    const key = random() < 0.7 ? KEYS[Math.floor(random() * KEYS.length)] : `"k${i}"`;
    const r = random();
    const value =
      r < 0.55
        ? stringText(random, LIFT_MIN + Math.floor(random() * 3 * LIFT_MIN), random() < 0.15)
        : r < 0.7
          ? stringText(random, Math.floor(random() * 40), false)
          : r < 0.8
            ? JSON.stringify({ nested: [1, '}]', { deep: 'x'.repeat(LIFT_MIN) }], n: -1.5e3 })
            : ['true', 'null', '-0', '1e400', '[]', '{}'][Math.floor(random() * 6)];
    members.push(`${ws(random)}${key}${ws(random)}:${ws(random)}${value}${ws(random)}`);
  }
  return `${ws(random)}{${members.join(',')}}${ws(random)}`;
}

/** Splits `text` into fragments of 1 to 120 characters, cut anywhere. */
function fragmentsOf(text, random) {
  const out = [];
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(random() * 120);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function anthropicEvents(fragments) {
  return [
    {
      type: 'message_start',
      message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 1, output_tokens: 1 } },
    },
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
    },
    ...fragments.map((partial_json) => ({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json },
    })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
    { type: 'message_stop' },
  ];
}

function openaiChunks(fragments) {
  const chunk = (delta, finish_reason = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'qwen3-coder-plus',
    choices: [{ index: 0, delta, finish_reason }],
  });
  return [
    chunk({
      role: 'assistant',
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '' } }],
    }),
    ...fragments.map((f) => chunk({ tool_calls: [{ index: 0, function: { arguments: f } }] })),
    chunk({}, 'tool_calls'),
  ];
}

/** Cuts a Buffer into reads of random sizes. */
function readsOf(buffer, random) {
  const out = [];
  for (let i = 0; i < buffer.length;) {
    const n = 1 + Math.floor(random() * 20000);
    out.push(buffer.subarray(i, i + n));
    i += n;
  }
  return out;
}

const FORMS = {
  'Anthropic bytes': (fragments, random, profile) => {
    const c = new AnthropicConverter({ model: 'claude', profile });
    return [
      ...readsOf(Buffer.from(anthropicSse(anthropicEvents(fragments))), random).flatMap((r) => c.pushBytes(r)),
      ...c.end(),
    ];
  },
  'Anthropic events': (fragments, random, profile) => {
    const c = new AnthropicConverter({ model: 'claude', profile });
    return [...anthropicEvents(fragments).flatMap((e) => c.pushEvent(e)), ...c.end()];
  },
  'OpenAI bytes': (fragments, random, profile) => {
    const c = new OpenAIConverter({ model: 'qwen3-coder-plus', profile });
    return [
      ...readsOf(Buffer.from(openaiSse(openaiChunks(fragments))), random).flatMap((r) => c.pushBytes(r)),
      ...c.end(),
    ];
  },
  'OpenAI chunks': (fragments, random, profile) => {
    const c = new OpenAIConverter({ model: 'qwen3-coder-plus', profile });
    return [...openaiChunks(fragments).map((ch) => c.pushChunk(ch)), ...c.end()];
  },
};

/** Equal as `JSON.parse` results: values, own keys in order, prototype, `__proto__` own. */
function assertSameObject(got, want, where) {
  assert.equal(Object.getPrototypeOf(got), Object.prototype, where);
  assert.deepEqual(Reflect.ownKeys(got), Reflect.ownKeys(want), where);
  for (const key of Reflect.ownKeys(want)) {
    const [g, w] = [got[key], want[key]];
    if (typeof w === 'string') assert.ok(g === w, `${where}: ${String(key)} differs`);
    else assert.deepStrictEqual(g, w, where);
  }
}

const callArgs = (responses) =>
  responses
    .flatMap((r) => r?.candidates?.[0]?.content?.parts ?? [])
    .filter((p) => p.functionCall)
    .map((p) => p.functionCall.args);

test('lifted string arguments: every input form and profile gives exactly JSON.parse of the arguments (seeded, 60 calls)', () => {
  const before = liftedBatches();
  for (let seed = 1; seed <= 60; seed++) {
    const random = rng(seed);
    const text = argumentsText(random);
    const want = JSON.parse(text);
    const fragments = fragmentsOf(text, random);
    // qwen-0.24 holds Anthropic calls until the stop reason (another way to the part).
    for (const profile of ['qwen-0.21', 'qwen-0.24']) {
      for (const [form, run] of Object.entries(FORMS)) {
        const calls = callArgs(run(fragments, random, profile));
        assert.equal(calls.length, 1, `seed ${seed}, ${profile}, ${form}: one call`);
        assertSameObject(calls[0], want, `seed ${seed}, ${profile}, ${form}`);
      }
    }
  }
  // The lifted form was taken (most of the calls have a large, unique, exact member).
  assert.ok(liftedBatches() - before >= 120, `lifted batches: ${liftedBatches() - before}`);
});

test('lifted string arguments: what stays in the text (duplicates, __proto__, a lone surrogate) is still JSON.parse', () => {
  const x = 'a\\n'.repeat(LIFT_MIN);
  const cases = [
    `{"content":"${x}","content":"last"}`,
    `{"content":"last","c\\u006fntent":"${x}"}`,
    `{"__proto__":"${x}","file_path":"/p"}`,
    `{"content":"${x}\\ud800"}`,
    `{"2":"${x}","1":"${x}","b":"${x}","a":"${x}"}`,
  ];
  for (const text of cases) {
    const want = JSON.parse(text);
    for (const [form, run] of Object.entries(FORMS)) {
      const [got] = callArgs(run(fragmentsOf(text, rng(7)), rng(8)));
      assertSameObject(got, want, `${form}: ${text.slice(0, 40)}`);
    }
  }
  const x2 = JSON.parse(`{"v":"${x}"}`).v;
  const [dup] = callArgs(FORMS['Anthropic bytes'](fragmentsOf(cases[0], rng(1)), rng(2)));
  assert.equal(dup.content, 'last');
  const [proto] = callArgs(FORMS['OpenAI bytes'](fragmentsOf(cases[2], rng(1)), rng(2)));
  assert.ok(Object.hasOwn(proto, '__proto__') && proto.__proto__ === x2);
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
});

test('lifted string arguments: each value goes back to its own call in a batch with several calls', () => {
  const a = `{"content":"${'A'.repeat(LIFT_MIN)}","file_path":"/a"}`;
  const b = `{"old_string":"${'B\\t'.repeat(LIFT_MIN)}","new_string":"${'C'.repeat(LIFT_MIN)}"}`;
  const events = [
    { type: 'message_start', message: { id: 'm', model: 'claude', usage: { input_tokens: 1, output_tokens: 1 } } },
    ...[a, b].flatMap((args, index) => [
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: `t${index}`, name: 'edit', input: {} },
      },
      { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: args } },
      { type: 'content_block_stop', index },
    ]),
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
    { type: 'message_stop' },
  ];
  const c = new AnthropicConverter({ model: 'claude' });
  const before = liftedBatches();
  // One read: both calls' responses come back in one batch.
  const calls = callArgs([...c.pushBytes(Buffer.from(anthropicSse(events))), ...c.end()]);
  assert.equal(liftedBatches() - before, 1);
  assert.deepEqual(calls, [JSON.parse(a), JSON.parse(b)]);
  assert.deepEqual(Object.keys(calls[1]), ['old_string', 'new_string']);
});
