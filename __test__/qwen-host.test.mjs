// toolcall-stream/qwen inside the real, published Qwen Code: for each
// supported release, Qwen's own content generators (real SDK client, real
// HTTP from a loopback server) convert every corpus stream twice, stock and
// with the preload installed, in separate processes. What Qwen's callers see
// must be the same: the responses' JSON, the preparations, the usage
// provenance and the thought summary through Qwen's own getters, Qwen's
// private reasoning marker on each part, Qwen's own GenerateContentResponse
// class and its getters, and the same error classes. The preload must have
// taken the raw-body path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { QWEN_VERSIONS, qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { inspectQwen } from '../lib/qwen/inspect.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const streamsDir = path.join(here, 'fixtures', 'conformance', 'streams');
const runner = path.join(here, 'helpers', 'qwen-run.mjs');
const bodiesRunner = path.join(here, 'helpers', 'qwen-run-bodies.mjs');

/** createTime from the clock (ms since 1970, not a provider's seconds) and generated ids differ per run. */
function masked(lines) {
  const ids = new Map();
  const text = JSON.stringify(lines).replace(/call_\d+_[a-z0-9]{7}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `<generated ${ids.size}>`);
    return ids.get(id);
  });
  return JSON.parse(text, (key, value) =>
    key === 'createTime' && typeof value === 'string' && Number(value) >= 1e12 ? '<clock>' : value,
  );
}

async function convertAll(dir, provider, mode, { from = streamsDir, model } = {}) {
  const files = fs
    .readdirSync(from)
    .filter((f) => f.startsWith(`${provider}-`))
    .sort()
    .map((f) => path.join(from, f));
  const { stdout } = await run(process.execPath, [runner, dir, provider, mode, ...files], {
    maxBuffer: 64 << 20,
    env: model ? { ...process.env, TOOLCALL_STREAM_TEST_MODEL: model } : process.env,
  });
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { results: lines.filter((l) => l.file), stats: lines.find((l) => l.stats)?.stats, count: files.length };
}

for (const version of QWEN_VERSIONS) {
  const { dir, skip } = qwenBuildOrSkip(version);
  describe(`Qwen Code ${version}: stock vs toolcall-stream/qwen over the shared corpus`, { skip }, () => {
    for (const provider of ['anthropic', 'openai']) {
      it(`${provider}: every stream gives what stock Qwen gives, from the raw body`, async () => {
        const [stock, native] = await Promise.all([
          convertAll(dir, provider, 'stock'),
          convertAll(dir, provider, 'native'),
        ]);
        assert.equal(stock.results.length, stock.count);
        assert.equal(native.results.length, native.count);
        for (let i = 0; i < stock.results.length; i++) {
          const s = masked(stock.results[i]);
          const n = masked(native.results[i]);
          assert.deepEqual(n, s, `${s.file} differs`);
          for (const r of n.responses) assert.equal(r.qwenClass, true, `${s.file}: a Qwen GenerateContentResponse`);
        }
        // Every stream took the raw-body path: nothing was converted from SDK
        // objects, and none ran stock. In 0.24.4 the default OpenAI-compatible
        // provider switches on the content-only thinking-tag leak guard
        // (getResponseParsingOptions), which the preload passes through.
        assert.equal(native.stats.fallbacks, 0, JSON.stringify(native.stats));
        const streams = native.stats[provider];
        assert.equal(streams.bytes, native.count, JSON.stringify(native.stats));
        assert.equal(provider === 'anthropic' ? streams.objects : streams.chunks, 0);
        // Usage provenance was compared above (Qwen's getGenAiUsageProvenance), on every response with usage.
        const withUsage = native.results.flatMap((r) => r.responses.filter((x) => x.json.usageMetadata));
        assert.ok(withUsage.length > 0 && withUsage.every((x) => x.usageProvenance !== null));
      });
    }

    it('usage provenance and reasoning marks: what Qwen attaches besides preparations, read through its own getters', async () => {
      const from = path.join(here, 'fixtures', 'provenance', 'streams');
      for (const provider of ['anthropic', 'openai']) {
        const [stock, native] = await Promise.all([
          convertAll(dir, provider, 'stock', { from }),
          convertAll(dir, provider, 'native', { from }),
        ]);
        assert.equal(native.results.length, native.count);
        for (let i = 0; i < stock.results.length; i++) {
          assert.deepEqual(masked(native.results[i]), masked(stock.results[i]), `${stock.results[i].file} differs`);
        }
        assert.equal(native.stats[provider].bytes, native.count, JSON.stringify(native.stats));
        // The streams exercise what they are for: a reported cache count, and
        // (Anthropic) a cache-creation count next to one left undefined.
        const provenances = stock.results.flatMap((r) => r.responses.map((x) => x.usageProvenance).filter(Boolean));
        assert.ok(provenances.some((p) => p.value.cachedInputTokensReported === true));
        assert.ok(provenances.some((p) => p.value.cachedInputTokensReported === false));
        if (provider === 'anthropic') {
          assert.ok(provenances.some((p) => p.value.cacheCreationInputTokens === 12));
          assert.ok(
            provenances.some(
              (p) => p.keys.includes('cacheCreationInputTokens') && !('cacheCreationInputTokens' in p.value),
            ),
          );
        } else {
          // Reasoning thoughts carry Qwen's marker, so its thought summary keeps the `**subject**` text whole.
          const reasoning = stock.results.find((r) => r.file === 'openai-reasoning-fields-then-tool.json');
          assert.deepEqual(reasoning.responses[0].reasoningMarks, [{ value: true, enumerable: false }]);
          assert.deepEqual(reasoning.responses[0].thoughtSummary, {
            subject: '',
            description: '**Planning** the edit. ',
          });
        }
      }
    });

    it('openai: the response-parsing streams (thinking tags in content) give what stock Qwen gives', async () => {
      // Qwen's own provider options reach the converter: the content-only
      // leak guard is on in 0.24.4 (default provider), off in 0.21.2.
      const from = path.join(here, 'fixtures', 'parsing', 'streams');
      const [stock, native] = await Promise.all([
        convertAll(dir, 'openai', 'stock', { from }),
        convertAll(dir, 'openai', 'native', { from }),
      ]);
      assert.equal(native.results.length, native.count);
      for (let i = 0; i < stock.results.length; i++) {
        assert.deepEqual(masked(native.results[i]), masked(stock.results[i]), `${stock.results[i].file} differs`);
      }
      const contentOnly = stock.results.find((r) => r.file === 'openai-co-open-tag-at-finish.json');
      assert.equal(
        contentOnly.error?.type,
        version.startsWith('0.21.') ? undefined : 'PROTOCOL_TAG_LEAK',
        'the content-only leak guard acts exactly where Qwen turns it on',
      );
      assert.equal(native.stats.fallbacks, 0, JSON.stringify(native.stats));
      assert.equal(native.stats.openai.bytes, native.count, JSON.stringify(native.stats));
    });

    it('openai: the pipeline error streams (a connection dropped while a closing thinking tag is pending, error_finish) give what stock Qwen gives', async () => {
      // Qwen's pipeline reads the pending closing-tag candidate from its
      // request context when the stream fails; the preload shows it there
      // from the native converter (lib/qwen/openai.mjs, mirrorTagCandidate).
      const from = path.join(here, 'fixtures', 'pipeline-errors', 'streams');
      const [stock, native] = await Promise.all([
        convertAll(dir, 'openai', 'stock', { from }),
        convertAll(dir, 'openai', 'native', { from }),
      ]);
      assert.equal(native.results.length, native.count);
      for (let i = 0; i < stock.results.length; i++) {
        assert.deepEqual(masked(native.results[i]), masked(stock.results[i]), `${stock.results[i].file} differs`);
      }
      const leak = stock.results.find((r) => r.file === 'openai-closing-tag-then-transport-error.json');
      assert.equal(leak.error?.type, 'PROTOCOL_TAG_LEAK', 'the dropped connection becomes a tag leak');
      assert.equal(native.stats.fallbacks, 0, JSON.stringify(native.stats));
      assert.equal(native.stats.openai.bytes, native.count, JSON.stringify(native.stats));
    });

    for (const provider of ['anthropic', 'openai']) {
      it(`${provider}: raw bodies are framed as the SDK Qwen bundles frames them (fixtures/sse-framing)`, async () => {
        // Line endings, BOMs, unterminated final events, event-only blocks,
        // data-only and unknown events, invalid UTF-8, bad payloads, in-band
        // errors over several data lines or not JSON: the same bytes through
        // stock Qwen (its SDK's decoder) and the preload (the native decoder).
        // Where the SDK throws (SyntaxError, APIError), the preload throws the
        // same error: the frame replayed through the SDK's own decoder. Where
        // Qwen's converter throws on a null payload (V8's TypeError), the
        // preload throws that TypeError at the same event, after the same
        // responses (the converter's `hostError`, lib/qwen/host.mjs).
        const file = path.join(here, 'fixtures', 'sse-framing', `${provider}.json`);
        const runBodies = async (mode) => {
          const { stdout } = await run(process.execPath, [bodiesRunner, dir, provider, mode, file], {
            maxBuffer: 64 << 20,
          });
          const lines = stdout
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
          return { results: lines.filter((l) => l.name), stats: lines.find((l) => l.stats)?.stats };
        };
        const [stock, native] = await Promise.all([runBodies('stock'), runBodies('native')]);
        const count = Object.keys(JSON.parse(fs.readFileSync(file, 'utf8'))).length;
        assert.equal(stock.results.length, count);
        assert.equal(native.results.length, count);
        let badPayloads = 0;
        for (let i = 0; i < count; i++) {
          const s = masked(stock.results[i]);
          const n = masked(native.results[i]);
          if (s.error?.name === 'SyntaxError') badPayloads++;
          if (s.error?.name === 'TypeError' && s.error.message.startsWith('Cannot read properties')) badPayloads++;
          assert.deepEqual(n, s, `${s.name} differs`);
        }
        assert.ok(badPayloads >= 3, 'bad payloads are among the bodies');
        if (provider === 'anthropic') {
          // Held calls after a provider error (anthropicContentGenerator.ts,
          // processStream): 0.21.x holds none; 0.23.0–0.23.3 release them only
          // after a transport error; from 0.23.4 also after a status-less
          // error with a request id (Qwen's classifier, through the preload's host).
          const { heldCallRelease } = inspectQwen({ dir, version }).anthropic;
          const calls = (name) =>
            stock.results
              .find((r) => r.name === name)
              .responses.filter((r) => r.json.candidates?.[0]?.content?.parts?.some((p) => p.functionCall)).length;
          assert.equal(calls('call-then-api-error-with-request-id'), heldCallRelease === 'transport' ? 0 : 1);
          assert.equal(calls('call-then-api-error-without-request-id'), version.startsWith('0.21.') ? 1 : 0);
        }
        assert.equal(native.stats.fallbacks, 0, JSON.stringify(native.stats));
        assert.equal(native.stats[provider][provider === 'anthropic' ? 'bytes' : 'bytes'], count);
      });
    }

    it('openai: a qwen3 model (taggedThinkingTagsAfterReasoning in 0.24.4) gives what stock Qwen gives', async () => {
      // 0.24.4's default provider adds taggedThinkingTagsAfterReasoning for
      // qwen3 models; 0.21.2's asks for nothing. Both pass through.
      const from = path.join(here, 'fixtures', 'parsing', 'streams');
      const model = 'qwen3-coder-plus';
      const [stock, native] = await Promise.all([
        convertAll(dir, 'openai', 'stock', { from, model }),
        convertAll(dir, 'openai', 'native', { from, model }),
      ]);
      for (let i = 0; i < stock.results.length; i++) {
        assert.deepEqual(masked(native.results[i]), masked(stock.results[i]), `${stock.results[i].file} differs`);
      }
      // A <think> block after reasoning: a leak in 0.21.2, a thought in 0.24.4.
      const block = stock.results.find((r) => r.file === 'openai-ar-think-block-after-reasoning.json');
      assert.equal(block.error?.type, version.startsWith('0.21.') ? 'PROTOCOL_TAG_LEAK' : undefined);
      assert.equal(native.stats.fallbacks, 0, JSON.stringify(native.stats));
      assert.equal(native.stats.openai.bytes, native.count, JSON.stringify(native.stats));
    });
  });
}
