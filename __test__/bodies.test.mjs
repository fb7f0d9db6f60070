// Non-streaming responses (convertAnthropicResponse, convertOpenAIResponse)
// and the Anthropic empty-stream fallback (AnthropicConverter.emptyStream,
// convertAnthropicStream's emptyFallback) against the published builds'
// outputs in fixtures/bodies (generate.mjs there runs
// convertAnthropicResponseToGemini, convertOpenAIResponseToGemini and
// processStreamWithEmptyFallback, `…ToLlm` in 0.24.4), at both releases
// under the matching profile, in every input form: the body object, its
// JSON text, its bytes (Buffer, Uint8Array, ArrayBuffer, with and without a
// byte order mark); the stream as SDK events, their JSON text and SSE bytes.
// Besides the JSON, what the reference attaches out of band: the usage
// provenance (`getUsageProvenance`, value and keys) and the parts it marks as
// OpenAI reasoning (`isReasoningPart`), as the oracle records them
// (`usageProvenance`, `usageProvenanceKeys`, `reasoningParts`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const {
  convertAnthropicResponse,
  convertOpenAIResponse,
  convertAnthropicStream,
  AnthropicConverter,
  ToolCallStreamError,
  getToolCallPreparations,
  getUsageProvenance,
  isReasoningPart,
} = require('../index.js');
const { GenerateContentResponse } = require('@google/genai');

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'bodies');
// JSON.parse keeps the lone surrogate of `text-lone-surrogate` as it is.
const cases = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'));
const RELEASES = [
  ['0.21.2', 'qwen-0.21', 'expected'],
  ['0.24.4', 'qwen-0.24', 'expected-0.24.4'],
];
const FROZEN = '1700000000000';

const expected = (sub) =>
  fs
    .readFileSync(path.join(dir, sub, 'cases.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/**
 * The response's JSON as the oracle records it, key order included; a
 * createTime that the oracle took from its frozen clock must be this
 * clock's, within the test's window.
 */
function view(response, want, window) {
  assert.ok(response instanceof GenerateContentResponse, 'a real GenerateContentResponse');
  assert.deepEqual(getToolCallPreparations(response), [], 'no preparations on this path');
  const got = JSON.parse(JSON.stringify(response));
  if (want.createTime === FROZEN) {
    const t = Number(got.createTime);
    assert.match(got.createTime, /^\d{13}$/);
    assert.ok(t >= window[0] && t <= Date.now(), `createTime ${t} is the clock's`);
    got.createTime = FROZEN;
  }
  return JSON.stringify(got);
}

/** The out-of-band annotations of `response`, in the oracle's terms. */
function annotations(response) {
  const provenance = getUsageProvenance(response);
  const marked = (response.candidates?.[0]?.content?.parts ?? []).flatMap((p, i) => (isReasoningPart(p) ? [i] : []));
  return {
    usageProvenance: provenance && JSON.parse(JSON.stringify(provenance)),
    usageProvenanceKeys: provenance && Object.keys(provenance),
    reasoningParts: marked.length > 0 ? marked : undefined,
  };
}

/** What the oracle recorded for one response. */
const wantAnnotations = (item) => ({
  usageProvenance: item.usageProvenance,
  usageProvenanceKeys: item.usageProvenanceKeys,
  reasoningParts: item.reasoningParts,
});

const forms = (body) => {
  const text = JSON.stringify(body);
  const bytes = Buffer.from(text);
  return [
    ['object', body],
    ['JSON text', text],
    ['Buffer', bytes],
    ['Uint8Array', new Uint8Array(bytes)],
    ['ArrayBuffer', bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)],
    ['bytes with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])],
  ];
};

for (const [version, profile, sub] of RELEASES) {
  test(`bodies match Qwen Code ${version} in every input form`, () => {
    let n = 0;
    let provenanced = 0;
    let reasoning = 0;
    for (const line of expected(sub)) {
      const c = cases[line.name];
      if (c.kind === 'fallback') continue;
      assert.ok(!line.error, `${line.name}: the oracle converted it`);
      const want = line.responses[0].response;
      const options = { profile, responseParsing: c.kind === 'openai' ? line.responseParsing : undefined };
      const convert = c.kind === 'anthropic' ? convertAnthropicResponse : convertOpenAIResponse;
      for (const [form, body] of forms(c.body)) {
        const window = [Date.now()];
        const response = convert(body, options);
        const got = view(response, want, window);
        assert.equal(got, JSON.stringify(want), `${line.name} (${version}, ${form})`);
        assert.deepEqual(
          annotations(response),
          wantAnnotations(line.responses[0]),
          `${line.name} (${version}, ${form}): usage provenance, reasoning parts`,
        );
      }
      n++;
      if (line.responses[0].usageProvenance) provenanced++;
      if (line.responses[0].reasoningParts) reasoning++;
    }
    assert.ok(n >= 60, `${n} bodies`);
    // The fixtures exercise both annotations (generate.mjs records them).
    assert.ok(provenanced >= 50 && reasoning >= 5, `${provenanced} with provenance, ${reasoning} with reasoning`);
  });

  test(`the empty-stream fallback matches Qwen Code ${version} (events, JSON text, SSE bytes)`, async () => {
    let n = 0;
    for (const line of expected(sub)) {
      const c = cases[line.name];
      if (c.kind !== 'fallback') continue;
      const sse = Buffer.from(anthropicSse(c.events));
      const sources = [
        ['events', c.events],
        ['JSON text', c.events.map((e) => JSON.stringify(e))],
        ['SSE bytes', [sse.subarray(0, 7), sse.subarray(7)]],
      ];
      for (const [form, source] of sources) {
        const window = [Date.now()];
        let requests = 0;
        const got = [];
        let error;
        const gen = convertAnthropicStream(source, {
          profile,
          emptyFallback: async () => {
            requests++;
            return c.body;
          },
        });
        let result;
        try {
          for (;;) {
            const step = await gen.next();
            if (step.done) {
              result = step.value;
              break;
            }
            got.push(step.value);
          }
        } catch (err) {
          error = err;
        }
        const how = `${line.name} (${version}, ${form})`;
        assert.equal(requests, line.fallbackRequests, `${how}: fallback requests`);
        assert.equal(got.length, line.responses.length, `${how}: responses`);
        got.forEach((r, i) => {
          const want = line.responses[i].response;
          // Stream chunks may carry preparations (a tool_use block start).
          const plain = JSON.parse(JSON.stringify(r));
          if (plain.createTime === undefined || want.createTime !== FROZEN) {
            assert.deepEqual(plain, want, how);
          } else {
            plain.createTime = FROZEN;
            assert.equal(JSON.stringify(plain), JSON.stringify(want), `${how} response ${i}`);
          }
          assert.ok(Number(r.createTime) >= window[0]);
          assert.deepEqual(annotations(r), wantAnnotations(line.responses[i]), `${how} response ${i}: annotations`);
        });
        if (line.error) {
          assert.ok(error instanceof ToolCallStreamError, `${how}: ${error}`);
          assert.equal(error.type, line.error.type, how);
        } else {
          assert.equal(error, undefined, `${how}: ${error?.stack}`);
          assert.equal(result, undefined, how);
        }

        // The converter says the same, whatever the input form.
        const converter = new AnthropicConverter({ profile });
        let failed = false;
        try {
          if (form === 'SSE bytes') for (const piece of source) converter.pushBytes(piece);
          else for (const e of source) converter.pushEvent(e);
          assert.equal(converter.emptyStream, false, `${how}: not before end()`);
          converter.end();
        } catch {
          failed = true;
        }
        assert.equal(failed, Boolean(line.error), how);
        assert.equal(converter.emptyStream, line.fallbackRequests === 1, `${how}: emptyStream`);
      }
      n++;
    }
    assert.equal(n, 10);
  });
}

test('without emptyFallback an empty stream yields nothing more', async () => {
  const gen = convertAnthropicStream([{ type: 'message_stop' }]);
  const step = await gen.next();
  assert.deepEqual(step, { done: true, value: undefined });
  await assert.rejects(
    convertAnthropicStream([], { emptyFallback: 5 }).next(),
    (e) => e instanceof ToolCallStreamError && e.code === 'INVALID_ARGUMENT',
  );
});

test("the fallback's error is rethrown as it is; a non-empty stream never calls it", async () => {
  const boom = new Error('429 from the non-streaming probe');
  await assert.rejects(async () => {
    for await (const _ of convertAnthropicStream([], { emptyFallback: () => Promise.reject(boom) }));
  }, boom);
  let called = false;
  const events = [
    { type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 1, output_tokens: 0 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
  ];
  const out = [];
  for await (const r of convertAnthropicStream(events, { emptyFallback: () => (called = true) })) out.push(r);
  assert.equal(called, false);
  assert.equal(out.length, 1);
  // A failed fallback body is the converter's typed error.
  await assert.rejects(
    async () => {
      for await (const _ of convertAnthropicStream([], { emptyFallback: () => 'null' }));
    },
    (e) => e instanceof ToolCallStreamError && e.code === 'INVALID_RESPONSE',
  );
});

test('bad bodies are typed errors with stable codes', () => {
  const cases = [
    [null, 'INVALID_ARGUMENT'],
    [5, 'INVALID_ARGUMENT'],
    [undefined, 'INVALID_ARGUMENT'],
    ['{', 'INVALID_JSON'],
    ['', 'INVALID_JSON'],
    ['null', 'INVALID_RESPONSE'],
    ['[]', 'INVALID_RESPONSE'],
    [[], 'INVALID_RESPONSE'],
    [Buffer.from('7'), 'INVALID_RESPONSE'],
    [{ content: {} }, 'INVALID_RESPONSE', 'anthropic'],
    [{ content: [null] }, 'INVALID_RESPONSE', 'anthropic'],
    [{ choices: [{}] }, 'INVALID_RESPONSE', 'openai'],
    [{ choices: [{ message: { tool_calls: [null] } }] }, 'INVALID_RESPONSE', 'openai'],
  ];
  const cyclic = {};
  cyclic.self = cyclic;
  cases.push([cyclic, 'INVALID_ARGUMENT']);
  for (const [body, code, only] of cases) {
    for (const [kind, fn] of [
      ['anthropic', convertAnthropicResponse],
      ['openai', convertOpenAIResponse],
    ]) {
      if (only && only !== kind) continue;
      assert.throws(
        () => fn(body),
        (e) => e instanceof ToolCallStreamError && e.code === code,
        `${kind}: ${String(body)} → ${code}`,
      );
    }
  }
  assert.throws(
    () => convertOpenAIResponse({}, { profile: 'qwen-9' }),
    (e) => e.code === 'INVALID_ARGUMENT',
  );
  assert.throws(
    () => convertOpenAIResponse({}, { responseParsing: { somethingElse: true } }),
    (e) => e.code === 'INVALID_ARGUMENT',
  );
});

test('text holding a lone surrogate converts as the object does', () => {
  const body = { content: [{ type: 'text', text: 'a\ud800b' }], stop_reason: 'end_turn' };
  const raw = `{"content":[{"type":"text","text":"a\ud800b"}],"stop_reason":"end_turn"}`;
  assert.equal(raw.isWellFormed(), false);
  const a = convertAnthropicResponse(body);
  const b = convertAnthropicResponse(raw);
  assert.equal(a.candidates[0].content.parts[0].text, 'a\ud800b');
  assert.equal(b.candidates[0].content.parts[0].text, 'a\ud800b');
});

test('the host: its response class, its errors, its telemetry hook', () => {
  class HostResponse {}
  class HostError extends Error {}
  const seen = [];
  const host = {
    GenerateContentResponse: HostResponse,
    createError: (e) => new HostError(`${e.code}: ${e.message}`),
    onEvent: (e) => seen.push(e),
  };
  const body = { choices: [{ message: { content: 'x' }, finish_reason: 'stop' }] };
  const r = convertOpenAIResponse(body, { host });
  assert.ok(r instanceof HostResponse);
  assert.equal(r.candidates[0].content.parts[0].text, 'x');
  assert.deepEqual(seen, [body]);
  convertOpenAIResponse(JSON.stringify(body), { host });
  assert.equal(seen.length, 1, 'text and bytes are not events');
  assert.throws(
    () => convertAnthropicResponse('null', { host }),
    (e) => e instanceof HostError && e.message.startsWith('INVALID_RESPONSE'),
  );
});

test("the host's provenance store and reasoning-part factory get a body's annotations, in every input form", () => {
  // As for streams (lib/host.js): the Qwen preload maps these onto Qwen's own
  // setGenAiUsageProvenance store and createOpenAIReasoningThoughtPart.
  const MARK = Symbol('host reasoning');
  const store = new Map();
  const made = [];
  const host = {
    usageProvenance: { set: (usage, provenance) => store.set(usage, provenance) },
    createReasoningPart(text) {
      const part = { text, thought: true };
      Object.defineProperty(part, MARK, { value: true });
      made.push(part);
      return part;
    },
  };
  const openai = {
    id: 'c',
    choices: [{ message: { content: 'answer', reasoning_content: 'plan' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, prompt_tokens_details: { cached_tokens: 1 } },
  };
  const anthropic = {
    content: [{ type: 'thinking', thinking: 'hm', signature: 's' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 3, output_tokens: 2, cache_creation_input_tokens: 4 },
  };
  for (const [form, body] of forms(openai)) {
    store.clear();
    made.length = 0;
    const r = convertOpenAIResponse(body, { host });
    const [reasoning, text] = r.candidates[0].content.parts;
    assert.deepEqual(made, [reasoning], `${form}: the host made the reasoning part`);
    assert.equal(reasoning[MARK], true, form);
    assert.ok(isReasoningPart(reasoning) && !isReasoningPart(text), form);
    assert.deepEqual([...store], [[r.usageMetadata, { cachedInputTokensReported: true }]], form);
    assert.deepEqual(getUsageProvenance(r), { cachedInputTokensReported: true }, form);
    assert.equal(
      JSON.stringify(r.candidates[0].content.parts),
      '[{"text":"plan","thought":true},{"text":"answer"}]',
      `${form}: never serialised`,
    );
  }
  for (const [form, body] of forms(anthropic)) {
    store.clear();
    made.length = 0;
    const r = convertAnthropicResponse(body, { host });
    assert.equal(made.length, 0, `${form}: Anthropic thinking is not OpenAI reasoning`);
    assert.equal(isReasoningPart(r.candidates[0].content.parts[0]), false, form);
    const want = { cachedInputTokensReported: false, cacheCreationInputTokens: 4 };
    assert.deepEqual([...store], [[r.usageMetadata, want]], form);
    assert.deepEqual(getUsageProvenance(r.usageMetadata), want, form);
  }
  // No usage, no provenance.
  store.clear();
  const bare = convertOpenAIResponse({ choices: [{ message: { content: 'x' } }] }, { host });
  assert.equal(getUsageProvenance(bare), undefined);
  assert.equal(store.size, 0);
});

test('repair depth applies to string tool arguments', () => {
  const deep = '['.repeat(100);
  const body = { content: [{ type: 'tool_use', id: 't', name: 'x', input: deep }] };
  assert.throws(
    () => convertAnthropicResponse(body, { limits: { maxRepairDepth: 10 } }),
    (e) => e.code === 'LIMIT_EXCEEDED',
  );
  const ok = convertAnthropicResponse(body);
  assert.ok(ok.candidates[0].content.parts[0].functionCall);
});
