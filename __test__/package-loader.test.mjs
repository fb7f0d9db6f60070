// The loader on a platform with no binary: `require('toolcall-stream')` and
// `import` throw an error that names the platform, the candidates the napi-rs
// loader tried (the WebAssembly package among them), and how to build from
// source; with the WebAssembly package installed, the same platform loads it.
// The foreign platform is simulated in a child process whose
// `process.platform` / `process.arch` are overridden by a preload before
// anything is loaded.
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

/**
 * Loads the package at `dir` as `platform`/`arch`; returns the error it throws,
 * or null (`{ available }` from toolcall-stream/available with `how: 'check'`).
 */
function loadAs(platform, arch, how, env = {}, dir = root) {
  const fail = `(e) => console.log(JSON.stringify({ message: e.message, code: e.code, platform: e.platform }))`;
  const code = {
    require: `try { require(${JSON.stringify(dir)}); console.log('null') } catch (e) { (${fail})(e) }`,
    import: `import(${JSON.stringify(pathToFileURL(path.join(dir, 'index.mjs')).href)}).then(() => console.log('null'), ${fail})`,
    check: `console.log(JSON.stringify(require(${JSON.stringify(path.join(dir, 'lib', 'available.js'))}).checkAvailable()))`,
  }[how];
  const r = spawnSync(process.execPath, ['--require', preload, '-e', code], {
    encoding: 'utf8',
    env: {
      ...process.env,
      FAKE_PLATFORM: platform,
      FAKE_ARCH: arch,
      NAPI_RS_NATIVE_LIBRARY_PATH: '',
      NAPI_RS_FORCE_WASI: '',
      TOOLCALL_STREAM_FORCE_WASI: '',
      NODE_PATH: '',
      ...env,
    },
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
      // The WebAssembly package was tried too, and the error says how to install it.
      assert.ok(err.message.includes('toolcall-stream-wasm32-wasi (not found)'), err.message);
      assert.ok(err.message.includes('npm install --cpu=wasm32 toolcall-stream'), err.message);
      for (const target of pkg.napi.targets.filter((t) => !t.startsWith('wasm32')))
        assert.ok(err.message.includes(target), target);
    });
  }
}

test('NAPI_RS_NATIVE_LIBRARY_PATH loads a binary built elsewhere, as the error says', () => {
  const host = fs.readdirSync(root).find((f) => /^toolcall-stream\..+\.node$/.test(f));
  assert.ok(host, 'no host binary: `npm run build` first');
  const err = loadAs('freebsd', 'x64', 'require', { NAPI_RS_NATIVE_LIBRARY_PATH: path.join(root, host) });
  assert.equal(err, null);
});

// The WebAssembly build (npm run build:wasi leaves its package in
// npm/wasm32-wasi/): an install where npm put the package in node_modules is
// stood in for by NODE_PATH, which the generated loader's require() searches.
const wasiPackage = path.join(root, 'npm', 'wasm32-wasi');
const wasiBuilt = fs.existsSync(path.join(wasiPackage, 'toolcall-stream.wasm32-wasi.wasm'));
const needsWasi = wasiBuilt ? {} : { skip: 'the WebAssembly build is missing: `npm run build:wasi` first' };

/** A NODE_PATH folder that holds the WebAssembly package by its name. */
function wasiInstalled() {
  const modules = path.join(tmp, 'wasi-node-path');
  if (!fs.existsSync(modules)) {
    fs.mkdirSync(modules);
    fs.symlinkSync(wasiPackage, path.join(modules, 'toolcall-stream-wasm32-wasi'), 'dir');
  }
  return modules;
}

test(
  'where no native binary loads, the installed WebAssembly package does, and checkAvailable says so',
  needsWasi,
  () => {
    const NODE_PATH = wasiInstalled();
    for (const how of ['require', 'import'])
      assert.equal(loadAs('freebsd', 'x64', how, { NODE_PATH }), null, `${how} with the WASI package installed`);
    assert.deepEqual(loadAs('freebsd', 'x64', 'check', { NODE_PATH }), {
      available: true,
      kind: 'wasi',
      platform: 'wasm32-wasi',
    });
    // On this machine's own platform the native binary still comes first.
    assert.equal(loadAs(process.platform, process.arch, 'check', { NODE_PATH }).kind, 'native');
  },
);

test('the switches load the WebAssembly build on a machine with a native binary', needsWasi, () => {
  for (const env of [{ TOOLCALL_STREAM_FORCE_WASI: '1' }, { NAPI_RS_FORCE_WASI: '1' }, { NAPI_RS_FORCE_WASI: 'true' }])
    assert.deepEqual(
      loadAs(process.platform, process.arch, 'check', env),
      { available: true, kind: 'wasi', platform: 'wasm32-wasi' },
      JSON.stringify(env),
    );
  // Any other value is napi-rs's "unset" (its loader reads only `true` and `error`).
  assert.equal(loadAs(process.platform, process.arch, 'check', { NAPI_RS_FORCE_WASI: '0' }).kind, 'native');
});

test('TOOLCALL_STREAM_FORCE_WASI=1 without a WebAssembly build is an error, never the native binary', () => {
  // A copy of the package with the native binary beside it and no
  // npm/wasm32-wasi/ build: what an install without the WASI package is.
  const copy = path.join(tmp, 'package-copy');
  fs.mkdirSync(copy);
  for (const entry of ['package.json', 'index.js', 'index.mjs', 'lib'])
    fs.cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
  const host = fs.readdirSync(root).find((f) => /^toolcall-stream\..+\.node$/.test(f));
  assert.ok(host, 'no host binary: `npm run build` first');
  fs.copyFileSync(path.join(root, host), path.join(copy, host));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const here = [process.platform, process.arch];
  assert.equal(loadAs(...here, 'check', {}, copy).kind, 'native');
  for (const env of [{ TOOLCALL_STREAM_FORCE_WASI: '1' }, { NAPI_RS_FORCE_WASI: 'error' }]) {
    const err = loadAs(...here, 'require', env, copy);
    assert.ok(err, `${JSON.stringify(env)}: loading must fail`);
    assert.equal(err.code, 'ERR_TOOLCALL_STREAM_NO_BINDING');
    assert.match(err.message, /the WebAssembly build could not be loaded/);
    assert.ok(err.message.includes('toolcall-stream-wasm32-wasi (not found)'), err.message);
    assert.ok(!err.message.includes(host), err.message);
  }
  // napi-rs's `true` prefers the WebAssembly build and keeps native as its fallback.
  assert.equal(loadAs(...here, 'check', { NAPI_RS_FORCE_WASI: 'true' }, copy).kind, 'native');
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
