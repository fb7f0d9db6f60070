// toolcall-stream/qwen never stands in Qwen's way: on a release it does not
// know, a missing or frozen hook point, or TOOLCALL_STREAM_QWEN=off, Qwen runs
// stock, one stderr line says why, and the report says so. Checked with the
// real preload in real processes; the unknown, broken and frozen hosts are
// small stand-in packages (a real release cannot be made to lack a hook), the
// supported case is the published 0.21.2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { qwenBuildOrSkip } from './helpers/qwen-builds.mjs';
import { HOOK_POINTS } from '../lib/qwen/versions.mjs';

const preload = pathToFileURL(fileURLToPath(new URL('../lib/qwen/preload.mjs', import.meta.url))).href;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-fallback-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A stand-in Qwen package: its cli.js prints "qwen ran"; `chunk` is the one chunk's source. */
function fakeQwen(name, version, chunk) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, 'chunks'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: '@qwen-code/qwen-code', version, type: 'module' }),
  );
  fs.writeFileSync(path.join(dir, 'cli.js'), "process.stdout.write('qwen ran\\n');\n");
  fs.writeFileSync(path.join(dir, 'chunks', 'chunk-FAKE.js'), chunk);
  return path.join(dir, 'cli.js');
}

/** Runs `cli` under the preload; returns its stdout and the report lines. */
function runWithPreload(cli, args = [], env = {}) {
  const report = path.join(tmp, `report-${Math.random().toString(36).slice(2)}.ndjson`);
  let text = '';
  const stdout = execFileSync(process.execPath, ['--import', preload, cli, ...args], {
    env: { ...process.env, TOOLCALL_STREAM_QWEN_REPORT: report, XDG_CACHE_HOME: path.join(tmp, 'cache'), ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    text = fs.readFileSync(report, 'utf8');
  } catch {
    // No report was written.
  }
  const lines = text
    ? text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
  return { stdout, report: lines };
}

/** The same, keeping stderr (execFileSync only returns it on failure). */
function stderrOf(cli, env = {}) {
  const out = path.join(tmp, `stderr-${Math.random().toString(36).slice(2)}`);
  const fd = fs.openSync(out, 'w');
  execFileSync(process.execPath, ['--import', preload, cli], {
    env: { ...process.env, XDG_CACHE_HOME: path.join(tmp, 'cache'), ...env },
    stdio: ['ignore', 'ignore', fd],
  });
  fs.closeSync(fd);
  return fs.readFileSync(out, 'utf8');
}

const allHookPoints = (extra = '') =>
  `${extra}\nclass AnthropicContentGenerator { processStream() {} generateContentStream() {} }\n` +
  `class ContentGenerationPipeline { processStreamWithLogging() {} executeStream() {} }\n` +
  `const OpenAIContentConverter = { convertOpenAIChunkToGemini() {} };\n` +
  `class GenerateContentResponse {}\nclass InvalidStreamError extends Error {}\n` +
  `function setToolCallPreparations() {}\nfunction getToolCallPreparations() { return []; }\n` +
  `function reportAnthropicEvent() {}\nfunction reportOpenAiChunk() {}\n` +
  `function setGenAiUsageProvenance() {}\nfunction createOpenAIReasoningThoughtPart() {}\n` +
  `export {\n  ${HOOK_POINTS.join(',\n  ')}\n};\n`;

test('an unknown release runs stock: one stderr line, and the report says why', () => {
  const cli = fakeQwen('unknown', '9.9.9', allHookPoints());
  const { stdout, report } = runWithPreload(cli);
  assert.equal(stdout, 'qwen ran\n');
  assert.equal(report.length, 1);
  assert.equal(report[0].active, false);
  assert.equal(report[0].qwenVersion, '9.9.9');
  assert.match(report[0].reason, /9\.9\.9 is not a supported release/);
  const stderr = stderrOf(cli);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.match(stderr, /^toolcall-stream\/qwen: Qwen Code runs stock: Qwen Code 9\.9\.9 is not a supported release/);
});

test('a missing hook point runs stock', () => {
  const cli = fakeQwen('missing', '0.21.2', 'export const somethingElse = 1;\n');
  const { stdout, report } = runWithPreload(cli);
  assert.equal(stdout, 'qwen ran\n');
  assert.equal(report[0].active, false);
  assert.match(report[0].reason, /missing hook points: AnthropicContentGenerator, ContentGenerationPipeline/);
});

test('a frozen hook point runs stock, and nothing is patched half-way', () => {
  const chunk = allHookPoints() + 'Object.freeze(ContentGenerationPipeline.prototype);\n';
  const cli = fakeQwen('frozen', '0.21.2', chunk);
  fs.appendFileSync(
    cli,
    "const m = await import('./chunks/chunk-FAKE.js');\n" +
      "process.stdout.write(String(m.AnthropicContentGenerator.prototype.processStream.toString().includes('convertAnthropicStream')) + '\\n');\n",
  );
  const { stdout, report } = runWithPreload(cli);
  assert.equal(stdout, 'qwen ran\nfalse\n', 'the Anthropic hook, checked first, was not patched either');
  assert.equal(report[0].active, false);
  assert.match(report[0].reason, /frozen/);
});

test('TOOLCALL_STREAM_QWEN=off: nothing happens, not even a report', () => {
  const cli = fakeQwen('off', '9.9.9', allHookPoints());
  const { stdout, report } = runWithPreload(cli, [], { TOOLCALL_STREAM_QWEN: 'off' });
  assert.equal(stdout, 'qwen ran\n');
  assert.deepEqual(report, []);
  assert.equal(stderrOf(cli, { TOOLCALL_STREAM_QWEN: 'off' }), '');
});

test('outside Qwen (another entry script) the preload does nothing', () => {
  const script = path.join(tmp, 'other.mjs');
  fs.writeFileSync(script, "process.stdout.write('other\\n');\n");
  const { stdout, report } = runWithPreload(script);
  assert.equal(stdout, 'other\n');
  assert.deepEqual(report, []);
});

const real = qwenBuildOrSkip('0.21.2');
test('the published 0.21.2: active with its profile, and Qwen itself answers', { skip: real.skip }, () => {
  const { stdout, report } = runWithPreload(path.join(real.dir, 'cli.js'), ['--version']);
  assert.equal(stdout.trim(), '0.21.2');
  assert.equal(report.length, 1);
  assert.deepEqual(
    { active: report[0].active, profile: report[0].profile, fallbacks: report[0].fallbacks },
    { active: true, profile: 'qwen-0.21', fallbacks: 0 },
  );
});
