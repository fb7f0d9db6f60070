// The loader on a platform with no binary: `require('toolcall-stream')` and
// `import` throw an error that names the platform, the candidates the napi-rs
// loader tried, and how to build from source. The foreign platform is
// simulated in a child process whose `process.platform` / `process.arch` are
// overridden by a preload before anything is loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-loader-'));
const preload = path.join(tmp, 'fake-platform.cjs');
fs.writeFileSync(
  preload,
  `Object.defineProperty(process, 'platform', { value: process.env.FAKE_PLATFORM });
Object.defineProperty(process, 'arch', { value: process.env.FAKE_ARCH });
`,
);
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Loads the package as `platform`/`arch`; returns the error it throws (or null). */
function loadAs(platform, arch, how, env = {}) {
  const code =
    how === 'require'
      ? `try { require(${JSON.stringify(root)}); console.log('null') } catch (e) { console.log(JSON.stringify({ message: e.message, code: e.code, platform: e.platform })) }`
      : `import(${JSON.stringify(pathToFileURL(path.join(root, 'index.mjs')).href)}).then(() => console.log('null'), (e) => console.log(JSON.stringify({ message: e.message, code: e.code, platform: e.platform })))`;
  const r = spawnSync(process.execPath, ['--require', preload, '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, FAKE_PLATFORM: platform, FAKE_ARCH: arch, NAPI_RS_NATIVE_LIBRARY_PATH: '', ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

for (const [platform, arch, name] of [
  ['freebsd', 'x64', 'freebsd-x64'],
  ['linux', 'riscv64', 'linux-riscv64-gnu'],
  ['linux', 'arm64', 'linux-arm64-gnu'],
]) {
  for (const how of ['require', 'import']) {
    test(`${how} on ${name} without a binary names the platform, the candidates and the way to build`, () => {
      const err = loadAs(platform, arch, how);
      assert.ok(err, 'loading must fail');
      assert.equal(err.code, 'ERR_TOOLCALL_STREAM_NO_BINDING');
      assert.equal(err.platform, name);
      assert.match(err.message, new RegExp(`for ${name}\\b`));
      assert.ok(err.message.includes(`toolcall-stream-${name} (not found)`), err.message);
      assert.ok(err.message.includes(`./toolcall-stream.${name}.node (not found)`), err.message);
      assert.ok(err.message.includes('npm run build'), err.message);
      for (const target of pkg.napi.targets) assert.ok(err.message.includes(target), target);
    });
  }
}

test('NAPI_RS_NATIVE_LIBRARY_PATH loads a binary built elsewhere, as the error says', () => {
  const host = fs.readdirSync(root).find((f) => /^toolcall-stream\..+\.node$/.test(f));
  assert.ok(host, 'no host binary: `npm run build` first');
  const err = loadAs('freebsd', 'x64', 'require', { NAPI_RS_NATIVE_LIBRARY_PATH: path.join(root, host) });
  assert.equal(err, null);
});

// On the official node.exe the generated loader looks only for the msvc names;
// the windows-gnu build (scripts/build-cross.mjs) is for the Wine tests and
// must never become a package a user's Node could pick (README, "Supported platforms").
test('Windows x64 publishes only the msvc binary: the windows-gnu test build has no package', () => {
  assert.ok(pkg.napi.targets.includes('x86_64-pc-windows-msvc'));
  assert.deepEqual(
    pkg.napi.targets.filter((t) => /windows-gnu/.test(t)),
    [],
  );
  assert.equal(fs.existsSync(path.join(root, 'npm', 'win32-x64-gnu')), false);
});
