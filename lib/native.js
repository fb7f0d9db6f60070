'use strict';
// The generated napi-rs loader (lib/generated/binding.js); every native call
// goes through this module.
// Entries that throw are wrapped so that what they throw is decoded by
// lib/wire.js (the wire protocol's one error encoding).
// When no binary loads, the loader's own error is replaced by one that names
// the platform, what was tried and how to build from source.
//
// The binding is the native addon for this platform or, where none loads,
// the WebAssembly build (wasm32-wasip1-threads, the package
// toolcall-stream-wasm32-wasi): the generated loader falls back to it on its
// own. Two switches make it load on any machine, to test it there:
//   TOOLCALL_STREAM_FORCE_WASI=1   the WASI build or ERR_TOOLCALL_STREAM_NO_BINDING, never native
//   NAPI_RS_FORCE_WASI             napi-rs's own: `error` as above; `true` (or `1`) the WASI build
//                                  first, native where it does not load
const fs = require('node:fs');
const path = require('node:path');
const { nativeError } = require('./wire.js');

const WASI_PACKAGE = 'toolcall-stream-wasm32-wasi';
// Where `npm run build:wasi` leaves the WASI package in a clone of the
// repository (scripts/build-cross.mjs); absent from an installed package. Only
// the switches above load it: unforced, a clone loads what an install would.
const WASI_BUILD_DIR = path.join(__dirname, '..', 'npm', 'wasm32-wasi');

const loaded = loadBinding();
const native = guardBinding(loaded);

/** Which binding loaded: `native`, or `wasi` (the generated loaders stamp `wasm32-wasi` on theirs). */
const bindingKind = String(loaded.__napiBindingTarget ?? 'native').startsWith('wasm32') ? 'wasi' : 'native';

/** `only`: the WASI build or an error; `first`: the WASI build, else native; null: native first. */
function wasiSwitch(env) {
  if (env.TOOLCALL_STREAM_FORCE_WASI === '1' || env.NAPI_RS_FORCE_WASI === 'error') return 'only';
  if (env.NAPI_RS_FORCE_WASI === 'true' || env.NAPI_RS_FORCE_WASI === '1') return 'first';
  return null;
}

function loadBinding() {
  const mode = wasiSwitch(process.env);
  const tried = [];
  if (mode) {
    const wasi = loadWasi(tried, [WASI_BUILD_DIR, WASI_PACKAGE]);
    if (wasi) return wasi;
    if (mode === 'only')
      throw bindingLoadError(tried, { forcedBy: 'TOOLCALL_STREAM_FORCE_WASI=1 or NAPI_RS_FORCE_WASI=error' });
  }
  try {
    // Native for this platform, then napi's own WASI fallback (the package).
    return require('./generated/binding.js');
  } catch (err) {
    throw bindingLoadError([...tried, ...loaderCandidates(err)], { cause: err });
  }
}

/**
 * The first WASI loader of `candidates` that loads (the build folder, or the
 * package by name), each failure noted in `tried`; null when none does. A
 * build folder without its package.json is no build and is not counted.
 */
function loadWasi(tried, candidates) {
  for (const candidate of candidates) {
    const isDir = path.isAbsolute(candidate);
    if (isDir && !fs.existsSync(path.join(candidate, 'package.json'))) continue;
    const shown = isDir ? `./${path.relative(path.join(__dirname, '..'), candidate)}` : candidate;
    try {
      return require(candidate);
    } catch (err) {
      const message = String(err?.message ?? err).split('\n')[0];
      const missing = isDir ? 'not built: npm run build:wasi' : 'not found';
      tried.push(/^Cannot find module /.test(message) ? `${shown} (${missing})` : `${shown}: ${message}`);
    }
  }
  return null;
}

/** `linux-x64-gnu`, `darwin-arm64`, …: the napi-rs platform name of this process. */
function platformName() {
  const { platform, arch } = process;
  if (platform !== 'linux') return `${platform}-${arch}`;
  let glibc;
  try {
    glibc = process.report.getReport().header.glibcVersionRuntime;
  } catch {
    glibc = undefined;
  }
  return `${platform}-${arch}-${glibc ? 'gnu' : 'musl'}`;
}

/** What the generated loader tried, in order, from the error it throws. */
function loaderCandidates(err) {
  // The generated loader chains one error per candidate through `cause`,
  // last tried first.
  const tried = [];
  if (!err?.cause) return [String(err?.message ?? err).split('\n')[0]];
  for (let e = err.cause; e; e = e.cause) {
    const message = String(e.message ?? e).split('\n')[0];
    const missing = /^Cannot find module '([^']+)'/.exec(message);
    // The loader (lib/generated/) names a local binary by its path from
    // there; shown from the package root, where it is built.
    tried.unshift(missing ? `${missing[1].replace(/^\.\.\/\.\.\//, './')} (not found)` : message);
  }
  return tried;
}

function bindingLoadError(tried, { forcedBy, cause }) {
  let targets = [];
  try {
    targets = require('../package.json').napi.targets.filter((t) => !t.startsWith('wasm32'));
  } catch {
    targets = [];
  }
  const name = platformName();
  const error = new Error(
    [
      forcedBy
        ? `toolcall-stream: the WebAssembly build could not be loaded (${forcedBy}; Node ${process.version} on ${name}).`
        : `toolcall-stream: no native binary or WebAssembly build could be loaded for ${name} (Node ${process.version}).`,
      `Tried, in order:${tried.map((t) => `\n  - ${t}`).join('')}`,
      `Prebuilt native binaries are published for: ${targets.join(', ')}.`,
      'On one of those, reinstall with optional dependencies enabled (not --omit=optional / --no-optional);' +
        ' if npm still skips the platform package, remove node_modules and package-lock.json and run `npm install`' +
        ' again (https://github.com/npm/cli/issues/4828).',
      `Anywhere else, the WebAssembly build runs (Node ^20.19 or >= 22.13): \`npm install --cpu=wasm32 toolcall-stream\`` +
        ` also installs its package, ${WASI_PACKAGE}, which npm otherwise skips.`,
      'Otherwise build from source (Rust toolchain and Node >= 20): in a clone of the repository run' +
        ' `npm install && npm run build`, which writes toolcall-stream.<platform>.node beside index.js;' +
        ' or point NAPI_RS_NATIVE_LIBRARY_PATH at a .node file built elsewhere.',
    ].join('\n'),
  );
  error.code = 'ERR_TOOLCALL_STREAM_NO_BINDING';
  error.platform = name;
  if (cause) error.cause = cause;
  return error;
}

function guarded(fn, name) {
  return {
    [name](...args) {
      try {
        return fn.apply(this, args);
      } catch (err) {
        throw nativeError(err);
      }
    },
  }[name];
}

/**
 * Every native entry that throws rather than returning a batch goes through
 * `nativeError`: the constructors, the ACP classes' methods, the helpers.
 * The converters' hot entries return batches (errors inside, lib/wire.js
 * `decode`) and stay bare: their callers check the arguments first.
 */
function guardBinding(binding) {
  const out = { ...binding };
  const throwing = ['ConverterHandle', 'NativeToolCallCards', 'NativePreparationTracker', 'NativeToolCallIds'];
  for (const name of throwing) {
    const Class = binding[name];
    for (const key of Object.getOwnPropertyNames(Class.prototype)) {
      const d = Object.getOwnPropertyDescriptor(Class.prototype, key);
      if (key !== 'constructor' && typeof d.value === 'function') {
        Object.defineProperty(Class.prototype, key, { ...d, value: guarded(d.value, key) });
      }
    }
    out[name] = function (...args) {
      try {
        return new Class(...args);
      } catch (err) {
        throw nativeError(err);
      }
    };
  }
  for (const name of ['acpPlanUpdate', 'acpFrameToolName', 'acpCardTitle', 'openaiPushTextDelta'])
    out[name] = guarded(binding[name], name);
  return out;
}

function liveHandles() {
  return native.liveHandles();
}

// `binding`: what loaded, before the guards (its classes' prototypes are the
// ones `native` shares; the tests that count crossings wrap them there).
module.exports = { native, liveHandles, bindingKind, platformName, binding: loaded };
