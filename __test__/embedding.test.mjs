// The embedding API (options.host): a host's own response class, preparation
// store, error classes and per-event hook, on every input form and through
// the generators; checkAvailable; free().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  convertAnthropicStream,
  convertOpenAIStream,
  getToolCallPreparations,
  ToolCallStreamError,
} = require('../index.js');

/** A host with its own classes, recording what reaches its store and hook. */
function recordingHost() {
  class HostResponse {
    get text() {
      return this.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('') || undefined;
    }
  }
  class HostStreamError extends Error {
    constructor(message, type) {
      super(message);
      this.name = 'InvalidStreamError';
      this.type = type;
    }
  }
  const store = new WeakMap();
  const events = [];
  return {
    HostResponse,
    HostStreamError,
    store,
    events,
    host: {
      GenerateContentResponse: HostResponse,
      preparations: { set: (response, list) => store.set(response, list) },
      createError: (err) => (err.name === 'InvalidStreamError' ? new HostStreamError(err.message, err.type) : err),
      onEvent: (event) => events.push(event),
    },
  };
}

const anthropicEvents = (args, stop = 'tool_use') => [
  { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 3, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' there' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: args.slice(0, 5) } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: args.slice(5) } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 9 } },
  { type: 'message_stop' },
];
const sse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');

async function collect(iterable) {
  const out = [];
  let error;
  try {
    for await (const r of iterable) out.push(r);
  } catch (err) {
    error = err;
  }
  return { out, error };
}

test('Anthropic: every response is the host class, preparations land in the host store too, events reach the hook', () => {
  const h = recordingHost();
  const events = anthropicEvents('{"path":"a.txt","content":"x"}');
  for (const form of ['objects', 'bytes']) {
    h.events.length = 0;
    const c = new AnthropicConverter({ host: h.host });
    const out =
      form === 'objects'
        ? [...events.flatMap((e) => c.pushEvent(e)), ...c.end()]
        : [...c.pushBytes(sse(events)), ...c.end()];
    assert.ok(out.length >= 5, form);
    for (const r of out) assert.ok(r instanceof h.HostResponse, `${form}: ${JSON.stringify(r)}`);
    const prepared = out.filter((r) => getToolCallPreparations(r).length > 0);
    assert.equal(prepared.length, 1, form);
    assert.deepEqual(h.store.get(prepared[0]), [{ callId: 'toolu_1', toolName: 'write_file' }], form);
    assert.equal(out.map((r) => r.text ?? '').join(''), 'Hi there', `${form}: JS-built text chunks are the host class`);
    assert.deepEqual(h.events, form === 'objects' ? events : [], `${form}: the hook sees SDK objects only`);
  }
});

test("Anthropic under qwen-0.24: MALFORMED_TOOL_CALL is the host's error, after the responses before it", async () => {
  const h = recordingHost();
  const events = anthropicEvents('{"path": oops');
  const c = new AnthropicConverter({ host: h.host, profile: 'qwen-0.24' });
  const err = (() => {
    try {
      for (const e of events) c.pushEvent(e);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof h.HostStreamError, String(err));
  assert.equal(err.type, 'MALFORMED_TOOL_CALL');

  for (const source of [events, [new TextEncoder().encode(sse(events))]]) {
    const { out, error } = await collect(convertAnthropicStream(source, { host: h.host, profile: 'qwen-0.24' }));
    assert.ok(error instanceof h.HostStreamError, String(error));
    assert.equal(out.map((r) => r.text ?? '').join(''), 'Hi there', 'what came before the error is yielded');
    assert.equal(out.filter((r) => getToolCallPreparations(r).length > 0).length, 1);
  }
});

test('OpenAI: chunks, bytes and the pipeline generator build the host class; a merged finish too', async () => {
  const h = recordingHost();
  const chunk = (delta, extra = {}) => ({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  });
  const chunks = [
    chunk({ role: 'assistant', content: 'Hel' }),
    chunk({ content: 'lo' }),
    chunk({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"a"}' } }] }),
    { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { ...chunk({}), choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } },
  ];
  const c = new OpenAIConverter({ host: h.host });
  const direct = chunks.map((x) => c.pushChunk(x));
  for (const r of direct) assert.ok(r instanceof h.HostResponse);
  assert.deepEqual(h.events, chunks);
  const body = chunks.map((x) => `data: ${JSON.stringify(x)}\n\n`).join('') + 'data: [DONE]\n\n';
  for (const source of [chunks, [new TextEncoder().encode(body)]]) {
    const { out, error } = await collect(convertOpenAIStream(source, { host: h.host }));
    assert.equal(error, undefined);
    assert.ok(out.length >= 3);
    for (const r of out) assert.ok(r instanceof h.HostResponse, JSON.stringify(r));
    const finish = out.at(-1);
    assert.equal(finish.candidates[0].finishReason, 'STOP');
    assert.equal(finish.usageMetadata.totalTokenCount, 3, 'the merged finish carries the usage');
  }
});

test("OpenAI error_finish through the generator is the host's mapping of StreamContentError", async () => {
  const seen = [];
  const host = {
    createError: (err) => {
      seen.push(err.name);
      return Object.assign(new Error(err.message), { name: 'HostStreamContentError' });
    },
  };
  const chunks = [
    {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'a' } }],
    },
    {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: ' boom ' }, finish_reason: 'error_finish' }],
    },
  ];
  const { out, error } = await collect(convertOpenAIStream(chunks, { host }));
  assert.equal(out.length, 1);
  assert.equal(error.name, 'HostStreamContentError');
  assert.equal(error.message, 'boom');
  assert.deepEqual(seen, ['StreamContentError']);
});

test('a bad host is INVALID_ARGUMENT at construction', () => {
  for (const host of [
    42,
    { GenerateContentResponse: 'x' },
    { preparations: {} },
    { createError: true },
    { onEvent: {} },
  ]) {
    for (const make of [() => new AnthropicConverter({ host }), () => new OpenAIConverter({ host })]) {
      assert.throws(make, (err) => err instanceof ToolCallStreamError && err.code === 'INVALID_ARGUMENT');
    }
  }
});

test('checkAvailable (toolcall-stream/available) answers without throwing, and names the binding that loaded', async () => {
  const { checkAvailable } = await import('toolcall-stream/available');
  // TOOLCALL_STREAM_FORCE_WASI=1 (the WASI rows of scripts/test-platforms.mjs)
  // must have loaded the WebAssembly build: a silent native load fails here.
  const wasi = process.env.TOOLCALL_STREAM_FORCE_WASI === '1';
  const status = checkAvailable();
  assert.equal(status.available, true);
  assert.equal(status.kind, wasi ? 'wasi' : 'native');
  if (wasi) assert.equal(status.platform, 'wasm32-wasi');
  else assert.match(status.platform, /^[a-z0-9]+-[a-z0-9]+(-(gnu|musl|msvc))?$/);
  const { native } = require('../lib/native.js');
  assert.equal(native.__napiBindingTarget, wasi ? 'wasm32-wasi' : 'native');
});

test('free(): the native state goes at once; every later call is FINISHED', () => {
  for (const make of [() => new AnthropicConverter(), () => new OpenAIConverter()]) {
    const c = make();
    assert.equal(c.finished, false);
    c.free();
    c.free();
    assert.equal(c.finished, true);
    const calls =
      c instanceof AnthropicConverter
        ? [
            () =>
              c.pushEvent({
                type: 'content_block_delta',
                index: 0,
                delta: { type: 'input_json_delta', partial_json: '{' },
              }),
            () => c.pushEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }),
            () => c.pushBytes('event: ping\ndata: {"type":"ping"}\n\n'),
            () => c.end(),
          ]
        : [
            () => c.pushChunk({ choices: [{ index: 0, delta: { content: 'x' } }] }),
            () =>
              c.pushChunk({
                choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'x' } }] } }],
              }),
            () => c.pushBytes('data: {}\n\n'),
            () => c.end(),
          ];
    for (const call of calls) {
      assert.throws(call, (err) => err instanceof ToolCallStreamError && err.code === 'FINISHED', String(call));
    }
  }
});
