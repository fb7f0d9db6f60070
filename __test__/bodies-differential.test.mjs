// Non-streaming bodies, differentially: thousands of random Anthropic
// Messages and OpenAI ChatCompletions (plausible shapes with wrong types,
// missing and null fields mixed in) through the published Qwen Code builds'
// own converters (convertAnthropicResponseToGemini, convertOpenAIResponseToGemini;
// `…ToLlm` in 0.24.4; fetched outside the repo when missing) and through
// convertAnthropicResponse / convertOpenAIResponse, as an object and as bytes,
// under the matching profile. Every response must be the same JSON, key order
// included (createTime from the clock aside); where the reference throws a
// TypeError, the body must be INVALID_RESPONSE. Left out, as RELIABILITY.md
// lists them: bodies that are not objects, token counts that are not
// numbers, reasoning that is an array, finish reasons named like
// Object.prototype keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { ensureQwenBuild } from '../devtools/qwen-builds.mjs';
import { importPeer, cliConfig } from '../devtools/peer.mjs';
import { rng } from '../devtools/random.mjs';

const require = createRequire(import.meta.url);
const { convertAnthropicResponse, convertOpenAIResponse, ToolCallStreamError } = require('../index.js');

const CASES = 1500;

function generator(seed) {
  const r = rng(seed);
  const pick = (items) => items[Math.floor(r() * items.length)];
  const maybe = (p, f) => (r() < p ? f() : undefined);
  const text = () =>
    pick([
      '',
      'hi',
      ' ',
      'héllo 😀',
      '<think>plan</think>answer',
      'a\ud800b',
      'x'.repeat(30),
      `ab${'é'.repeat(25)}`,
      '思考'.repeat(9),
    ]);
  const count = () => pick([undefined, null, 0, 1, 7, 120, 2500, 1.5]);
  const args = () => pick(['{"a":1}', '{"a":', '', '5', '[1]', '}{', 'null', '{"p":"x', "{'a': 'b'}", '{"a":NaN}']);
  const anyValue = () => pick([null, 0, 5, true, false, '', 'str', [], [1], {}, { a: 1 }]);
  const setSome = (o, fields) => {
    for (const [k, f, p = 0.7] of fields) {
      if (r() < p) o[k] = f();
    }
    return o;
  };

  const block = () => {
    if (r() < 0.08) return pick([null, 5, 'text', [], true]);
    const type = pick([
      'text',
      'tool_use',
      'thinking',
      'redacted_thinking',
      'server_tool_use',
      'image',
      undefined,
      ['text'],
    ]);
    return setSome(type === undefined ? {} : { type }, [
      ['text', () => (r() < 0.8 ? text() : anyValue())],
      ['id', () => (r() < 0.8 ? pick(['toolu_1', 'toolu_2', '']) : anyValue())],
      ['name', () => (r() < 0.8 ? pick(['read_file', 'write_file', '']) : anyValue())],
      ['input', () => pick([{ path: 'a' }, [1, 2], args(), 5, null, true, {}])],
      ['thinking', () => (r() < 0.8 ? text() : anyValue())],
      ['signature', () => (r() < 0.8 ? pick(['', 'sig']) : anyValue())],
    ]);
  };
  const anthropic = () =>
    setSome({}, [
      ['id', () => (r() < 0.9 ? 'msg_1' : anyValue())],
      ['type', () => 'message'],
      ['model', () => (r() < 0.8 ? 'claude-x' : anyValue())],
      ['content', () => (r() < 0.9 ? Array.from({ length: Math.floor(r() * 4) }, block) : anyValue()), 0.95],
      [
        'stop_reason',
        () =>
          pick([
            'end_turn',
            'tool_use',
            'max_tokens',
            'stop_sequence',
            'refusal',
            'pause_turn',
            'content_filter',
            null,
            '',
            5,
            ['end_turn'],
            {},
          ]),
      ],
      [
        'usage',
        () =>
          r() < 0.9
            ? setSome({}, [
                ['input_tokens', count],
                ['output_tokens', count],
                ['cache_read_input_tokens', count, 0.4],
                ['cache_creation_input_tokens', count, 0.4],
              ])
            : pick([null, 0, true, []]),
      ],
    ]);

  const call = () => {
    if (r() < 0.08) return pick([null, 5, 'call', [], true]);
    return setSome({}, [
      ['id', () => (r() < 0.8 ? pick(['call_1', 'call_2', '']) : anyValue())],
      ['type', () => 'function'],
      [
        'function',
        () =>
          r() < 0.9
            ? setSome({}, [
                ['name', () => (r() < 0.8 ? pick(['read_file', '']) : anyValue())],
                ['arguments', () => (r() < 0.85 ? args() : anyValue())],
              ])
            : anyValue(),
        0.9,
      ],
    ]);
  };
  const message = () =>
    setSome({ role: 'assistant' }, [
      ['content', () => (r() < 0.85 ? text() : anyValue())],
      ['reasoning_content', () => (r() < 0.8 ? text() : pick([null, 0, 5, true, {}])), 0.4],
      ['reasoning', () => pick(['via reasoning', '', null]), 0.2],
      ['tool_calls', () => (r() < 0.85 ? Array.from({ length: Math.floor(r() * 3) }, call) : anyValue()), 0.4],
    ]);
  const choice = () => {
    if (r() < 0.05) return pick([null, 0, 5, 'c', [], true]);
    return setSome({ index: 0 }, [
      ['message', () => (r() < 0.92 ? message() : pick([null, 'm', 5, []])), 0.95],
      [
        'finish_reason',
        () => pick(['stop', 'length', 'tool_calls', 'content_filter', 'function_call', 'odd', null, '', 5]),
      ],
    ]);
  };
  const openai = () =>
    setSome({ object: 'chat.completion' }, [
      ['id', () => (r() < 0.9 ? 'chatcmpl-1' : anyValue())],
      ['created', () => pick([1700000500, 0, null, '1700000999', 1.5, 1e21, true, [1, [2, null]], {}])],
      ['model', () => (r() < 0.8 ? 'gpt-x' : anyValue())],
      [
        'choices',
        () =>
          r() < 0.9 ? Array.from({ length: Math.floor(r() * 2.5) }, choice) : pick([null, {}, { 0: choice() }, '', 5]),
        0.95,
      ],
      [
        'usage',
        () =>
          r() < 0.9
            ? setSome({}, [
                ['prompt_tokens', count],
                ['completion_tokens', count],
                ['total_tokens', count],
                ['prompt_tokens_details', () => pick([{ cached_tokens: 3 }, { cached_tokens: null }, {}, null]), 0.3],
                ['cached_tokens', count, 0.2],
                [
                  'completion_tokens_details',
                  () => pick([{ reasoning_tokens: 4 }, { reasoning_tokens: null }, {}]),
                  0.3,
                ],
              ])
            : pick([null, 0, true, []]),
      ],
    ]);
  return { anthropic, openai };
}

/** The response's JSON, createTime from a millisecond clock masked. */
function view(response) {
  const json = JSON.parse(JSON.stringify(response));
  if (typeof json.createTime === 'string' && /^\d{13}$/.test(json.createTime)) json.createTime = '<now>';
  return JSON.stringify(json);
}

function outcome(fn) {
  try {
    return { json: view(fn()) };
  } catch (err) {
    return { error: err };
  }
}

for (const [version, profile] of [
  ['0.21.2', 'qwen-0.21'],
  ['0.24.4', 'qwen-0.24'],
]) {
  test(`random bodies: the same responses as Qwen Code ${version}`, { timeout: 300_000 }, async () => {
    const dir = ensureQwenBuild(version);
    const q = await importPeer(dir, [
      'AnthropicContentGenerator',
      'OpenAIContentConverter',
      'ContentGenerationPipeline',
      'EnhancedErrorHandler',
      'determineProvider',
      'preloadRuntimeFetchModule',
    ]);
    await q.preloadRuntimeFetchModule();
    const anthropicGenerator = new q.AnthropicContentGenerator(
      { model: 'm', apiKey: 'sk-diff', baseUrl: 'https://api.anthropic.com', authType: 'anthropic' },
      cliConfig,
    );
    const { converter } = anthropicGenerator;
    const anthropicRef = (converter.convertAnthropicResponseToGemini ?? converter.convertAnthropicResponseToLlm).bind(
      converter,
    );
    const openaiConfig = { model: 'm', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-diff', authType: 'openai' };
    const pipeline = new q.ContentGenerationPipeline({
      contentGeneratorConfig: openaiConfig,
      provider: q.determineProvider(openaiConfig, cliConfig),
      cliConfig,
      errorHandler: new q.EnhancedErrorHandler(),
    });
    const C = q.OpenAIContentConverter;
    const openaiConvert = C.convertOpenAIResponseToGemini ?? C.convertOpenAIResponseToLlm;
    const openaiRef = (body) =>
      openaiConvert.call(C, body, pipeline.createRequestContext({ model: 'm', contents: [], config: {} }, false));

    const gen = generator(version === '0.21.2' ? 21 : 24);
    const counts = { same: 0, typeErrors: 0 };
    for (let i = 0; i < CASES; i++) {
      for (const [kind, body, ref, ours] of [
        ['anthropic', gen.anthropic(), anthropicRef, convertAnthropicResponse],
        ['openai', gen.openai(), openaiRef, convertOpenAIResponse],
      ]) {
        const want = outcome(() => ref(structuredClone(body)));
        const label = `${kind} #${i}: ${JSON.stringify(body)}`;
        for (const form of [body, Buffer.from(JSON.stringify(body))]) {
          const got = outcome(() => ours(form, { profile }));
          if (want.error) {
            assert.ok(want.error instanceof TypeError, `${label}: the reference threw ${want.error.stack}`);
            assert.ok(
              got.error instanceof ToolCallStreamError && got.error.code === 'INVALID_RESPONSE',
              `${label}: ${got.error ?? got.json}`,
            );
          } else {
            assert.equal(got.error, undefined, `${label}: ${got.error?.stack}`);
            assert.equal(got.json, want.json, label);
          }
        }
        if (want.error) counts.typeErrors++;
        else counts.same++;
      }
    }
    process.stderr.write(`${version}: ${JSON.stringify(counts)}\n`);
    // The generator reaches both outcomes often.
    assert.ok(counts.same > CASES, JSON.stringify(counts));
    assert.ok(counts.typeErrors > CASES / 20, JSON.stringify(counts));
  });
}
