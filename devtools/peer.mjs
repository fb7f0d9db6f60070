// The peer: the published Qwen Code build's own converters, imported from the
// npm tarball unpacked outside the repo (never committed), fetched on first use
// by the same helper the host tests use (devtools/qwen-builds.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureQwenBuild, qwenPackageDir } from './qwen-builds.mjs';

export const PEER_VERSION = '0.21.2';

export const peerDir = (version = PEER_VERSION) => qwenPackageDir(version);

export const ensurePeer = (version = PEER_VERSION) => ensureQwenBuild(version);

// Chunk file names are content hashes that change per release; find the chunk
// whose `export { … }` list names each symbol.
function exportersOf(dir, wanted) {
  const chunks = path.join(dir, 'chunks');
  const found = new Map();
  const exportList = /\nexport \{([^}]*)\};?/g;
  for (const file of fs.readdirSync(chunks)) {
    if (!file.endsWith('.js') || found.size === wanted.length) continue;
    const text = fs.readFileSync(path.join(chunks, file), 'utf8');
    for (const m of text.matchAll(exportList)) {
      for (const entry of m[1].split(',')) {
        const name = entry
          .trim()
          .split(/\s+as\s+/)
          .pop();
        if (wanted.includes(name) && !found.has(name)) found.set(name, path.join(chunks, file));
      }
    }
  }
  return found;
}

export async function importPeer(dir, wanted) {
  const where = exportersOf(dir, wanted);
  const out = {};
  for (const name of wanted) {
    if (!where.has(name)) throw new Error(`peer: ${name} is not exported by any chunk in ${dir}`);
    out[name] = (await import(pathToFileURL(where.get(name)).href))[name];
  }
  return out;
}

// Qwen Code's CLI Config: the only stand-in (getCliVersion and getProxy are
// read at construction; anything else answers undefined).
export const cliConfig = new Proxy(
  { getCliVersion: () => 'bench', getProxy: () => undefined },
  {
    get(target, key) {
      if (typeof key === 'symbol' || key === 'then') return undefined;
      return key in target ? target[key] : () => undefined;
    },
  },
);

/**
 * Loads the peer (the Qwen Code release `qwen`) and returns two stream
 * drivers over async iterables of SDK-decoded items; each calls onResponse on
 * every response yielded.
 */
export async function loadPeer({ model = 'bench-model', qwen = PEER_VERSION } = {}) {
  const dir = ensurePeer(qwen);
  const q = await importPeer(dir, [
    'AnthropicContentGenerator',
    'OpenAIContentConverter',
    'ContentGenerationPipeline',
    'EnhancedErrorHandler',
    'determineProvider',
    'preloadRuntimeFetchModule',
  ]);
  await q.preloadRuntimeFetchModule();
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;

  const anthropic = new q.AnthropicContentGenerator(
    { model, apiKey: 'sk-bench', baseUrl: 'https://api.anthropic.com', authType: 'anthropic' },
    cliConfig,
  );

  const openaiConfig = { model, baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-bench', authType: 'openai' };
  const pipeline = new q.ContentGenerationPipeline({
    contentGeneratorConfig: openaiConfig,
    provider: q.determineProvider(openaiConfig, cliConfig),
    cliConfig,
    errorHandler: new q.EnhancedErrorHandler(),
  });
  const request = { model, contents: [], config: {} };
  // Arguments by the method's own parameter names, as the oracle does: the
  // list differs between releases.
  const processStreamWithLogging = pipeline.processStreamWithLogging;
  const params = /\(([^)]*)\)/
    .exec(processStreamWithLogging.toString())[1]
    .split(',')
    .map((s) => s.trim().split('=')[0].trim())
    .filter(Boolean);

  return {
    version,
    dir,
    /** Anthropic: AnthropicContentGenerator.processStream. */
    async anthropic(events, onResponse) {
      for await (const r of anthropic.processStream(events, undefined)) onResponse(r);
    },
    /** OpenAI: the converter behind ContentGenerationPipeline.processStreamWithLogging. */
    async openai(chunks, onResponse) {
      const byName = {
        stream: chunks,
        // A fresh context per stream: new StreamingToolCallParser, as in a real request.
        context: pipeline.createRequestContext(request, true),
        request,
        openaiRequest: { model, messages: [] },
        userPromptId: 'bench',
        telemetryAttempt: undefined,
      };
      for await (const r of processStreamWithLogging.apply(
        pipeline,
        params.map((p) => byName[p]),
      ))
        onResponse(r);
    },
  };
}

/** The peer of the OpenAI Responses rows: a release with the Responses generator (0.23.3 on). */
export const RESPONSES_PEER_VERSION = '0.24.4';

/**
 * Qwen's own Responses conversion: its ResponsesPipeline's connectStream
 * (packages/core/src/core/openaiResponsesContentGenerator/responses-pipeline.ts),
 * which builds the request, makes a fresh ResponsesStreamState and runs
 * iterateBody — readChunk's guards, the SSE line parser,
 * convertResponsesEventToGemini — over a reader of the reads. Only the
 * connect is stood in for: this one pipeline's connectWithReasoningReplayRecovery
 * hands back the reader instead of fetching.
 */
export async function loadResponsesPeer({ model = 'bench-model', qwen = RESPONSES_PEER_VERSION } = {}) {
  const dir = ensurePeer(qwen);
  const q = await importPeer(dir, ['OpenAIResponsesContentGenerator', 'preloadRuntimeFetchModule']);
  await q.preloadRuntimeFetchModule();
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  const generator = new q.OpenAIResponsesContentGenerator(
    { model, apiKey: 'sk-bench', baseUrl: 'https://api.openai.com', authType: 'openai-responses' },
    cliConfig,
  );
  const pipeline = generator.pipeline;
  let reader;
  pipeline.connectWithReasoningReplayRecovery = async () => reader;
  const request = { model, contents: [], config: {} };
  return {
    version,
    dir,
    async responses(reads, onResponse) {
      let i = 0;
      reader = {
        read: async () => (i < reads.length ? { done: false, value: reads[i++] } : { done: true, value: undefined }),
        cancel: async () => {},
        releaseLock() {},
      };
      for await (const r of await pipeline.connectStream(request, 'bench', undefined)) onResponse(r);
    },
  };
}
