// lib/generated/qwen-known-code.mjs is what scripts/qwen-known-code.mjs
// writes from the published releases, and every tested release is served
// with the variant the generator declared for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
  const seen = { anthropic: new Set(), openai: new Set() };
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
  }
  // The variants read from the bundles: three Anthropic, two OpenAI.
  assert.equal(seen.anthropic.size, 3);
  assert.equal(seen.openai.size, 2);
});
