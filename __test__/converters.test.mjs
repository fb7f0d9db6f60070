// The converter API beyond the corpus: response objects, out-of-band
// preparations, typed errors, the object path equal to the native conversion, handles
// freed by GC.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  convertOpenAIStream,
  getToolCallPreparations,
  setToolCallPreparations,
  ToolCallStreamError,
  liveHandles,
} = require('../index.js');
const { GenerateContentResponse } = require('@google/genai');

/** The error `fn` throws (assert.throws does not return it). */
function thrown(fn, Class = ToolCallStreamError) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof Class, `expected a ${Class.name}, got ${err?.stack ?? err}`);
    return err;
  }
  assert.fail('expected an error');
}

const sse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const view = (responses) =>
  responses.map((r) => {
    const { createTime, ...rest } = JSON.parse(JSON.stringify(r));
    return { ...rest, preparations: getToolCallPreparations(r).map((p) => ({ ...p })) };
  });

function anthropicToolStream({ id = 'toolu_1', name = 'write_file', content = 'x'.repeat(1000), pieces = 20 } = {}) {
  const args = JSON.stringify({ file_path: '/tmp/a.txt', content });
  const step = Math.ceil(args.length / pieces);
  const events = [
    {
      type: 'message_start',
      message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Writing.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' Now.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id, name, input: {} } },
  ];
  for (let i = 0; i < args.length; i += step) {
    events.push({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: args.slice(i, i + step) },
    });
  }
  events.push(
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 50 } },
    { type: 'message_stop' },
  );
  return { events, args: JSON.parse(args) };
}

test('responses are GenerateContentResponse instances; preparations stay out of band', () => {
  const { events, args } = anthropicToolStream();
  const c = new AnthropicConverter();
  const out = events.flatMap((e) => c.pushEvent(e));
  for (const r of out) assert.ok(r instanceof GenerateContentResponse);
  const prepared = out.filter((r) => getToolCallPreparations(r).length > 0);
  assert.equal(prepared.length, 1);
  const [prep] = prepared;
  assert.deepEqual(getToolCallPreparations(prep), [{ callId: 'toolu_1', toolName: 'write_file' }]);
  assert.deepEqual(prep.candidates[0].content.parts, [], 'preparation-only chunk');
  assert.ok(!JSON.stringify(prep).includes('toolu_1'), 'never serialised');
  assert.ok(!Object.getOwnPropertyNames(prep).some((k) => /prep/i.test(k)), 'never an own property');
  assert.ok(!Object.getOwnPropertySymbols(prep).length, 'not even a symbol');
  const callChunk = out.find((r) => r.functionCalls);
  assert.ok(out.indexOf(prep) < out.indexOf(callChunk), 'preparation before the call');
  assert.deepEqual(callChunk.functionCalls, [{ id: 'toolu_1', name: 'write_file', args }]);
  assert.equal(out[0].text, 'Writing.');
  // A copy does not inherit the metadata (docs/behaviour.md §5.1).
  assert.deepEqual(getToolCallPreparations({ ...prep }), []);
  assert.deepEqual(getToolCallPreparations(structuredClone(prep)), []);
});

test('setToolCallPreparations overwrites and [] clears (docs/behaviour.md §8.1)', () => {
  const r = {};
  assert.deepEqual(getToolCallPreparations(r), []);
  setToolCallPreparations(r, [{ callId: 'call-1', toolName: 'read_file' }]);
  assert.deepEqual(getToolCallPreparations(r), [{ callId: 'call-1', toolName: 'read_file' }]);
  assert.ok(!JSON.stringify(r).includes('toolCallPreparations'));
  setToolCallPreparations(r, [{ callId: 'call-2', toolName: 'shell' }]);
  assert.deepEqual(getToolCallPreparations(r), [{ callId: 'call-2', toolName: 'shell' }]);
  setToolCallPreparations(r, []);
  assert.deepEqual(getToolCallPreparations(r), []);
  assert.throws(() => setToolCallPreparations(null, []), { code: 'INVALID_ARGUMENT' });
});

test('event objects (object path), event text and raw bytes give the same responses', () => {
  for (const pieces of [1, 7, 500]) {
    const { events } = anthropicToolStream({ content: 'é😀"\\\n'.repeat(20000), pieces });
    const a = new AnthropicConverter();
    const viaObjects = view(events.flatMap((e) => a.pushEvent(e)));
    const b = new AnthropicConverter();
    const viaText = view(events.flatMap((e) => b.pushEvent(JSON.stringify(e))));
    const c = new AnthropicConverter();
    const body = Buffer.from(sse(events));
    const viaBytes = [];
    for (let i = 0; i < body.length; i += 16384) viaBytes.push(...c.pushBytes(body.subarray(i, i + 16384)));
    viaBytes.push(...c.end());
    assert.deepEqual(viaObjects, viaText, `objects vs text, ${pieces} pieces`);
    assert.deepEqual(view(viaBytes), viaText, `bytes vs text, ${pieces} pieces`);
  }
});

test('modelVersion comes from message_start only: a configured model never fills it in', () => {
  // Qwen Code 0.21.2 and 0.24.4 alike (processStream starts with `let model;`).
  for (const profile of ['qwen-0.21', 'qwen-0.24']) {
    const c = new AnthropicConverter({ model: 'configured', profile });
    const [prep] = c.pushEvent({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 't', name: 'n', input: {} },
    });
    assert.equal('modelVersion' in prep, false, profile);
    assert.equal(JSON.stringify(prep).includes('configured'), false, profile);
  }
  const c = new AnthropicConverter({ model: 'configured' });
  c.pushEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  c.pushEvent({ type: 'message_start', message: { id: 'm', model: 'actual' } });
  const [text] = c.pushEvent({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'hi' } });
  assert.equal(text.modelVersion, 'actual');
  assert.equal(text.responseId, 'm');
});

function openaiInterleaved(calls = 4, size = 25000) {
  const chunks = [];
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1710000000, model: 'gpt-x' };
  const args = [];
  for (let i = 0; i < calls; i++) {
    args.push(JSON.stringify({ path: `/f${i}`, content: `${i}`.repeat(size) }));
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: i, id: `call_${i}`, type: 'function', function: { name: 'write_file', arguments: '' } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
  }
  for (let off = 0; off < args[0].length; off += 40) {
    for (let i = 0; i < calls; i++) {
      const piece = args[i].slice(off, off + 40);
      if (piece)
        chunks.push({
          ...base,
          choices: [
            { index: 0, delta: { tool_calls: [{ index: i, function: { arguments: piece } }] }, finish_reason: null },
          ],
        });
    }
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } });
  return { chunks, args: args.map((a) => JSON.parse(a)) };
}

test('OpenAI chunk objects (object path, gathered fragments), chunk text and bytes give the same responses', () => {
  const { chunks, args } = openaiInterleaved();
  const a = new OpenAIConverter();
  const viaObjects = chunks.map((c) => a.pushChunk(c));
  const b = new OpenAIConverter();
  const viaText = chunks.map((c) => b.pushChunk(JSON.stringify(c)));
  const c = new OpenAIConverter();
  const body = Buffer.from(chunks.map((ch) => `data: ${JSON.stringify(ch)}\n\n`).join('') + 'data: [DONE]\n\n');
  const viaBytes = [];
  for (let i = 0; i < body.length; i += 16384) viaBytes.push(...c.pushBytes(body.subarray(i, i + 16384)));
  viaBytes.push(...c.end());
  assert.deepEqual(view(viaObjects), view(viaText));
  assert.deepEqual(view(viaBytes), view(viaText));
  const finish = viaObjects.find((r) => r.functionCalls);
  assert.deepEqual(
    finish.functionCalls.map((f) => f.args),
    args,
  );
  assert.deepEqual(
    viaObjects.flatMap((r) => getToolCallPreparations(r)).map((p) => p.callId),
    ['call_0', 'call_1', 'call_2', 'call_3'],
  );
});

test('the pipeline merges finish and usage and keeps the preparations of both', async () => {
  const base = { id: 'c', object: 'chat.completion.chunk', created: 1710000000, model: 'm' };
  const chunks = [
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_w', function: { name: 'ls', arguments: '{}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    },
    { ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } },
  ];
  const out = [];
  for await (const r of convertOpenAIStream(chunks)) out.push(r);
  assert.equal(out.length, 1);
  assert.ok(out[0] instanceof GenerateContentResponse);
  assert.deepEqual(out[0].functionCalls, [{ id: 'call_w', name: 'ls', args: {} }]);
  assert.equal(out[0].usageMetadata.totalTokenCount, 3);
  assert.deepEqual(getToolCallPreparations(out[0]), [{ callId: 'call_w', toolName: 'ls' }]);
});

test('an in-band provider error keeps what was converted before it', () => {
  const { events } = anthropicToolStream({ pieces: 3 });
  const body =
    sse(events.slice(0, 7)) +
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
  const c = new AnthropicConverter();
  const err = thrown(() => c.pushBytes(body));
  assert.equal(err.code, 'STREAM_ERROR');
  assert.equal(err.message, 'Overloaded');
  assert.deepEqual(err.providerError, { type: 'overloaded_error', message: 'Overloaded' });
  assert.equal(err.fatal, true);
  assert.equal(err.responses.length, 3, 'two text chunks and the preparation');
  assert.deepEqual(getToolCallPreparations(err.responses[2]), [{ callId: 'toolu_1', toolName: 'write_file' }]);
  assert.equal(c.finished, true);
  assert.throws(() => c.pushBytes('data: {}\n\n'), { code: 'FINISHED' });
});

test('bad input is a typed error with a stable code; the converter goes on where it can', () => {
  const c = new AnthropicConverter();
  const bad = thrown(() => c.pushBytes('event: message_start\ndata: {"type": nope}\n\n'));
  assert.equal(bad.code, 'INVALID_JSON');
  assert.equal(typeof bad.offset, 'number');
  assert.equal(c.finished, false, 'one bad event does not end the stream');
  assert.throws(() => c.pushEvent({ type: 'content_block_start', index: 0 }), { code: 'INVALID_EVENT' });
  assert.equal(c.pushEvent({ type: 'some_future_event', x: 1 }).length, 0, 'unknown events are ignored');
  assert.throws(() => c.pushEvent({ big: 1n }), { code: 'INVALID_ARGUMENT' });
  const circular = {};
  circular.self = circular;
  assert.throws(() => c.pushEvent(circular), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => c.pushEvent(42), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => c.pushBytes(42), { code: 'INVALID_ARGUMENT' });
  // Invalid UTF-8 is replaced as the SDKs' decoders replace it (U+FFFD), not an error.
  const [u] = new OpenAIConverter().pushBytes(
    Buffer.concat([
      Buffer.from('data: {"choices":[{"delta":{"content":"a'),
      Buffer.from([0xff]),
      Buffer.from('"}}]}\n\n'),
    ]),
  );
  assert.equal(u.candidates[0].content.parts[0].text, 'a\ufffd');
  assert.throws(() => new AnthropicConverter({ model: 5 }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => new OpenAIConverter({ limits: { maxCallBytes: -1 } }), { code: 'INVALID_ARGUMENT' });
  c.end();
  assert.throws(() => c.end(), { code: 'FINISHED' });
});

test('MALFORMED_TOOL_CALL carries the reference type and ends the converter', () => {
  const c = new OpenAIConverter();
  const base = { id: 'c', created: 1, model: 'm' };
  c.pushChunk({
    ...base,
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'x', function: { arguments: '{}' } }] } }],
  });
  const err = thrown(() => c.pushChunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }));
  assert.equal(err.code, 'MALFORMED_TOOL_CALL');
  assert.equal(err.type, 'MALFORMED_TOOL_CALL');
  assert.equal(err.name, 'InvalidStreamError');
  assert.equal(c.finished, true);
});

test('limits end the stream with LIMIT_EXCEEDED', () => {
  const { events } = anthropicToolStream({ content: 'y'.repeat(5000), pieces: 50 });
  const c = new AnthropicConverter({ limits: { maxCallBytes: 1000 } });
  const body = sse(events);
  assert.throws(() => c.pushBytes(body), { code: 'LIMIT_EXCEEDED' });
  const d = new AnthropicConverter({ limits: { maxCallBytes: 1000 } });
  assert.throws(
    () => {
      for (const e of events) d.pushEvent(e);
    },
    { code: 'LIMIT_EXCEEDED' },
  );
});

test(
  'native state is freed when converters are collected',
  { skip: typeof global.gc !== 'function' && 'needs --expose-gc' },
  async () => {
    const settle = async () => {
      for (let i = 0; i < 10; i++) {
        global.gc();
        await new Promise((r) => setImmediate(r));
      }
    };
    await settle();
    const before = liveHandles();
    (() => {
      const keep = [];
      for (let i = 0; i < 200; i++) keep.push(new AnthropicConverter(), new OpenAIConverter());
      assert.equal(liveHandles(), before + 400);
    })();
    await settle();
    assert.equal(liveHandles(), before);
    assert.equal(before, 0, 'nothing else in this file keeps native state alive either');
  },
);
