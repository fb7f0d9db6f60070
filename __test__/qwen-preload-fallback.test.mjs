// toolcall-stream/qwen decides what to serve from the running bundle's code,
// never stands in Qwen's way, and says why when it does nothing. Checked with
// the real preload in real processes, on copies of published releases with
// one thing changed (what a future release might change): noise that esbuild
// varies between builds is served; a changed replaced function runs stock and
// names the function; a kept contract that moved is handled or runs stock.
// Hosts a real release cannot be turned into (no seam, an unreadable bundle,
// another program's cli.js) are small stand-in packages.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { changedReason, inspectQwen } from '../lib/qwen/inspect.mjs';

const preload = pathToFileURL(fileURLToPath(new URL('../lib/qwen/preload.mjs', import.meta.url))).href;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-fallback-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs `cli` under the preload: its stdout, stderr and report lines. */
function runWithPreload(cli, args = [], env = {}) {
  const report = path.join(tmp, `report-${Math.random().toString(36).slice(2)}.ndjson`);
  const r = spawnSync(process.execPath, ['--import', preload, cli, ...args], {
    env: { ...process.env, TOOLCALL_STREAM_QWEN_REPORT: report, XDG_CACHE_HOME: path.join(tmp, 'cache'), ...env },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const text = fs.existsSync(report) ? fs.readFileSync(report, 'utf8') : '';
  const lines = text
    ? text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
  return { stdout: r.stdout, stderr: r.stderr, report: lines };
}

/** A stand-in package named like Qwen: its cli.js prints "qwen ran"; `chunks` maps file names to sources. */
function fakeQwen(name, chunks, { packageName = '@qwen-code/qwen-code' } = {}) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, 'chunks'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: packageName, version: '0.15.4', type: 'module' }),
  );
  fs.writeFileSync(path.join(dir, 'cli.js'), "process.stdout.write('qwen ran\\n');\n");
  for (const [file, text] of Object.entries(chunks)) {
    if (text === null) fs.mkdirSync(path.join(dir, 'chunks', file));
    else fs.writeFileSync(path.join(dir, 'chunks', file), text);
  }
  return path.join(dir, 'cli.js');
}

/**
 * A copy of a published release with `edits` applied: `{needle: file
 * substring, change(text) => text}` each, applied to the one chunk whose text
 * holds the needle (the change must change it).
 */
function editedRelease(source, name, edits) {
  const dir = path.join(tmp, name);
  fs.cpSync(source, dir, { recursive: true });
  const chunks = path.join(dir, 'chunks');
  for (const { needle, change } of edits) {
    const files = fs.readdirSync(chunks).filter((f) => fs.readFileSync(path.join(chunks, f), 'utf8').includes(needle));
    assert.equal(files.length, 1, `one chunk holds ${needle}: ${files}`);
    const file = path.join(chunks, files[0]);
    const before = fs.readFileSync(file, 'utf8');
    const edited = change(before);
    assert.notEqual(edited, before, `the edit of ${needle} changed the chunk`);
    fs.writeFileSync(file, edited);
  }
  return dir;
}

const served = (report) => ({
  anthropic: report.providers.anthropic.served,
  openai: report.providers.openai.served,
});

const latest = qwenBuildOrSkip('0.24.4');
const oldest = qwenBuildOrSkip('0.21.2');

test('every published release is served on both providers, and Qwen itself answers', { skip: latest.skip }, () => {
  for (const [build, version, profile] of [
    [oldest, '0.21.2', 'qwen-0.21'],
    [latest, '0.24.4', 'qwen-0.24'],
  ]) {
    const { stdout, stderr, report } = runWithPreload(path.join(build.dir, 'cli.js'), ['--version']);
    assert.equal(stdout.trim(), version);
    assert.equal(stderr, '', 'nothing to say when everything is served');
    assert.equal(report.length, 1);
    assert.equal(report[0].active, true);
    assert.deepEqual(report[0].providers, {
      anthropic: { served: true, profile },
      openai: { served: true, profile },
      // The Responses generator ships from 0.23.3.
      openaiResponses:
        version === '0.21.2'
          ? {
              served: false,
              reason: 'this release has no OpenAI Responses generator (Qwen Code has one from 0.23.3 on)',
            }
          : { served: true, profile },
    });
  }
});

test(
  'noise esbuild varies between builds — renamed locals, comments, bracketed calls — is served',
  { skip: latest.skip },
  () => {
    const dir = editedRelease(latest.dir, 'noise', [
      {
        needle: 'async *processStream(stream, telemetryAttempt)',
        change: (t) =>
          t
            .replaceAll('capturedStream', 'capturedStream2')
            .replace(
              'const capturedStream2 = (async function* () {',
              '/* a comment */ const capturedStream2 = async function* () {',
            )
            .replace(/(\n\s+)\}\)\(\);(\n\s+for await \(const event of capturedStream2\))/, '$1}();$2')
            .replace('let messageId;', 'let messageId; // renamed and commented by another build'),
      },
      {
        needle: 'function convertOpenAIChunkToLlm(chunk, requestContext) {',
        change: (t) =>
          t.replace(
            'function convertOpenAIChunkToLlm(chunk, requestContext) {',
            '/** docs */\nfunction convertOpenAIChunkToLlm(chunk2, requestContext) {\n  const chunk = chunk2;',
          ),
      },
    ]);
    // The second edit is not noise-free by construction (a new statement):
    // undo it so only the OpenAI noise below counts.
    const converterFile = fs
      .readdirSync(path.join(dir, 'chunks'))
      .map((f) => path.join(dir, 'chunks', f))
      .find((f) => fs.readFileSync(f, 'utf8').includes('function convertOpenAIChunkToLlm(chunk2'));
    fs.writeFileSync(
      converterFile,
      fs
        .readFileSync(converterFile, 'utf8')
        .replace(
          '/** docs */\nfunction convertOpenAIChunkToLlm(chunk2, requestContext) {\n  const chunk = chunk2;',
          '/** docs */\nfunction convertOpenAIChunkToLlm(chunk, requestContext) {',
        ),
    );
    const { stdout, stderr, report } = runWithPreload(path.join(dir, 'cli.js'), ['--version']);
    assert.equal(stdout.trim(), '0.24.4');
    assert.equal(stderr, '');
    assert.deepEqual(served(report[0]), { anthropic: true, openai: true });
  },
);

test(
  'a replaced function whose behaviour changed runs stock and is named; the other provider is still served',
  { skip: latest.skip },
  () => {
    const dir = editedRelease(latest.dir, 'changed-anthropic', [
      {
        needle: 'function buildAnthropicUsageMetadata(parts) {',
        change: (t) =>
          t.replace(
            'function buildAnthropicUsageMetadata(parts) {',
            'function buildAnthropicUsageMetadata(parts) {\n  parts = { ...parts, inputTokens: 0 };',
          ),
      },
    ]);
    const { stdout, stderr, report } = runWithPreload(path.join(dir, 'cli.js'), ['--version']);
    assert.equal(stdout.trim(), '0.24.4', 'Qwen runs');
    assert.deepEqual(served(report[0]), { anthropic: false, openai: true });
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(
      stderr,
      /^toolcall-stream\/qwen: Qwen Code 0\.24\.4: Anthropic streams run stock: AnthropicContentGenerator\.processStream is code this package does not know \(closest known code: Qwen Code 0\.23\.4[^;]*; differs in buildAnthropicUsageMetadata\)/,
    );
    assert.match(report[0].providers.anthropic.reason, /buildAnthropicUsageMetadata/);
  },
);

test(
  'one line changed inside a replaced function: the closest known code is the variant it came from, by the lines still shared',
  { skip: latest.skip },
  () => {
    // Any change to processStream itself makes it differ from every variant
    // alike; the lines tell 0.24.4's own variant from 0.23.0's.
    const dir = editedRelease(latest.dir, 'one-line-anthropic', [
      {
        needle: 'messageId = event.message.id ?? messageId;',
        change: (t) =>
          t.replace('messageId = event.message.id ?? messageId;', 'messageId = event.message.id || messageId;'),
      },
    ]);
    const { anthropic, openai } = inspectQwen({ dir, version: '0.24.4' }, { cache: false });
    assert.equal(openai.served, true);
    assert.equal(anthropic.served, false);
    assert.match(
      anthropic.reason,
      /^AnthropicContentGenerator\.processStream is code this package does not know \(closest known code: Qwen Code 0\.23\.4, 0\.24\.0, 0\.24\.2, 0\.24\.3, 0\.24\.4, 99\.\d% of its lines; differs in AnthropicContentGenerator\.processStream\)$/,
    );
  },
);

test('code as close to two known variants says it is a tie', () => {
  const variant = (seenIn, f, lines) => ({ seenIn, functions: { f, g: 'g1' }, lines: { f: lines, g: 'x y' } });
  const known = { k: [variant('1.0.0', 'f1', 'a b c'), variant('2.0.0', 'f2', 'a b d'), variant('3.0.0', 'f3', 'e')] };
  const fp = { functions: { f: 'f0', g: 'g1' }, lines: () => ({ f: ['a', 'b', 'z'], g: ['x', 'y'] }) };
  assert.equal(
    changedReason('X.run', 'k', fp, known),
    'X.run is code this package does not know (closest known code: a tie between Qwen Code 1.0.0 and Qwen Code 2.0.0, 66.6% of the lines of each; differs in f)',
  );
});

test('a changed OpenAI converter runs stock and is named', { skip: latest.skip }, () => {
  const dir = editedRelease(latest.dir, 'changed-openai', [
    {
      needle: 'function convertOpenAIChunkToLlm(chunk, requestContext) {',
      change: (t) =>
        t.replace(
          'function convertOpenAIChunkToLlm(chunk, requestContext) {',
          'function convertOpenAIChunkToLlm(chunk, requestContext) {\n  chunk = { ...chunk };',
        ),
    },
  ]);
  const { stderr, report } = runWithPreload(path.join(dir, 'cli.js'), ['--version']);
  assert.deepEqual(served(report[0]), { anthropic: true, openai: false });
  assert.match(
    stderr,
    /OpenAI-compatible streams run stock: OpenAIContentConverter\.convertOpenAIChunkToLlm is code this package does not know .*differs in convertOpenAIChunkToLlm\)/,
  );
});

test(
  'a kept contract that moved: the telemetry argument is found where it went, or the provider runs stock',
  { skip: latest.skip },
  () => {
    const pipelineNeedle =
      'async *processStreamWithLogging(stream, context, request, openaiRequest, userPromptId, telemetryAttempt) {';
    const moved = editedRelease(latest.dir, 'telemetry-moved', [
      {
        needle: pipelineNeedle,
        change: (t) =>
          t.replace(
            pipelineNeedle,
            'async *processStreamWithLogging(stream, context, request, openaiRequest, telemetryAttempt, userPromptId) {',
          ),
      },
    ]);
    const decision = inspectQwen({ dir: moved, version: '0.24.4' }, { cache: false });
    assert.equal(decision.openai.served, true);
    assert.equal(decision.openai.telemetryArg, 4, 'read from the parameter list, not from the version');
    assert.equal(inspectQwen({ dir: latest.dir, version: '0.24.4' }, { cache: false }).openai.telemetryArg, 5);

    const gone = editedRelease(latest.dir, 'telemetry-gone', [
      {
        needle: pipelineNeedle,
        change: (t) =>
          t.replace(
            pipelineNeedle,
            'async *processStreamWithLogging(stream, context, request, openaiRequest, userPromptId, attempt) {',
          ),
      },
    ]);
    const { stdout, stderr, report } = runWithPreload(path.join(gone, 'cli.js'), ['--version']);
    assert.equal(stdout.trim(), '0.24.4');
    assert.deepEqual(served(report[0]), { anthropic: true, openai: false });
    assert.match(
      stderr,
      /OpenAI-compatible streams run stock: ContentGenerationPipeline\.processStreamWithLogging's parameters moved: \(stream, context, request, openaiRequest, userPromptId, attempt\)/,
    );
  },
);

test(
  'a frozen hook point runs that provider stock, and nothing of it is patched half-way',
  { skip: oldest.skip },
  () => {
    const dir = editedRelease(oldest.dir, 'frozen', [
      {
        needle: 'async *processStreamWithLogging(',
        change: (t) => `${t}\nObject.freeze(ContentGenerationPipeline.prototype);\n`,
      },
    ]);
    const { stdout, stderr, report } = runWithPreload(path.join(dir, 'cli.js'), ['--version']);
    assert.equal(stdout.trim(), '0.21.2');
    assert.deepEqual(served(report[0]), { anthropic: true, openai: false });
    assert.match(stderr, /OpenAI-compatible streams run stock: the OpenAI converter or pipeline is frozen/);
  },
);

test(
  'a frozen Responses generator runs Responses streams stock, saying so in one line; the other two providers are served',
  { skip: latest.skip },
  () => {
    const dir = editedRelease(latest.dir, 'frozen-responses', [
      {
        needle: 'var OpenAIResponsesContentGenerator = class',
        change: (t) => `${t}\nObject.freeze(OpenAIResponsesContentGenerator.prototype);\n`,
      },
    ]);
    const { stdout, stderr, report } = runWithPreload(path.join(dir, 'cli.js'), ['--version']);
    assert.equal(stdout.trim(), '0.24.4');
    const { anthropic, openai, openaiResponses } = report[0].providers;
    assert.deepEqual([anthropic.served, openai.served, openaiResponses.served], [true, true, false]);
    assert.equal(
      stderr,
      'toolcall-stream/qwen: Qwen Code 0.24.4: OpenAI Responses streams run stock: OpenAIResponsesContentGenerator.prototype is frozen\n',
    );
  },
);

const HOOK_EXPORTS = '// an older Qwen\nexport { AnthropicContentGenerator };\nclass AnthropicContentGenerator {}\n';

test('a Qwen without the seam (0.15.x) runs stock with one line', () => {
  const cli = fakeQwen('no-seam', { 'chunk-OLD.js': HOOK_EXPORTS });
  const { stdout, stderr, report } = runWithPreload(cli);
  assert.equal(stdout, 'qwen ran\n');
  assert.equal(report[0].active, false);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.match(
    stderr,
    /^toolcall-stream\/qwen: Qwen Code 0\.15\.4 runs stock: this release has no tool-call preparing seam \(Qwen Code has one from 0\.21\.2 on\)$/m,
  );
});

test('a bundle with the seam but not every hook point runs stock, naming what it does not export', () => {
  const cli = fakeQwen('partial-seam', {
    'chunk-OLD.js': `${HOOK_EXPORTS}export { setToolCallPreparations };\nfunction setToolCallPreparations() {}\n`,
  });
  const { stderr, report } = runWithPreload(cli);
  assert.equal(report[0].active, false);
  assert.match(
    stderr,
    /^toolcall-stream\/qwen: Qwen Code 0\.15\.4 runs stock: the bundle does not export ContentGenerationPipeline, OpenAIContentConverter/,
  );
});

test('an unreadable bundle runs stock with one line', () => {
  const cli = fakeQwen('unreadable', { 'chunk-A.js': 'export const x = 1;\n', 'chunk-B.js': null });
  const { stdout, stderr, report } = runWithPreload(cli);
  assert.equal(stdout, 'qwen ran\n');
  assert.equal(report[0].active, false);
  assert.match(stderr, /^toolcall-stream\/qwen: Qwen Code 0\.15\.4 runs stock: the bundle could not be read: EISDIR/);
});

test('another program called cli.js, or any other entry: the preload does nothing', () => {
  const cli = fakeQwen('not-qwen', { 'chunk-A.js': HOOK_EXPORTS }, { packageName: 'some-other-cli' });
  const r = runWithPreload(cli);
  assert.deepEqual([r.stdout, r.stderr, r.report], ['qwen ran\n', '', []]);
  const script = path.join(tmp, 'other.mjs');
  fs.writeFileSync(script, "process.stdout.write('other\\n');\n");
  const o = runWithPreload(script);
  assert.deepEqual([o.stdout, o.stderr, o.report], ['other\n', '', []]);
});

test('TOOLCALL_STREAM_QWEN=off: nothing happens, not even a report', () => {
  const cli = fakeQwen('off', { 'chunk-A.js': HOOK_EXPORTS });
  const r = runWithPreload(cli, [], { TOOLCALL_STREAM_QWEN: 'off' });
  assert.deepEqual([r.stdout, r.stderr, r.report], ['qwen ran\n', '', []]);
});

test('a non-Qwen process with NODE_OPTIONS set still starts (execFileSync: exit 0)', () => {
  const out = execFileSync(process.execPath, ['-e', "process.stdout.write('plain node\\n')"], {
    env: { ...process.env, NODE_OPTIONS: `--import=${preload}` },
    encoding: 'utf8',
  });
  assert.equal(out, 'plain node\n');
});
