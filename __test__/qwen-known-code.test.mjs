// lib/generated/qwen-known-code.mjs is what scripts/qwen-known-code.mjs
// writes from the published releases, and every tested release is served
// with the variant the generator declared for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QWEN_VERSIONS, qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { inspectQwen } from '../lib/qwen/inspect.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const builds = QWEN_VERSIONS.map((v) => [v, qwenBuildOrSkip(v)]);
const skip = builds.find(([, b]) => b.skip)?.[1].skip;

test('the generated table of known code is up to date', { skip }, () => {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'qwen-known-code.mjs'), '--check'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
});

test('every release that carries the seam is served, each provider by its code variant', { skip }, () => {
  const seen = { anthropic: new Set(), openai: new Set(), openaiResponses: new Set() };
  for (const [version, { dir }] of builds) {
    const d = inspectQwen({ dir, version }, { cache: false });
    assert.equal(d.anthropic.served, true, `${version}: ${d.anthropic.reason}`);
    assert.equal(d.openai.served, true, `${version}: ${d.openai.reason}`);
    const legacy = version.startsWith('0.21.');
    assert.equal(d.anthropic.profile, legacy ? 'qwen-0.21' : 'qwen-0.24');
    assert.equal(d.openai.profile, legacy ? 'qwen-0.21' : 'qwen-0.24');
    assert.equal(d.openai.convertName, legacy ? 'convertOpenAIChunkToGemini' : 'convertOpenAIChunkToLlm');
    assert.equal(d.openai.telemetryArg, version < '0.24.0' ? 4 : 5);
    const release = legacy ? 'none' : version < '0.23.4' ? 'transport' : 'transport-or-statusless';
    assert.equal(d.anthropic.heldCallRelease, release, version);
    // The bundled Anthropic SDK holds a frame back until a byte follows it (lib/qwen/sdk-frames.mjs).
    assert.equal(d.anthropic.lastFrameNeedsMoreBytes, true);
    seen.anthropic.add(d.anthropic.fingerprint);
    seen.openai.add(d.openai.fingerprint);
    // The OpenAI Responses generator, from 0.23.3 on: served on every release that has it.
    const responses = version.localeCompare('0.23.3', 'en', { numeric: true }) >= 0;
    if (!responses) {
      assert.equal(d.openaiResponses.served, false);
      assert.equal(d.openaiResponses.absent, true, version);
      continue;
    }
    assert.equal(d.openaiResponses.served, true, `${version}: ${d.openaiResponses.reason}`);
    assert.equal(d.openaiResponses.profile, version === '0.23.3' ? 'qwen-0.23.3' : 'qwen-0.24');
    seen.openaiResponses.add(d.openaiResponses.fingerprint);
  }
  // The variants read from the bundles: three Anthropic, two OpenAI, two OpenAI Responses.
  assert.equal(seen.anthropic.size, 3);
  assert.equal(seen.openai.size, 2);
  assert.equal(seen.openaiResponses.size, 2);
});

test('a Responses generator whose conversion changed runs stock, naming the closest known code', { skip }, () => {
  const { dir } = builds.find(([v]) => v === '0.24.4')[1];
  const copy = copyOfPackage(dir);
  try {
    const chunk = fs
      .readdirSync(path.join(copy, 'chunks'))
      .find((f) => f.startsWith('openaiResponsesContentGenerator-'));
    const file = path.join(copy, 'chunks', chunk);
    const text = fs.readFileSync(file, 'utf8');
    // One finish reason mapped otherwise: the conversion is not the code the native converter reproduces.
    const changed = text.replace('case "response.refusal.done":', 'case "response.refusal.finished":');
    assert.notEqual(changed, text);
    fs.writeFileSync(file, changed);
    const d = inspectQwen({ dir: copy, version: '0.24.4' }, { cache: false });
    assert.equal(d.openaiResponses.served, false);
    assert.match(
      d.openaiResponses.reason,
      /^ResponsesPipeline\.iterateBody is code this package does not know \(closest known code: Qwen Code 0\.23\.4, 0\.24\.0, 0\.24\.2, 0\.24\.3, 0\.24\.4, 9\d\.\d% of its lines; differs in convertResponsesEventToGemini\)$/,
    );
    // The other two providers are decided on their own.
    assert.equal(d.anthropic.served, true);
    assert.equal(d.openai.served, true);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

/** A copy of a Qwen package (its package.json, cli.js and chunks) in a temporary folder. */
function copyOfPackage(dir) {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-copy-'));
  fs.cpSync(path.join(dir, 'chunks'), path.join(copy, 'chunks'), { recursive: true });
  for (const f of ['package.json', 'cli.js']) fs.copyFileSync(path.join(dir, f), path.join(copy, f));
  return copy;
}
