'use strict';
// `toolcall-stream/available`: whether the native binary loads on this
// machine, without throwing. A host imports this first and keeps its own JS
// converters when the answer is no (the main entry throws
// ERR_TOOLCALL_STREAM_NO_BINDING on such a machine).

/**
 * @returns {{available: true} | {available: false, code: string, reason: string}}
 */
function checkAvailable() {
  try {
    require('./native.js');
    return { available: true };
  } catch (err) {
    return { available: false, code: err?.code ?? 'ERR_TOOLCALL_STREAM_NO_BINDING', reason: String(err?.message) };
  }
}

module.exports = { checkAvailable };
