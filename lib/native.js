'use strict';
// The generated napi-rs loader (lib/generated/binding.js); every native call
// goes through this module.
// Entries that throw are wrapped so that what they throw is decoded by
// lib/wire.js (the wire protocol's one error encoding).
// When no binary loads, the loader's own error is replaced by one that names
// the platform, what was tried and how to build from source.
const { nativeError } = require('./wire.js');

const native = guardBinding(loadBinding());

function loadBinding() {
  try {
    return require('./generated/binding.js');
  } catch (err) {
    throw bindingLoadError(err);
  }
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

function bindingLoadError(err) {
  // The generated loader chains one error per candidate through `cause`,
  // last tried first.
  const tried = [];
  for (let e = err.cause; e; e = e.cause) {
    const message = String(e.message ?? e).split('\n')[0];
    const missing = /^Cannot find module '([^']+)'/.exec(message);
    // The loader (lib/generated/) names a local binary by its path from
    // there; shown from the package root, where it is built.
    tried.unshift(missing ? `${missing[1].replace(/^\.\.\/\.\.\//, './')} (not found)` : message);
  }
  let targets = [];
  try {
    targets = require('../package.json').napi.targets;
  } catch {
    targets = [];
  }
  const name = platformName();
  const error = new Error(
    [
      `toolcall-stream: no native binary could be loaded for ${name} (Node ${process.version}).`,
      `Tried, in order:${tried.length ? tried.map((t) => `\n  - ${t}`).join('') : ` ${err.message}`}`,
      `Prebuilt binaries are published for: ${targets.join(', ')}.`,
      'On one of those, reinstall with optional dependencies enabled (not --omit=optional / --no-optional);' +
        ' if npm still skips the platform package, remove node_modules and package-lock.json and run `npm install`' +
        ' again (https://github.com/npm/cli/issues/4828).',
      'Otherwise build from source (Rust toolchain and Node >= 20): in a clone of the repository run' +
        ' `npm install && npm run build`, which writes toolcall-stream.<platform>.node beside index.js;' +
        ' or point NAPI_RS_NATIVE_LIBRARY_PATH at a .node file built elsewhere.',
    ].join('\n'),
  );
  error.code = 'ERR_TOOLCALL_STREAM_NO_BINDING';
  error.platform = name;
  error.cause = err;
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

module.exports = { native, liveHandles };
