// The end-to-end suite of e2e-qwen-host.test.mjs (the published Qwen Code CLI
// in ACP mode, real pipes, the official ACP client, the loopback provider),
// run again with `--import toolcall-stream/qwen`: the same cards, cancels and
// retries as stock Qwen, and no progress frame (the bare preload adds live
// progress only when TOOLCALL_STREAM_QWEN_PROGRESS=on). The report file
// proves the preload was active and that every stream was converted from the
// raw HTTP body. Then, with Qwen's telemetry recording (so the preload
// converts the SDK objects Qwen's telemetry sees) and live progress asked
// for: the cards count their arguments up and say why they wait there too.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeQwenHost } from './helpers/qwen-host-suite.mjs';

const preload = pathToFileURL(fileURLToPath(new URL('../lib/qwen/preload.mjs', import.meta.url))).href;
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-report-'));
const reportOf = ({ version, provider }) => path.join(reportDir, `${version}-${provider}.ndjson`);
const ran = [];
const telemetryRuns = [];
const telemetryReportOf = ({ version, provider }) => path.join(reportDir, `telemetry-${version}-${provider}.ndjson`);

describeQwenHost({
  label: 'toolcall-stream/qwen',
  nodeOptions: `--import=${preload}`,
  env: (run) => {
    ran.push(run);
    return { TOOLCALL_STREAM_QWEN_REPORT: reportOf(run) };
  },
});

describeQwenHost({
  label: 'toolcall-stream/qwen, telemetry on, live progress',
  nodeOptions: `--import=${preload}`,
  versions: ['0.21.10', '0.24.4'],
  scenarios: ['progress', 'cancel'],
  progress: true,
  objects: true,
  env: (run) => {
    telemetryRuns.push(run);
    return {
      TOOLCALL_STREAM_QWEN_REPORT: telemetryReportOf(run),
      TOOLCALL_STREAM_QWEN_PROGRESS: 'on',
      QWEN_TELEMETRY_ENABLED: 'true',
    };
  },
  // Qwen's own file exporter: the spans, logs and metrics go to a file, not to stdout (the ACP pipe).
  settings: (run) => ({
    telemetry: {
      enabled: true,
      target: 'local',
      outfile: path.join(reportDir, `otel-${run.version}-${run.provider}.log`),
    },
  }),
});

after(() => {
  // With the telemetry recording, every stream was converted from SDK objects.
  for (const run of telemetryRuns) {
    const lines = fs
      .readFileSync(telemetryReportOf(run), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const objects = lines.reduce(
      (n, l) => n + (run.provider === 'anthropic' ? l.streams.anthropic.objects : l.streams.openai.chunks),
      0,
    );
    const bytes = lines.reduce((n, l) => n + l.streams[run.provider].bytes, 0);
    assert.ok(objects >= 2 && bytes === 0, `${run.version} ${run.provider}: ${JSON.stringify(lines)}`);
    assert.ok(
      lines.some((l) => l.progress?.on === true),
      `live progress was on: ${JSON.stringify(lines.map((l) => l.progress))}`,
    );
  }
});

after(() => {
  try {
    for (const run of ran) {
      const lines = fs
        .readFileSync(reportOf(run), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // One line per Qwen process that ran cli.js (Qwen starts more than one).
      assert.ok(lines.length >= 1, `a report line (${run.version} ${run.provider})`);
      for (const line of lines) {
        assert.equal(line.qwenVersion, run.version);
        assert.deepEqual(line.providers[run.provider], {
          served: true,
          profile: run.version.startsWith('0.21.') ? 'qwen-0.21' : 'qwen-0.24',
        });
      }
      const sum = (pick) => lines.reduce((n, line) => n + pick(line), 0);
      const report = {
        streams: {
          anthropic: { bytes: sum((l) => l.streams.anthropic.bytes), objects: sum((l) => l.streams.anthropic.objects) },
          openai: { bytes: sum((l) => l.streams.openai.bytes), chunks: sum((l) => l.streams.openai.chunks) },
        },
        fallbacks: sum((l) => l.fallbacks),
      };
      if (run.provider === 'anthropic') {
        assert.ok(report.streams.anthropic.bytes >= 4, JSON.stringify(report));
        assert.equal(report.streams.anthropic.objects, 0, JSON.stringify(report));
      } else {
        // 0.24.4's default provider asks for the content-only thinking-tag
        // leak guard too: the preload passes it through, nothing runs stock.
        assert.ok(report.streams.openai.bytes >= 4, JSON.stringify(report));
        assert.equal(report.streams.openai.chunks, 0, JSON.stringify(report));
      }
      assert.equal(report.fallbacks, 0, JSON.stringify(report));
    }
  } finally {
    fs.rmSync(reportDir, { recursive: true, force: true });
  }
});
