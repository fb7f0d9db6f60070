// toolcall-stream/qwen while Qwen Code's own OpenTelemetry is recording. For
// every release in QWEN_VERSIONS, Qwen's content generators — made as its CLI
// makes them, with its own Config starting its own telemetry SDK and file
// exporter (devtools/qwen-telemetry-generators.mjs) — convert the whole shared
// corpus (fixtures/conformance/streams, both providers) twice, stock and with
// the preload installed, in separate processes. Then:
// - Qwen's callers see the same responses and errors as stock;
// - Qwen's telemetry file holds the same spans (the llm_request span with its
//   request, usage, finish reasons and output messages, which Qwen builds from
//   the events and chunks it recorded: content capture is on; the HTTP client span),
//   the same log events (api_request, api_response / api_error, session) and
//   the same metrics, counts and attributes, with what varies by run masked
//   (helpers/qwen-telemetry-file.mjs);
// - the preload converted every stream from the SDK's objects: Qwen's
//   telemetry reads each SDK event and chunk (reportAnthropicEvent in
//   AnthropicContentGenerator.processStream, reportOpenAiChunk in the
//   pipeline's processStreamWithLogging), so the raw-body path steps aside
//   (lib/qwen/anthropic.mjs, lib/qwen/openai.mjs).
// One process per release and side runs both providers: starting Qwen and its
// SDK costs more than the 28 streams, so the corpus is not cut down.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { QWEN_VERSIONS, qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { readTelemetryFile, normalizeTelemetry } from './helpers/qwen-telemetry-file.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const streamsDir = path.join(here, 'fixtures', 'conformance', 'streams');
const runner = path.join(here, 'helpers', 'qwen-telemetry-run.mjs');
const files = fs
  .readdirSync(streamsDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => path.join(streamsDir, f));
const countOf = (provider) => files.filter((f) => path.basename(f).startsWith(`${provider}-`)).length;
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-telemetry-test-'));
after(() => fs.rmSync(outDir, { recursive: true, force: true }));

/** createTime from the clock and generated tool-call ids (`call_<ms>_<random>`) differ per run. */
function masked(value) {
  const ids = new Map();
  const text = JSON.stringify(value).replace(/\bcall_\d+_[a-z0-9]+/g, (id) => {
    if (!ids.has(id)) ids.set(id, `<generated ${ids.size}>`);
    return ids.get(id);
  });
  return JSON.parse(text, (key, v) =>
    key === 'createTime' && typeof v === 'string' && Number(v) >= 1e12 ? '<clock>' : v,
  );
}

async function convertWithTelemetry(dir, version, mode) {
  const outfile = path.join(outDir, `${version}-${mode}.json`);
  const { stdout } = await run(process.execPath, [runner, dir, mode, outfile, ...files], { maxBuffer: 64 << 20 });
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return {
    results: lines.filter((l) => l.file),
    stats: lines.find((l) => l.stats)?.stats,
    telemetry: normalizeTelemetry(readTelemetryFile(outfile)),
  };
}

for (const version of QWEN_VERSIONS) {
  const { dir, skip } = qwenBuildOrSkip(version);
  describe(`Qwen Code ${version} with its telemetry recording: stock vs toolcall-stream/qwen`, { skip }, () => {
    let stock;
    let native;
    before(async () => {
      [stock, native] = await Promise.all([
        convertWithTelemetry(dir, version, 'stock'),
        convertWithTelemetry(dir, version, 'native'),
      ]);
    });

    it('every stream gives what stock Qwen gives', () => {
      assert.equal(stock.results.length, files.length);
      assert.equal(native.results.length, files.length);
      for (let i = 0; i < files.length; i++)
        assert.deepEqual(masked(native.results[i]), masked(stock.results[i]), `${stock.results[i].file} differs`);
      assert.ok(native.results.every((r) => r.responses.every((x) => x.qwenClass)));
    });

    it('the preload converted every stream from the SDK objects Qwen telemetry records', (t) => {
      t.diagnostic(`preload stats: ${JSON.stringify(native.stats)}`);
      const stats = JSON.stringify(native.stats);
      assert.equal(native.stats.anthropic.objects, countOf('anthropic'), stats);
      assert.equal(native.stats.anthropic.bytes, 0, stats);
      assert.equal(native.stats.openai.chunks, countOf('openai'), stats);
      assert.equal(native.stats.openai.bytes, 0, stats);
      assert.equal(native.stats.fallbacks, 0, stats);
    });

    it('Qwen records what it records for stock: one llm_request span, request and response events per stream', () => {
      // The harness must really record: otherwise equal telemetry proves nothing.
      const { spans, logs, metrics } = stock.telemetry;
      const llm = spans.filter((s) => s.name === 'qwen-code.llm_request');
      assert.equal(llm.length, files.length);
      // Qwen's HTTP and undici instrumentations see every request: one per stream, none leaving the machine.
      const requests = spans.filter((s) => s.attributes['http.request.method'] !== undefined);
      assert.equal(requests.length, files.length);
      assert.ok(requests.every((s) => s.attributes['server.address'] === '127.0.0.1'));
      assert.equal(logs.filter((l) => l.event === 'qwen-code.api_request').length, files.length);
      assert.equal(
        logs.filter((l) => l.event === 'qwen-code.api_response' || l.event === 'qwen-code.api_error').length,
        files.length,
      );
      // What the request exchange recorded from the provider's events and chunks.
      const outputs = llm.map((s) => s.attributes['gen_ai.output.messages']).filter(Boolean);
      assert.ok(outputs.some((o) => o.includes('"tool_call"')));
      assert.ok(llm.some((s) => s.attributes['gen_ai.response.finish_reasons']?.length));
      assert.ok(metrics.some((m) => m.name === 'qwen-code.token.usage' && m.points.length > 0));
    });

    for (const kind of ['spans', 'logs', 'metrics'])
      it(`the same ${kind} as stock Qwen, counts and attributes`, () => {
        const s = stock.telemetry[kind];
        const n = native.telemetry[kind];
        assert.equal(n.length, s.length, `${kind}: count`);
        for (let i = 0; i < s.length; i++) assert.deepEqual(n[i], s[i], `${kind}[${i}] differs`);
      });
  });
}
