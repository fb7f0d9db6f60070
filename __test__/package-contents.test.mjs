// What each package of this repository ships, from `npm pack --dry-run`: the
// root (the library, the Qwen Code preload and launcher) ships no agent, no
// demo and no agent bin; the agent (packages/agent) ships its own code and bin,
// and none of the library's lib/, core/ or src/, which it gets through its
// dependency on toolcall-stream. Each ships its README and licence. The
// root's packed package.json runs nothing at install time: its binaries come
// in per-platform packages (napi-rs/package-template), so `npm install` has
// no build to run and npm no install script to warn about.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const agentDir = path.join(root, 'packages', 'agent');

function npmPack(dir, args) {
  // npm is a .cmd on Windows, which Node spawns only through a shell.
  const out = execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--json', ...args], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  });
  return JSON.parse(out)[0];
}

/** The file list of `npm pack --dry-run` in `dir`, with forward slashes. */
function packedFiles(dir) {
  return npmPack(dir, ['--dry-run', '--ignore-scripts']).files.map((f) => f.path.replace(/\\/g, '/'));
}

/** Every file of `files` matches one of `allowed` and none of `forbidden`; every `required` is there. */
function assertShips(files, { allowed, forbidden, required }) {
  for (const f of files) {
    for (const bad of forbidden) assert.doesNotMatch(f, bad, `${f} must not ship`);
    assert.ok(
      allowed.some((re) => re.test(f)),
      `${f} is not in the allowed list`,
    );
  }
  for (const f of required) assert.ok(files.includes(f), `${f} must ship`);
}

// Named explicitly so a failure says what leaked; shared by both packages.
const NEVER = [
  /^__test__\//,
  /fixtures\//,
  /(^|\/)target\//,
  /^benchmark\//,
  /^fuzz\//,
  /\.rs$/,
  /^Cargo\./,
  /^npm\//,
  /^scripts\//,
  /^demo\//,
  /^docs\//,
  /^packages\//,
  /^\.github\//,
  /^\.ci\//,
  /\.tgz$/,
  /\.node$/,
];

test('the root package ships the library and the Qwen Code preload, and nothing of the agent', () => {
  const files = packedFiles(root);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assertShips(files, {
    allowed: [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE(\.md)?$/,
      /^index\.(js|mjs|d\.ts|d\.mts)$/,
      /^lib\/([\w-]+\/)*[\w-]+\.(js|mjs|d\.ts)$/,
      /^bin\/[\w-]+\.(js|mjs)$/,
    ],
    forbidden: [...NEVER, /^src\//, /^core\//, /^binding\./, /^agent\//, /^bin\/agent\.js$/],
    required: [
      'package.json',
      'README.md',
      'LICENSE',
      'index.js',
      'index.mjs',
      'index.d.ts',
      'index.d.mts',
      'lib/generated/binding.js',
      'lib/generated/binding.d.ts',
      'lib/generated/wire-constants.js',
      'lib/generated/simple-response.js',
      'lib/native.js',
      'lib/wire.js',
      'lib/available.js',
      'lib/acp/index.js',
      'lib/generated/qwen-known-code.mjs',
      'lib/qwen/preload.mjs',
      'lib/qwen/serve.mjs',
      'lib/qwen/launcher.mjs',
      'lib/qwen/find-qwen.mjs',
      'lib/qwen/check.mjs',
      'lib/qwen/qwen-update.mjs',
      'lib/qwen/inspect.mjs',
      'lib/qwen/sdk-frames.mjs',
      'bin/toolcall-stream-qwen.js',
    ],
  });
  assert.deepEqual(manifest.bin, { 'toolcall-stream-qwen': 'bin/toolcall-stream-qwen.js' });
  assert.ok(!('toolcall-stream-agent' in (manifest.bin ?? {})), 'the root has no agent bin');
  for (const peer of ['@agentclientprotocol/sdk', '@anthropic-ai/sdk', 'openai'])
    assert.ok(!(peer in (manifest.peerDependencies ?? {})), `a library user installs no ${peer}`);
});

test('the agent package ships its code, its bin, README and licence, and none of the library', () => {
  const files = packedFiles(agentDir);
  const manifest = JSON.parse(fs.readFileSync(path.join(agentDir, 'package.json'), 'utf8'));
  const agentModules = fs
    .readdirSync(path.join(agentDir, 'lib'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `lib/${f}`);
  assert.ok(agentModules.includes('lib/server.js'), 'the agent lives in packages/agent/lib');
  assertShips(files, {
    allowed: [/^package\.json$/, /^README\.md$/, /^LICENSE(\.md)?$/, /^lib\/[\w-]+\.js$/, /^bin\/agent\.js$/],
    forbidden: [
      ...NEVER,
      /^src\//,
      /^core\//,
      /^index\./,
      /^binding\./,
      /^lib\/(native|wire|converters|generated|qwen)/,
    ],
    required: ['package.json', 'README.md', 'LICENSE', 'bin/agent.js', ...agentModules],
  });
  assert.deepEqual(manifest.bin, { 'toolcall-stream-agent': 'bin/agent.js' });
  assert.ok('toolcall-stream' in manifest.dependencies, 'the agent depends on the library');
});

test('the packed root package.json has no install-time script', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-pack-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const { filename } = npmPack(root, ['--ignore-scripts', '--pack-destination', tmp]);
  const manifest = JSON.parse(
    execFileSync('tar', ['xzf', path.join(tmp, filename), '-O', 'package/package.json'], { encoding: 'utf8' }),
  );
  const installTime = ['preinstall', 'install', 'postinstall', 'prepare'].filter((s) => s in (manifest.scripts ?? {}));
  assert.deepEqual(installTime, [], `the tarball's package.json runs ${installTime.join(', ')} when installed`);
  assert.equal(manifest.gypfile, undefined, 'no binding.gyp build either');
});
