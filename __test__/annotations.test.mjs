// What the reference attaches besides preparations, on the plain converters:
// usage provenance (`getUsageProvenance`, compared with the oracle's
// `usageProvenance` on every corpus line by conformance.test.mjs) and the
// mark of OpenAI reasoning thoughts (`isReasoningPart`), in every input form,
// never serialised, and handed to a host's own stores (the embedding API).
// Inside the published Qwen Code both are checked through Qwen's own getters
// by qwen-host.test.mjs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { openaiSse, anthropicSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  convertOpenAIStream,
  getUsageProvenance,
  isReasoningPart,
} = require('../index.js');

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (dir, name) => JSON.parse(fs.readFileSync(path.join(here, 'fixtures', dir, 'streams', `${name}.json`)));
const parts = (r) => r.candidates?.[0]?.content?.parts ?? [];

/** Every response of `chunks` through each OpenAI input form. */
function openaiForms(chunks, options) {
  const forms = {};
  const objects = new OpenAIConverter(options);
  forms.objects = [...chunks.map((c) => objects.pushChunk(c)), ...objects.end()];
  const texts = new OpenAIConverter(options);
  forms.text = [...chunks.map((c) => texts.pushChunk(JSON.stringify(c))), ...texts.end()];
  const bytes = new OpenAIConverter(options);
  const sse = Buffer.from(openaiSse(chunks));
  forms.bytes = [];
  for (let i = 0; i < sse.length; i += 7) forms.bytes.push(...bytes.pushBytes(sse.subarray(i, i + 7)));
  forms.bytes.push(...bytes.end());
  return forms;
}

async function pipeline(chunks, options) {
  const out = [];
  for await (const r of convertOpenAIStream(chunks, options)) out.push(r);
  return out;
}

/** `[text, marked]` for every thought part. */
const thoughts = (responses) =>
  responses.flatMap((r) =>
    parts(r)
      .filter((p) => p.thought)
      .map((p) => [p.text, isReasoningPart(p)]),
  );

describe('isReasoningPart: OpenAI thoughts made from reasoning_content / reasoning', () => {
  it('marks reasoning thoughts in every input form, and the pipeline keeps the mark', async () => {
    const chunks = fixture('provenance', 'openai-reasoning-fields-then-tool');
    for (const [form, responses] of Object.entries(openaiForms(chunks))) {
      assert.deepEqual(
        thoughts(responses),
        [
          ['**Planning** the edit. ', true],
          ['Then **write** it.', true],
        ],
        form,
      );
    }
    assert.deepEqual(thoughts(await pipeline(chunks)), [
      ['**Planning** the edit. ', true],
      ['Then **write** it.', true],
    ]);
  });

  it('is non-enumerable: the JSON and the keys are those of a plain thought', () => {
    const [r] = new OpenAIConverter().pushChunk(fixture('provenance', 'openai-reasoning-fields-then-tool')[0])
      .candidates[0].content.parts;
    assert.deepEqual(Object.keys(r), ['text', 'thought']);
    assert.equal(JSON.stringify(r), '{"text":"**Planning** the edit. ","thought":true}');
    assert.equal(
      isReasoningPart({ ...r }),
      false,
      'a copy is not a reasoning part (as with a symbol-keyed, non-enumerable mark)',
    );
  });

  it('does not mark tagged (<think>) thoughts; the reasoning held for a tagged stream is marked when flushed', () => {
    // Qwen Code converter.ts (convertOpenAIChunkToGemini): tagged thoughts come
    // from the TaggedThinkingParser as plain {text, thought}; buffered
    // reasoning is flushed at the finish by createOpenAIReasoningThoughtPart.
    const options = { responseParsing: { taggedThinkingTags: true } };
    const tagged = openaiForms(fixture('parsing', 'openai-tt-reasoning-and-tags'), options);
    for (const [form, responses] of Object.entries(tagged)) assert.deepEqual(thoughts(responses), [['t', false]], form);
    const held = openaiForms(fixture('parsing', 'openai-tt-reasoning-without-tags'), options);
    for (const [form, responses] of Object.entries(held)) assert.deepEqual(thoughts(responses), [['r1r2', true]], form);
  });

  it('never marks Anthropic thinking, text or anything that is not a part', () => {
    const a = new AnthropicConverter();
    const out = [
      ...a.pushEvent({ type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 1 } } }),
      ...a.pushEvent({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
      ...a.pushEvent({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } }),
      ...a.pushEvent({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'm' } }),
      ...a.end(),
    ];
    assert.deepEqual(thoughts(out), [
      ['hm', false],
      ['m', false],
    ]);
    for (const v of [undefined, null, 'text', 1, {}, { text: 'x', thought: true }])
      assert.equal(isReasoningPart(v), false);
  });

  it("uses the host's factory, so the part carries the host's own marker", () => {
    const MARK = Symbol('host reasoning');
    const made = [];
    const host = {
      createReasoningPart(text) {
        const part = { text, thought: true };
        Object.defineProperty(part, MARK, { value: true });
        made.push(part);
        return part;
      },
    };
    const chunks = fixture('provenance', 'openai-reasoning-fields-then-tool');
    for (const [form, responses] of Object.entries(openaiForms(chunks, { host }))) {
      const reasoning = responses.flatMap(parts).filter((p) => p.thought);
      assert.equal(reasoning.length, 2, form);
      for (const p of reasoning) {
        assert.equal(p[MARK], true, form);
        assert.ok(made.includes(p) && isReasoningPart(p), form);
      }
    }
  });

  it('rejects a host factory that is not a function', () => {
    assert.throws(() => new OpenAIConverter({ host: { createReasoningPart: 1 } }), { code: 'INVALID_ARGUMENT' });
  });
});

describe('getUsageProvenance: where the usage numbers came from', () => {
  it('OpenAI: {cachedInputTokensReported}, on the usageMetadata object, in every input form', async () => {
    const chunks = fixture('provenance', 'openai-usage-on-every-chunk');
    for (const [form, responses] of Object.entries(openaiForms(chunks))) {
      const provenances = responses.filter((r) => r.usageMetadata).map((r) => getUsageProvenance(r));
      assert.deepEqual(
        provenances,
        [
          { cachedInputTokensReported: false },
          { cachedInputTokensReported: true },
          { cachedInputTokensReported: true },
        ],
        form,
      );
      for (const r of responses.filter((x) => x.usageMetadata)) {
        assert.equal(getUsageProvenance(r.usageMetadata), getUsageProvenance(r), 'keyed by the usageMetadata object');
        assert.ok(Object.isFrozen(getUsageProvenance(r)));
        assert.ok(!JSON.stringify(r).includes('Reported'), 'never serialised');
      }
    }
    // The pipeline merges the finish with the usage chunk after it: the provenance follows the usage object.
    const merged = await pipeline(fixture('provenance', 'openai-usage-cached-tokens-top-level'));
    const finish = merged.find((r) => r.candidates?.[0]?.finishReason);
    assert.deepEqual(getUsageProvenance(finish), { cachedInputTokensReported: true });
    assert.equal(getUsageProvenance(merged[0]), undefined, 'no usage, no provenance');
  });

  it('Anthropic: {cachedInputTokensReported, cacheCreationInputTokens}, the count only once reported', () => {
    const events = fixture('provenance', 'anthropic-usage-cache-creation-late');
    const objects = new AnthropicConverter();
    const bytes = new AnthropicConverter();
    const forms = {
      objects: [...events.flatMap((e) => objects.pushEvent(e)), ...objects.end()],
      bytes: [...bytes.pushBytes(Buffer.from(anthropicSse(events))), ...bytes.end()],
    };
    for (const [form, responses] of Object.entries(forms)) {
      const provenances = responses.filter((r) => r.usageMetadata).map((r) => getUsageProvenance(r));
      assert.equal(provenances.length, 3, form);
      // As buildAnthropicUsageMetadata attaches it: the key is there, undefined until reported.
      assert.deepEqual(Object.keys(provenances[0]), ['cachedInputTokensReported', 'cacheCreationInputTokens'], form);
      assert.deepEqual(provenances[0], { cachedInputTokensReported: false, cacheCreationInputTokens: undefined }, form);
      assert.deepEqual(provenances[1], { cachedInputTokensReported: true, cacheCreationInputTokens: 12 }, form);
    }
  });

  it("hands each provenance to the host's own store, keyed by the response's usageMetadata", () => {
    const store = new Map();
    const host = { usageProvenance: { set: (usage, provenance) => store.set(usage, provenance) } };
    const c = new OpenAIConverter({ host });
    const responses = fixture('provenance', 'openai-usage-on-every-chunk').map((chunk) => c.pushChunk(chunk));
    const withUsage = responses.filter((r) => r.usageMetadata);
    assert.equal(store.size, withUsage.length);
    for (const r of withUsage) assert.deepEqual(store.get(r.usageMetadata), getUsageProvenance(r));
    assert.throws(() => new OpenAIConverter({ host: { usageProvenance: {} } }), { code: 'INVALID_ARGUMENT' });
  });

  it('is undefined for anything without attached provenance', () => {
    for (const v of [undefined, null, 1, 'x', {}, { usageMetadata: {} }, { usageMetadata: 1 }]) {
      assert.equal(getUsageProvenance(v), undefined);
    }
    const hostile = {
      get usageMetadata() {
        throw new Error('no');
      },
    };
    assert.equal(getUsageProvenance(hostile), undefined);
  });
});
