// The seam between the object path (lib/object-path.js) and native state:
// every object-path call after end(), after a fatal error and after a limit
// gives what the JSON-text (native) conversion gives; ACP rawInput behaves as
// JSON.stringify / JSON.parse.
// First: the library must load with the object path's predicates counted.
import { resetObjectPathCounts, assertTaken } from './helpers/object-path-counts.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter, ToolCallCards, ToolCallStreamError } = require('../index.js');

/** What a call gives: its responses (clock values masked) or its error's code and fatal flag. */
function outcome(fn) {
  try {
    const out = fn();
    return { ok: JSON.parse(JSON.stringify(out, (k, v) => (k === 'createTime' ? 'T' : v))) };
  } catch (err) {
    assert.ok(err instanceof ToolCallStreamError, String(err?.stack ?? err));
    return { code: err.code, fatal: err.fatal };
  }
}

const anthropicStart = [
  { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
];
const anthropicFastEvents = [
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'more' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
  { type: 'content_block_stop', index: 1 },
];
const bigTool = [
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 't1', name: 'write_file', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: `{"c":"${'x'.repeat(4096)}"}` },
  },
  { type: 'content_block_stop', index: 1 },
];

/**
 * Feeds `setup` then `probe` as objects and as JSON texts (a setup step given
 * as text is text on both runs); both runs must agree call by call.
 */
function sameOnBothPaths(make, push, setup, probe) {
  const runs = [(v) => v, (v) => JSON.stringify(v)].map((form) => {
    const c = make();
    const out = [];
    for (const step of setup) {
      if (step === 'end') out.push(outcome(() => c.end()));
      else out.push(outcome(() => push(c, typeof step === 'string' ? step : form(step))));
    }
    for (const ev of probe) out.push(outcome(() => push(c, form(ev))));
    out.push({ finished: c.finished });
    return out;
  });
  assert.deepEqual(runs[0], runs[1]);
  return runs[0];
}

test('AnthropicConverter: after end(), the object path throws FINISHED as native does', () => {
  const out = sameOnBothPaths(
    () => new AnthropicConverter(),
    (c, ev) => c.pushEvent(ev),
    [...anthropicStart, 'end'],
    anthropicFastEvents,
  );
  assert.deepEqual(out.at(-2), { code: 'FINISHED', fatal: true });
  assert.deepEqual(out.at(-3), { code: 'FINISHED', fatal: true });
  assert.deepEqual(out.at(-1), { finished: true });
});

test('AnthropicConverter: after a fatal error (a limit), the object path agrees with native', () => {
  const out = sameOnBothPaths(
    () => new AnthropicConverter({ limits: { maxCallBytes: 1024 } }),
    (c, ev) => c.pushEvent(ev),
    [...anthropicStart, ...bigTool],
    anthropicFastEvents,
  );
  assert.ok(out.some((o) => o.code === 'LIMIT_EXCEEDED' && o.fatal));
  assert.deepEqual(out.at(-2), { code: 'FINISHED', fatal: true });
});

test('AnthropicConverter: after a non-fatal error the object path still agrees with native', () => {
  const c = new AnthropicConverter();
  for (const ev of anthropicStart) c.pushEvent(ev);
  assert.throws(
    () => c.pushEvent('{not json'),
    (e) => e instanceof ToolCallStreamError && !e.fatal,
  );
  const viaObject = outcome(() => c.pushEvent(anthropicFastEvents[0]));
  const d = new AnthropicConverter();
  for (const ev of anthropicStart) d.pushEvent(JSON.stringify(ev));
  assert.throws(() => d.pushEvent('{not json'));
  assert.deepEqual(
    viaObject,
    outcome(() => d.pushEvent(JSON.stringify(anthropicFastEvents[0]))),
  );
});

const contentChunk = { id: 'c1', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'hello' } }] };
const argumentChunk = {
  id: 'c1',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] } }],
};
const callStart = {
  id: 'c1',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] },
    },
  ],
};

test('OpenAIConverter.pushChunk({...content}) after end() throws FINISHED (fatal), not INVALID_ARGUMENT', () => {
  const c = new OpenAIConverter();
  c.pushChunk(contentChunk);
  c.end();
  assert.throws(
    () => c.pushChunk(contentChunk),
    (e) => e instanceof ToolCallStreamError && e.code === 'FINISHED' && e.fatal === true,
  );
  const out = sameOnBothPaths(
    () => new OpenAIConverter(),
    (c, ch) => c.pushChunk(ch),
    [contentChunk, callStart, 'end'],
    [contentChunk, argumentChunk],
  );
  assert.deepEqual(out.slice(-3, -1), [
    { code: 'FINISHED', fatal: true },
    { code: 'FINISHED', fatal: true },
  ]);
});

const bigArguments = structuredClone(argumentChunk);
bigArguments.choices[0].delta.tool_calls[0].function.arguments = `{"c":"${'x'.repeat(4096)}"}`;

test('OpenAIConverter: after a fatal error (a limit), the chunk object path agrees with native', () => {
  const out = sameOnBothPaths(
    () => new OpenAIConverter({ limits: { maxCallBytes: 1024 } }),
    (c, ch) => c.pushChunk(ch),
    [callStart, JSON.stringify(bigArguments)],
    [contentChunk, argumentChunk],
  );
  assert.ok(out.some((o) => o.code === 'LIMIT_EXCEEDED' && o.fatal));
  assert.deepEqual(out.slice(-3, -1), [
    { code: 'FINISHED', fatal: true },
    { code: 'FINISHED', fatal: true },
  ]);
});

test('ToolCallCards.started: rawInput with a lone surrogate comes back as JSON.parse(JSON.stringify(rawInput))', () => {
  const cards = new ToolCallCards();
  const rawInput = {
    content: 'a\uD800b',
    [`k\uDC00`]: ['\uDBFF', { x: 'é\uD83D' }],
    when: new Date(0),
    gone: undefined,
  };
  const frame = cards.started({ callId: 'c1', toolName: 'write_file', rawInput });
  assert.deepEqual(frame.rawInput, JSON.parse(JSON.stringify(rawInput)));
  assert.equal(frame.rawInput.content, 'a\uD800b');
  // The card is open and the frame is whole: its key order is the native one.
  assert.deepEqual(cards.openIds(), ['c1']);
  assert.equal(Object.keys(frame)[0], 'sessionUpdate');
});

test('ToolCallCards.started: rawInput nested deeper than 128 levels behaves as JSON.stringify does', () => {
  for (const depth of [129, 200, 2000]) {
    let rawInput = { leaf: true };
    for (let i = 0; i < depth; i++) rawInput = i % 2 ? { d: rawInput } : { a: [rawInput] };
    let text;
    try {
      text = JSON.stringify(rawInput);
    } catch {
      // Past this platform's stack (Windows' main thread has 1 MB): the same
      // refusal, as INVALID_ARGUMENT.
      assert.throws(
        () => new ToolCallCards().started({ callId: `c${depth}`, toolName: 'edit', rawInput }),
        (e) => e instanceof ToolCallStreamError && e.code === 'INVALID_ARGUMENT',
      );
      continue;
    }
    const frame = new ToolCallCards().started({ callId: `c${depth}`, toolName: 'edit', rawInput });
    assert.equal(JSON.stringify(frame.rawInput), text, 'it comes back whole');
    assert.notEqual(frame.rawInput, rawInput);
  }
});

test('ToolCallCards.started: a rawInput that serialises to something else than an object is INVALID_ARGUMENT', () => {
  const cards = new ToolCallCards();
  for (const rawInput of [{ toJSON: () => 5 }, { toJSON: () => [1] }]) {
    assert.throws(
      () => cards.started({ callId: 'c1', toolName: 'edit', rawInput }),
      (e) => e instanceof ToolCallStreamError && e.code === 'INVALID_ARGUMENT',
    );
  }
  assert.deepEqual(cards.openIds(), []);
});

test('OpenAIConverter: a limit crossed by an argument-only chunk object fails at that chunk', () => {
  // The arguments grow by 100 bytes a chunk: the one that takes the call past
  // 1024 bytes fails, fatally; those before it convert; everything after it
  // is FINISHED.
  const pieces = ['{"c":"', ...Array.from({ length: 20 }, () => 'x'.repeat(100))];
  const crossing = pieces.findIndex((_, i) => Buffer.byteLength(pieces.slice(0, i + 1).join('')) > 1024);
  assert.equal(crossing, 11);
  const argumentsChunk = (a) => {
    const chunk = structuredClone(argumentChunk);
    chunk.choices[0].delta.tool_calls[0].function.arguments = a;
    return chunk;
  };
  resetObjectPathCounts();
  const out = sameOnBothPaths(
    () => new OpenAIConverter({ limits: { maxCallBytes: 1024 } }),
    (c, ch) => c.pushChunk(ch),
    [callStart],
    pieces.map(argumentsChunk),
  );
  const calls = out.slice(1, -1);
  assert.equal(out[0].code, undefined, JSON.stringify(out[0]));
  for (const before of calls.slice(0, crossing)) assert.equal(before.code, undefined, JSON.stringify(before));
  assert.deepEqual(calls[crossing], { code: 'LIMIT_EXCEEDED', fatal: true });
  for (const after of calls.slice(crossing + 1)) assert.deepEqual(after, { code: 'FINISHED', fatal: true });
  assert.deepEqual(out.at(-1), { finished: true });
  // The chunk objects up to the crossing one took the object path (gathered
  // in JS), so it is the object path that fails at the crossing chunk.
  assertTaken({ openaiGather: crossing + 1 });
});

test('ToolCallCards.finished: content and rawOutput with lone surrogates and deep nesting come back as JSON copies', () => {
  const cards = new ToolCallCards();
  let deep = { leaf: 'x\uDFFF' };
  for (let i = 0; i < 300; i++) deep = { d: [deep] };
  const result = {
    status: 'completed',
    content: [
      { type: 'content', content: { type: 'text', text: 'out \uD800 put' } },
      { type: 'diff', deep },
    ],
    rawOutput: { display: '\uDBFF', deep, when: new Date(0) },
  };
  cards.started({ callId: 'c1', toolName: 'read_file', rawInput: {} });
  const frame = cards.finished('c1', 'read_file', result);
  assert.equal(JSON.stringify(frame.content), JSON.stringify(result.content));
  assert.equal(JSON.stringify(frame.rawOutput), JSON.stringify(result.rawOutput));
  assert.deepEqual(Object.keys(frame), ['sessionUpdate', 'toolCallId', 'status', 'content', '_meta', 'rawOutput']);
  assert.deepEqual(cards.openIds(), []);

  cards.started({ callId: 'c2', toolName: 'read_file', rawInput: {} });
  assert.equal(cards.failed('c2', 'read_file', 'bad \uD800').content[0].content.text, 'bad \uD800');
  // Absent rawOutput stays absent; null is sent.
  cards.started({ callId: 'c3', toolName: 'read_file', rawInput: {} });
  assert.equal('rawOutput' in cards.finished('c3', 'read_file', { status: 'completed' }), false);
  cards.started({ callId: 'c4', toolName: 'read_file', rawInput: {} });
  assert.equal(cards.finished('c4', 'read_file', { status: 'completed', rawOutput: null }).rawOutput, null);
});

test('ToolCallCards.finished: content that is not an array of objects is INVALID_ARGUMENT, the card stays open', () => {
  const cards = new ToolCallCards();
  cards.started({ callId: 'c1', toolName: 'read_file', rawInput: {} });
  for (const content of ['x\uD800', ['x\uD800'], [1], { toJSON: () => 'x' }, 5]) {
    assert.throws(
      () => cards.finished('c1', 'read_file', { status: 'completed', content }),
      (e) => e instanceof ToolCallStreamError && e.code === 'INVALID_ARGUMENT' && /content/.test(e.message),
    );
  }
  assert.deepEqual(cards.openIds(), ['c1']);
});

test('AnthropicConverter: a text delta object after a message_start that came as bytes carries the new header', () => {
  const sse = (ev) => `event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
  const second = { type: 'message_start', message: { id: 'msg_2', model: 'm2', usage: {} } };
  const text = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } };
  const runs = [(v) => v, (v) => JSON.stringify(v)].map((form) => {
    const c = new AnthropicConverter();
    for (const ev of anthropicStart) c.pushEvent(ev);
    c.pushBytes(sse(second));
    const [chunk] = c.pushEvent(form(text));
    return { responseId: chunk.responseId, modelVersion: chunk.modelVersion };
  });
  assert.deepEqual(runs[0], { responseId: 'msg_2', modelVersion: 'm2' });
  assert.deepEqual(runs[0], runs[1]);
});

test('Both converters: `finished` is native state after free(), end(), a fatal error and upstreamFailed()', () => {
  const a = new AnthropicConverter();
  a.pushEvent(anthropicStart[0]);
  assert.equal(a.finished, false);
  a.upstreamFailed(new Error('x'));
  assert.equal(a.finished, true);
  assert.throws(
    () => a.pushEvent(anthropicFastEvents[0]),
    (e) => e.code === 'FINISHED' && e.fatal === true,
  );
  const o = new OpenAIConverter();
  o.free();
  assert.equal(o.finished, true);
  assert.throws(
    () => o.pushChunk(contentChunk),
    (e) => e.code === 'FINISHED' && e.fatal === true,
  );
  const p = new OpenAIConverter();
  assert.throws(
    () => p.pushBytes('data: {"error":{"message":"boom"}}\n\n'),
    (e) => e.code === 'STREAM_ERROR',
  );
  assert.equal(p.finished, true);
});

test('ToolCallCards.permission: rawInput and content with lone surrogates and deep nesting come back as JSON copies', () => {
  let deep = { leaf: 'x\uDFFF' };
  for (let i = 0; i < 300; i++) deep = { d: [deep] };
  const rawInput = { a: 'x\uD800', deep, when: new Date(0), gone: undefined };
  const content = [
    { type: 'content', content: { type: 'text', text: 'y\uDC00' } },
    { type: 'diff', path: 'p', oldText: null, newText: 'z\uDBFF', deep },
  ];
  const cards = new ToolCallCards();
  const frame = cards.permission({ callId: 'c1', toolName: 'edit', rawInput }, content);
  assert.equal(JSON.stringify(frame.rawInput), JSON.stringify(rawInput));
  assert.equal(JSON.stringify(frame.content), JSON.stringify(content));
  assert.deepEqual(Object.keys(frame), [
    'toolCallId',
    'status',
    'title',
    'name',
    'content',
    'locations',
    'kind',
    'rawInput',
    '_meta',
  ]);
  assert.deepEqual(cards.openIds(), ['c1']);
  for (const bad of [[1], ['x'], { toJSON: () => [5] }]) {
    assert.throws(
      () => cards.permission({ callId: 'c2', toolName: 'edit', rawInput: {} }, bad),
      (e) => e instanceof ToolCallStreamError && e.code === 'INVALID_ARGUMENT',
    );
  }
  assert.deepEqual(cards.openIds(), ['c1']);
});

test("ACP JSON goes through the converters' JSON stack: lone surrogates in fields native reads, nesting past 128", () => {
  const cards = new ToolCallCards();
  // Was INVALID_ARGUMENT ("unexpected end of hex escape") from serde_json:
  // native keeps a lone surrogate, as JSON.parse does, in every field but
  // the title, which shows U+FFFD for it (a title is printable text).
  const frame = cards.started({
    callId: 'c1',
    toolName: 'edit',
    title: 'edit a\uD800.ts',
    locations: [{ path: '/p/a\uDC00.ts', line: 2 }],
    rawInput: {},
  });
  assert.equal(frame.title, 'edit a\uFFFD.ts');
  assert.deepEqual(frame.locations, [{ path: '/p/a\uDC00.ts', line: 2 }]);
  assert.deepEqual(cards.openIds(), ['c1']);
  // A plan whose arguments nest deeper than serde_json's 128 levels.
  let deep = {};
  for (let i = 0; i < 200; i++) deep = { d: deep };
  const plan = cards.plan({ todos: [{ content: 'write \uD83D tests', status: 'pending' }], deep });
  assert.deepEqual(plan.entries, [{ content: 'write \uD83D tests', priority: 'medium', status: 'pending' }]);
});

test('OpenAIConverter: a pending closing thinking tag is carried by the state word (set, kept after a fatal error, gone after free() and end())', () => {
  const { closingTagPendingOf } = require('../lib/converters/openai/converter.js');
  const chunk = (delta) => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: null }],
  });
  const opened = () => {
    const c = new OpenAIConverter();
    c.pushChunk(chunk({ reasoning_content: 'plan' }));
    assert.equal(closingTagPendingOf(c), false);
    c.pushChunk(chunk({ content: '</think>' }));
    assert.equal(closingTagPendingOf(c), true, 'the candidate after a bare closing tag');
    return c;
  };
  const failed = opened();
  assert.throws(
    () => failed.pushBytes('data: {"error":{"message":"boom"}}\n\n'),
    (e) => e.code === 'STREAM_ERROR' && e.fatal === true,
  );
  assert.equal(failed.finished, true);
  assert.equal(
    closingTagPendingOf(failed),
    true,
    'still pending after a fatal error, as the reference context keeps it',
  );
  const freed = opened();
  freed.free();
  assert.equal(closingTagPendingOf(freed), false);
  const ended = opened();
  assert.throws(
    () => ended.end(),
    (e) => e.code === 'PROTOCOL_TAG_LEAK',
  );
  assert.equal(closingTagPendingOf(ended), false, 'end() takes the candidate');
});
