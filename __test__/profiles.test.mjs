// The `profile` option: its validation on every entry point, and the parts
// of qwen-0.24 that the corpus (conformance.test.mjs) cannot reach: the
// source-error classification of `upstreamFailed` / `convertAnthropicStream`
// and the JS-built text chunks that count as assistant payload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  OpenAIResponsesConverter,
  convertAnthropicStream,
  convertOpenAIStream,
  ToolCallStreamError,
} = require('../index.js');
const { native } = require('../lib/native.js');
const { PROVIDERS, PROVIDER_PROFILES } = require('../lib/generated/wire-constants.js');

const providersFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'providers');

const start = { type: 'message_start', message: { id: 'msg', model: 'claude-x', usage: { input_tokens: 3 } } };
const toolStart = (index, id) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name: 'read_file', input: {} },
});
const args = (index, partial_json) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});
const stop = (index) => ({ type: 'content_block_stop', index });
const textDelta = (index, text) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
/** One complete call, closed, with no stop reason yet. */
const closedCall = [start, toolStart(0, 'toolu_1'), args(0, '{"path":'), args(0, '"a"}'), stop(0)];

const calls = (responses) => responses.flatMap((r) => r.functionCalls ?? []).map((c) => c.id);

test('profile: qwen-0.21 and qwen-0.24 are accepted, anything else is INVALID_ARGUMENT everywhere', async () => {
  for (const profile of [undefined, null, 'qwen-0.21', 'qwen-0.24']) {
    new AnthropicConverter({ profile }).end();
    new OpenAIConverter({ profile }).end();
  }
  for (const profile of ['qwen-0.22', 'QWEN-0.24', '', 0.24, {}, true]) {
    assert.throws(() => new AnthropicConverter({ profile }), { code: 'INVALID_ARGUMENT' }, String(profile));
    assert.throws(() => new OpenAIConverter({ profile }), { code: 'INVALID_ARGUMENT' }, String(profile));
    await assert.rejects(convertAnthropicStream([], { profile }).next(), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(convertOpenAIStream([], { profile }).next(), { code: 'INVALID_ARGUMENT' });
  }
});

test("profile: each provider's row lists its own, and the fixture folder tests exactly those releases", () => {
  assert.deepEqual(Object.keys(PROVIDER_PROFILES), [...PROVIDERS]);
  for (const name of PROVIDERS) {
    const { releases } = JSON.parse(fs.readFileSync(path.join(providersFolder, name, 'corpus.json'), 'utf8'));
    assert.deepEqual(
      releases.map((r) => r.profile).sort(),
      [...PROVIDER_PROFILES[name]].sort(),
      `${name}: its corpus.json releases are its row's profiles`,
    );
  }
  // The defaults the classes have always had: each row's first.
  assert.equal(PROVIDER_PROFILES.anthropic[0], 'qwen-0.21');
  assert.equal(PROVIDER_PROFILES.openai[0], 'qwen-0.21');
  assert.equal(PROVIDER_PROFILES['openai-responses'][0], 'qwen-0.24');
});

test("profile: the raw binding refuses a profile the provider's row does not list, streams and bodies alike", () => {
  for (const [kind, profile] of [
    ['anthropic', 'qwen-0.23.3'],
    ['openai', 'qwen-0.23.3'],
    ['openai-responses', 'qwen-0.21'],
  ]) {
    assert.throws(
      () => new native.ConverterHandle(kind, profile),
      (err) =>
        err instanceof ToolCallStreamError &&
        err.code === 'INVALID_ARGUMENT' &&
        err.message.includes(`"${kind}"`) &&
        err.message.includes(profile) &&
        PROVIDER_PROFILES[kind].every((listed) => err.message.includes(listed)),
      `${kind} under ${profile}`,
    );
    const [item] = JSON.parse(native.convertResponseText(kind, '{}', profile));
    assert.equal(item.error?.code, 'INVALID_ARGUMENT', `${kind} body under ${profile}`);
    assert.ok(item.error.message.includes(`"${kind}"`), item.error.message);
  }
  for (const kind of PROVIDERS) {
    for (const profile of PROVIDER_PROFILES[kind]) assert.ok(new native.ConverterHandle(kind, profile).slot >= 0);
  }
});

test("profile: the raw binding's default is the row's first (openai-responses: qwen-0.24, with message metadata)", () => {
  const events = [
    { type: 'response.created', response: { id: 'r1', model: 'm' } },
    { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', content: [] } },
    { type: 'response.output_text.delta', output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'hi' },
  ];
  const batches = (profile) => {
    const h = new native.ConverterHandle('openai-responses', profile, undefined, JSON.stringify({ model: 'm' }));
    return events.map((e) =>
      String(native.converterPushObject(h.slot, JSON.stringify(e))).replace(/"createTime":"\d+"/g, 'T'),
    );
  };
  assert.deepEqual(batches(undefined), batches('qwen-0.24'));
  assert.notDeepEqual(batches(undefined), batches('qwen-0.23.3'));
});

test("profile: a class's message lists its row's profiles", () => {
  assert.throws(() => new AnthropicConverter({ profile: 'qwen-0.23.3' }), {
    code: 'INVALID_ARGUMENT',
    message: "AnthropicConverter: options.profile must be 'qwen-0.21' or 'qwen-0.24'",
  });
  assert.throws(() => new OpenAIConverter({ profile: 'qwen-0.23.3' }), {
    code: 'INVALID_ARGUMENT',
    message: "OpenAIConverter: options.profile must be 'qwen-0.21' or 'qwen-0.24'",
  });
  assert.throws(() => new OpenAIResponsesConverter({ model: 'm', profile: 'qwen-0.21' }), {
    code: 'INVALID_ARGUMENT',
    message: "OpenAIResponsesConverter: options.profile must be 'qwen-0.24' or 'qwen-0.23.3'",
  });
});

test('qwen-0.24: a call is held until the stop reason, in every input form', () => {
  for (const asText of [false, true]) {
    const c = new AnthropicConverter({ profile: 'qwen-0.24' });
    const held = closedCall.flatMap((e) => c.pushEvent(asText ? JSON.stringify(e) : e));
    assert.deepEqual(calls(held), [], 'nothing at content_block_stop');
    const confirmed = c.pushEvent({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: 9 },
    });
    assert.deepEqual(calls(confirmed), ['toolu_1']);
    assert.deepEqual(confirmed[0].functionCalls[0].args, { path: 'a' });
  }
  const old = new AnthropicConverter();
  assert.deepEqual(calls(closedCall.flatMap((e) => old.pushEvent(e))), ['toolu_1'], 'qwen-0.21: at content_block_stop');
});

/** The chunks upstreamFailed(error) yields after a closed, complete call. */
function afterFailure(error, profile = 'qwen-0.24') {
  const c = new AnthropicConverter({ profile });
  for (const e of closedCall) c.pushEvent(e);
  const out = c.upstreamFailed(error);
  assert.equal(c.finished, true);
  return calls(out);
}

const coded = (code, extra = {}) => Object.assign(new Error('x'), { code }, extra);

test('upstreamFailed: only a retryable stream transport error yields the held calls (0.24.4 classification)', () => {
  for (const code of [
    'ECONNRESET',
    'ETIMEDOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_SOCKET',
  ]) {
    assert.deepEqual(afterFailure(coded(code)), ['toolu_1'], code);
  }
  // A transport code outside the retryable set, none, or a non-error.
  for (const code of ['EPIPE', 'ECONNREFUSED', 'ENOTFOUND', 'EWHATEVER', undefined]) {
    assert.deepEqual(afterFailure(coded(code)), [], String(code));
  }
  for (const error of [undefined, null, 'ECONNRESET', 42]) assert.deepEqual(afterFailure(error), [], String(error));
  // The code found along the cause chain (Error instances, 4 levels).
  const wrapped = new Error('fetch failed', { cause: new Error('inner', { cause: coded('UND_ERR_SOCKET') }) });
  assert.deepEqual(afterFailure(wrapped), ['toolu_1'], 'cause chain');
  let deep = coded('ECONNRESET');
  for (let i = 0; i < 5; i++) deep = new Error(`level ${i}`, { cause: deep });
  assert.deepEqual(afterFailure(deep), [], 'deeper than 4 levels');
  // The first transport code decides.
  assert.deepEqual(afterFailure(coded('EPIPE', { cause: coded('ECONNRESET') })), [], 'first code wins');
  // An HTTP status below 500, or an abort, is never a transport failure.
  assert.deepEqual(afterFailure(coded('ECONNRESET', { status: 400 })), [], 'status 400');
  assert.deepEqual(afterFailure(coded('ECONNRESET', { status: 502 })), ['toolu_1'], 'status 502');
  const abort = coded('ECONNRESET');
  abort.name = 'AbortError';
  assert.deepEqual(afterFailure(abort), [], 'AbortError');
  assert.deepEqual(afterFailure(coded('ABORT_ERR')), [], 'ABORT_ERR');
  // An error whose fields throw is not classified, and never replaced.
  const hostile = new Proxy(new Error('x'), {
    get() {
      throw new Error('trap');
    },
  });
  assert.deepEqual(afterFailure(hostile), []);
  // qwen-0.21 held nothing.
  assert.deepEqual(afterFailure(coded('ECONNRESET'), 'qwen-0.21'), []);
});

test('upstreamFailed: no held call is yielded while a block is open or after an incomplete one', () => {
  const open = new AnthropicConverter({ profile: 'qwen-0.24' });
  for (const e of [...closedCall, toolStart(1, 'toolu_2'), args(1, '{"pa')]) open.pushEvent(e);
  assert.deepEqual(calls(open.upstreamFailed(coded('ECONNRESET'))), []);
  const empty = new AnthropicConverter({ profile: 'qwen-0.24' });
  for (const e of [start, toolStart(0, 'toolu_e'), stop(0)]) empty.pushEvent(e);
  assert.deepEqual(calls(empty.upstreamFailed(coded('ECONNRESET'))), [], 'empty input is never confirmed complete');
});

test('convertAnthropicStream (qwen-0.24): held calls, then the source error unchanged', async () => {
  const error = coded('ECONNRESET');
  async function* feed() {
    yield* closedCall;
    throw error;
  }
  const got = [];
  await assert.rejects(
    (async () => {
      for await (const r of convertAnthropicStream(feed(), { profile: 'qwen-0.24' })) got.push(r);
    })(),
    (err) => err === error,
  );
  assert.deepEqual(calls(got), ['toolu_1']);
});

test('convertAnthropicStream: an error thrown into the consumer is not a source failure', async () => {
  const gen = convertAnthropicStream([...closedCall, { type: 'message_delta', delta: { stop_reason: 'tool_use' } }], {
    profile: 'qwen-0.24',
  });
  const first = await gen.next();
  assert.equal(first.done, false);
  const mine = coded('ECONNRESET');
  await assert.rejects(gen.throw(mine), (err) => err === mine);
  assert.deepEqual(await gen.next(), { done: true, value: undefined });
});

test('qwen-0.24: text built on the object path counts as assistant payload at the end', () => {
  // The preparation chunk lets the JS layer build the later text deltas
  // itself; with a tool block still open, 0.24.4 fails the stream at the end
  // only when some yielded chunk had a part.
  const c = new AnthropicConverter({ profile: 'qwen-0.24' });
  for (const e of [start, toolStart(0, 'toolu_open'), args(0, '{"pa')]) c.pushEvent(e);
  assert.equal(c.pushEvent(textDelta(1, 'hello'))[0].text, 'hello');
  assert.throws(() => c.end(), {
    code: 'MALFORMED_TOOL_CALL',
    name: 'InvalidStreamError',
    message: 'Anthropic stream contained malformed tool call arguments: stream ended with an open tool-use block',
  });
  const quiet = new AnthropicConverter({ profile: 'qwen-0.24' });
  for (const e of [start, toolStart(0, 'toolu_open'), args(0, '{"pa')]) quiet.pushEvent(e);
  assert.deepEqual(quiet.end(), [], 'no payload: no error');
});

test("qwen-0.24: an in-band error event leaves the held calls to the host's classification, in every form", async () => {
  const error = { type: 'error', error: { type: 'api_error', message: 'Internal' }, request_id: 'req_1' };
  const sse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
  for (const profile of ['qwen-0.21', 'qwen-0.24']) {
    for (const retryable of [true, false]) {
      // The converter: STREAM_ERROR with the whole payload, then upstreamFailed with the host's answer.
      for (const push of [
        (c) => c.pushBytes(sse([...closedCall, error])),
        (c) => [...closedCall, error].flatMap((e) => c.pushEvent(e)),
      ]) {
        const c = new AnthropicConverter({ profile });
        let err;
        try {
          push(c);
        } catch (e) {
          err = e;
        }
        assert.equal(err?.code, 'STREAM_ERROR');
        assert.deepEqual(JSON.parse(err.providerEvent), error, 'the whole payload, request_id included');
        const held = calls(c.upstreamFailed(err, { retryable }));
        assert.deepEqual(held, profile === 'qwen-0.24' && retryable ? ['toolu_1'] : []);
        assert.deepEqual(c.upstreamFailed(err, { retryable: true }), [], 'once');
      }
      // The generator asks host.isRetryableUpstreamError (it may answer with a promise).
      const asked = [];
      const host = {
        isRetryableUpstreamError: async (e) => {
          asked.push(e.code);
          return retryable;
        },
      };
      for (const source of [[...closedCall, error], [Buffer.from(sse([...closedCall, error]))]]) {
        const out = [];
        await assert.rejects(
          async () => {
            for await (const r of convertAnthropicStream(source, { profile, host })) out.push(r);
          },
          { code: 'STREAM_ERROR' },
        );
        const want = profile === 'qwen-0.21' || retryable ? ['toolu_1'] : [];
        assert.deepEqual(calls(out), want, `${profile} retryable=${retryable}`);
      }
      assert.deepEqual(asked, profile === 'qwen-0.24' ? ['STREAM_ERROR', 'STREAM_ERROR'] : []);
    }
  }
  assert.throws(() => new AnthropicConverter({ host: { isRetryableUpstreamError: 1 } }), { code: 'INVALID_ARGUMENT' });
});
