// Repaired tool arguments equal the reference's, through both converters.
//
// The reference is the published Qwen Code 0.21.2 build itself (fetched into
// $QWEN_ORACLE_HOME, default ~/.cache/qwen-oracle, when missing; never
// committed): its own AnthropicContentGenerator.processStream and its own
// OpenAI pipeline, which call the bundled jsonrepair through safeJsonParse
// (packages/core/src/utils/safeJsonParse.ts) and, on the OpenAI side,
// StreamingToolCallParser.getCompletedToolCalls (JSON.parse, then the string
// closed, then safeJsonParse, then non-objects collapse to {}). The same
// streams go through AnthropicConverter and OpenAIConverter; every call's
// arguments must be deeply equal, keys in the same order.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { createRequire } from 'node:module';
import { loadPeer } from '../devtools/peer.mjs';
import { brokenJson } from './helpers/broken-json.mjs';
import { deepStringify } from '../devtools/deep-json.mjs';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter } = require('../index.js');

// Calls per stream: each call is converted on its own, and a stream of many
// keeps the reference's per-stream set-up out of the way.
const BATCH = 64;

let peer;
before(async () => {
  peer = await loadPeer();
});

function functionCalls(responses) {
  const calls = new Map();
  for (const r of responses) {
    for (const part of r?.candidates?.[0]?.content?.parts ?? []) {
      if (part.functionCall) calls.set(part.functionCall.id, part.functionCall.args);
    }
  }
  return calls;
}

function anthropicEvents(texts, split) {
  const events = [
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        model: 'm',
        role: 'assistant',
        content: [],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
  ];
  texts.forEach((text, index) => {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_${index}`, name: 'f', input: {} },
    });
    for (const partial_json of split(text)) {
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } });
  events.push({ type: 'message_stop' });
  return events;
}

function openaiChunks(texts) {
  const chunk = (delta, finish_reason = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason }],
  });
  return [
    ...texts.map((text, index) =>
      chunk({
        tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'f', arguments: text } }],
      }),
    ),
    chunk({}, 'tool_calls'),
  ];
}

// Arguments nested deeper than JSON.stringify takes compare by their JSON
// text, written without recursion.
const same = (a, b) => {
  if (a === undefined || b === undefined) return a === b;
  try {
    return isDeepStrictEqual(a, b) && JSON.stringify(a) === JSON.stringify(b);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return deepStringify(a) === deepStringify(b);
  }
};

/**
 * Ours in every input form: the SDK objects (the object path, which gathers
 * fragments in JS), their JSON text, and SSE bytes cut into reads of 61
 * bytes (the byte and template paths). A lone surrogate is kept apart from
 * a literal backslash and `uXXXX` in each.
 */
const FORMS = ['objects', 'text', 'bytes'];

const sse = (items, event) =>
  Buffer.from(items.map((x) => (event ? `event: ${x.type}\n` : '') + `data: ${JSON.stringify(x)}\n\n`).join(''));

function reads(buffer, size = 61) {
  const out = [];
  for (let at = 0; at < buffer.length; at += size) out.push(buffer.subarray(at, at + size));
  return out;
}

function run(converter, items, form, push, event) {
  if (form === 'bytes') {
    const out = reads(sse(items, event)).flatMap((b) => converter.pushBytes(b));
    return out.concat(converter.end());
  }
  const out = items.flatMap((x) => push(converter, form === 'text' ? JSON.stringify(x) : x));
  return out.concat(converter.end());
}

/** Runs `texts` through both sides in batches: `{provider, form, text, ours, theirs}` for each. */
async function compare(texts, { split }) {
  const results = [];
  const record = (provider, form, text, ours, theirs) => results.push({ provider, form, text, ours, theirs });
  for (let start = 0; start < texts.length; start += BATCH) {
    const batch = texts.slice(start, start + BATCH);

    const events = anthropicEvents(batch, split);
    const theirsOut = [];
    await peer.anthropic(events, (r) => theirsOut.push(r));
    const b = functionCalls(theirsOut);
    for (const form of FORMS) {
      const a = functionCalls(run(new AnthropicConverter(), events, form, (c, e) => c.pushEvent(e), true));
      batch.forEach((text, i) => record('anthropic', form, text, a.get(`toolu_${i}`), b.get(`toolu_${i}`)));
    }

    const chunks = openaiChunks(batch);
    const theirsOOut = [];
    await peer.openai(chunks, (r) => theirsOOut.push(r));
    const d = functionCalls(theirsOOut);
    for (const form of FORMS) {
      const c = functionCalls(run(new OpenAIConverter(), chunks, form, (o, x) => [o.pushChunk(x)], false));
      batch.forEach((text, i) => record('openai', form, text, c.get(`call_${i}`), d.get(`call_${i}`)));
    }
  }
  return results;
}

/** Compares, prints the counts and asserts that nothing differs. */
async function check(name, texts, options) {
  const results = await compare(texts, options);
  // Every call comes out on both sides: nothing is compared vacuously.
  assert.deepEqual(results.filter((d) => d.ours === undefined || d.theirs === undefined).slice(0, 3), []);
  const differences = results.filter((d) => !same(d.ours, d.theirs));
  const lone = texts.filter((t) => !t.isWellFormed()).length;
  console.log(
    `jsonrepair parity, ${name}: ${results.length} cases compared (${texts.length} texts, ${lone} with lone surrogates; ` +
      `both providers, ${FORMS.length} input forms), ${differences.length} differences`,
  );
  for (const d of differences.slice(0, 5)) {
    console.log(
      `  ${d.provider} ${d.form} ${JSON.stringify(d.text)}: ours ${JSON.stringify(d.ours)}, reference ${JSON.stringify(d.theirs)}`,
    );
  }
  assert.deepEqual(differences.slice(0, 5), []);
}

const whole = (text) => (text === '' ? [] : [text]);

/** Deltas cut at random code-unit positions (lone surrogate halves included). */
function splitter(g) {
  return (text) => {
    const parts = [];
    let rest = text;
    while (rest.length > 0) {
      const n = 1 + g.int(Math.max(1, rest.length));
      parts.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    return parts;
  };
}

test('truncations of valid JSON at every position', async () => {
  const g = brokenJson(1101);
  const texts = [];
  while (texts.length < 4000) {
    const doc = g.valid();
    for (let cut = 1; cut <= doc.length; cut++) texts.push(doc.slice(0, cut));
  }
  await check('truncations', texts, { split: splitter(g) });
});

test('sloppy JSON: quotes, keys, commas, comments, NaN, .5, +1, Python literals, escapes, surrogates', async () => {
  const g = brokenJson(2202);
  const texts = [];
  for (let k = 0; k < 4000; k++) {
    const text = g.sloppy();
    texts.push(k % 4 === 3 ? text.slice(0, g.int(text.length + 1)) : text);
  }
  await check('sloppy', texts, { split: whole });
});

test('random garbage', async () => {
  const g = brokenJson(3303);
  const texts = Array.from({ length: 4000 }, () => g.garbage());
  await check('garbage', texts, { split: splitter(g) });
});

test('deep nesting', async () => {
  const g = brokenJson(4404);
  const texts = Array.from({ length: 1000 }, () => g.deep(1 + g.int(400)));
  await check('deep', texts, { split: whole });
});

test('nesting 513 to 10,000 levels: repaired as the reference repairs it, then its fallback', async () => {
  // Each kind of nesting jsonrepair recurses on, broken (unclosed) and
  // valid. The reference repairs each at 2,000 levels; at 10,000 its stack
  // overflows and safeJsonParse gives {}. Valid text needs no repair.
  const texts = [];
  for (const depth of [513, 1000, 2000, 10000]) {
    for (const [unit, last] of [
      ['[', '1'],
      ['{"a":', '1'],
      ['f(', '{"b":1}'],
      ['"a"+', '"b"'],
    ]) {
      texts.push(unit.repeat(depth) + last);
    }
    texts.push(`{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}`);
    texts.push(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  }
  await check('deep extremes', texts, { split: whole });
  // Not vacuous: repaired at 2,000 levels, the fallback at 10,000.
  const ours = new AnthropicConverter();
  const out = anthropicEvents([texts[12], texts[18]], whole).flatMap((e) => ours.pushEvent(e));
  const [repaired, fallback] = [...functionCalls(out).values()];
  let levels = 0;
  for (let v = repaired; Array.isArray(v); v = v[0]) levels++;
  assert.equal(levels, 2000);
  assert.deepEqual(fallback, {});
});

test('the named cases', async () => {
  // The last one makes jsonrepair recurse until the stack overflows.
  const texts = [
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": nan}',
    '{"a": .5}',
    '{"a": +1}',
    "{'a': 'it's'}",
    "'it's'",
    '{"content": "a\\, "n": 1:, "b": 1#',
  ];
  await check('named', texts, { split: whole });
  const ours = new AnthropicConverter();
  const out = anthropicEvents(texts, whole).flatMap((e) => ours.pushEvent(e));
  const args = [...functionCalls(out).values()];
  assert.deepEqual(args, [{ a: 'NaN' }, { a: 'Infinity' }, { a: 'nan' }, {}, {}, { a: 'it"s' }, 'it"s', {}]);
});
