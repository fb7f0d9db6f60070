#!/usr/bin/env node
// Runs the published Qwen Code build's own non-streaming converters on the
// bodies of __test__/fixtures/bodies/cases.json and prints one JSON line per
// case. Loaded from the oracle's cache through the oracle's own loader
// (../shared/oracle/oracle/lib.mjs): nothing of Qwen Code is in this repo.
//
//   node __test__/helpers/oracle-body.mjs CASES.json --version 0.21.2 [--oracle DIR]
//
// - `anthropic` cases: `AnthropicContentConverter.convertAnthropicResponseToGemini`
//   (0.24.4: `…ToLlm`) of a real `AnthropicContentGenerator` (its `converter`).
// - `openai` cases: `OpenAIContentConverter.convertOpenAIResponseToGemini`
//   (0.24.4: `…ToLlm`) with the request context a real pipeline creates for a
//   non-streaming request (`createRequestContext(request, false)`) under the
//   provider the case's `baseUrl` / `model` select.
// - `fallback` cases: `AnthropicContentGenerator.processStreamWithEmptyFallback`
//   over the case's stream events, the generator's SDK client replaced by one
//   whose `messages.create` returns the case's body (the only stand-in).
// Output: {"name", "responses": [...], "fallbackRequests"?, "responseParsing"?}
// (each response `{response, usageProvenance?, usageProvenanceKeys?,
// reasoningParts?}`: Qwen's usage provenance of its `usageMetadata` and the
// indexes of the parts that carry Qwen's reasoning marker)
// or {"name", "error": {...}}; the clock is the oracle's frozen one.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const casesFile = argv[0];
const version = flag('version', '0.21.2');
const oracleDir = flag('oracle', path.join(here, '../../../../shared/oracle/oracle'));
process.env.QWEN_ORACLE_VERSION = version;

const lib = await import(pathToFileURL(path.join(oracleDir, 'lib.mjs')).href);
lib.installDeterminism();
const q = await lib.loadQwen([
  'AnthropicContentGenerator',
  'OpenAIContentConverter',
  'ContentGenerationPipeline',
  'EnhancedErrorHandler',
  'determineProvider',
  'getGenAiUsageProvenance',
  'createOpenAIReasoningThoughtPart',
  'preloadRuntimeFetchModule',
]);
if (q.preloadRuntimeFetchModule) await q.preloadRuntimeFetchModule();

const cliConfig = new Proxy(
  { getCliVersion: () => 'oracle', getProxy: () => undefined },
  {
    get(target, key) {
      if (typeof key === 'symbol' || key === 'then') return undefined;
      return key in target ? target[key] : () => undefined;
    },
  },
);

// Qwen's private marker of OpenAI reasoning thoughts (thoughtUtils.ts,
// OPENAI_REASONING_THOUGHT_MARKER), as its own factory attaches it.
const [REASONING_MARKER] = Object.getOwnPropertySymbols(q.createOpenAIReasoningThoughtPart(''));

const record = (response) => {
  const o = { response: lib.plain(response) };
  const prov = response.usageMetadata ? q.getGenAiUsageProvenance?.(response.usageMetadata) : undefined;
  if (prov) {
    o.usageProvenance = lib.plain(prov);
    // The keys too: Anthropic's `cacheCreationInputTokens` may hold undefined.
    o.usageProvenanceKeys = Object.keys(prov);
  }
  // The indexes of the parts carrying the reasoning marker (non-enumerable).
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const marked = parts.flatMap((p, i) => (p && Object.getOwnPropertyDescriptor(p, REASONING_MARKER)?.value ? [i] : []));
  if (marked.length) o.reasoningParts = marked;
  return o;
};

const anthropicGenerator = () =>
  new q.AnthropicContentGenerator(
    { model: 'claude-oracle', apiKey: 'sk-oracle', baseUrl: 'https://api.anthropic.com', authType: 'anthropic' },
    cliConfig,
  );

const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
const lines = [];
for (const [name, c] of Object.entries(cases)) {
  try {
    if (c.kind === 'anthropic') {
      const converter = anthropicGenerator().converter;
      const fn = converter.convertAnthropicResponseToGemini ?? converter.convertAnthropicResponseToLlm;
      lines.push({ name, responses: [record(fn.call(converter, c.body))] });
    } else if (c.kind === 'openai') {
      const model = c.model ?? 'oracle-model';
      const contentGeneratorConfig = {
        model,
        baseUrl: c.baseUrl ?? 'https://api.openai.com/v1',
        apiKey: 'sk-oracle',
        authType: 'openai',
      };
      const provider = q.determineProvider(contentGeneratorConfig, cliConfig);
      const pipeline = new q.ContentGenerationPipeline({
        contentGeneratorConfig,
        provider,
        cliConfig,
        errorHandler: q.EnhancedErrorHandler ? new q.EnhancedErrorHandler() : undefined,
      });
      const context = pipeline.createRequestContext({ model, contents: [], config: {} }, false);
      const C = q.OpenAIContentConverter;
      const fn = C.convertOpenAIResponseToGemini ?? C.convertOpenAIResponseToLlm;
      const responseParsing = lib.plain(context.responseParsingOptions) ?? {};
      lines.push({ name, responseParsing, responses: [record(fn.call(C, c.body, context))] });
    } else if (c.kind === 'fallback') {
      const generator = anthropicGenerator();
      let fallbackRequests = 0;
      generator.client = {
        messages: {
          create: async () => {
            fallbackRequests++;
            return c.body;
          },
        },
      };
      async function* feed() {
        yield* c.events;
      }
      const responses = [];
      let error;
      try {
        const request = { model: 'claude-oracle', max_tokens: 16, messages: [] };
        for await (const r of generator.processStreamWithEmptyFallback(
          feed(),
          request,
          undefined,
          undefined,
          undefined,
        )) {
          responses.push(record(r));
        }
      } catch (err) {
        error = lib.serializeError(err);
      }
      lines.push({ name, fallbackRequests, responses, ...(error ? { error } : {}) });
    } else {
      throw new Error(`unknown case kind ${c.kind}`);
    }
  } catch (err) {
    lines.push({ name, error: lib.serializeError(err) });
  }
}
process.stdout.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
