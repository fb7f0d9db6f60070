'use strict';
// `toolcall-stream/available`: whether the binding loads on this machine,
// without throwing, and which one: the native addon, or the WebAssembly build
// where no native one loads (lib/native.js). A host imports this first and
// keeps its own JS converters when the answer is no (the main entry throws
// ERR_TOOLCALL_STREAM_NO_BINDING on such a machine).

/**
 * @returns {{available: true, kind: 'native' | 'wasi', platform: string} |
 *   {available: false, code: string, reason: string}}
 */
function checkAvailable() {
  let loaded;
  try {
    loaded = require('./native.js');
  } catch (err) {
    return { available: false, code: err?.code ?? 'ERR_TOOLCALL_STREAM_NO_BINDING', reason: String(err?.message) };
  }
  // The platform of what loaded: this process's (`linux-x64-gnu`, …), or the
  // WASI package's name for it.
  const platform = loaded.bindingKind === 'wasi' ? 'wasm32-wasi' : loaded.platformName();
  return { available: true, kind: loaded.bindingKind, platform };
}

module.exports = { checkAvailable };
