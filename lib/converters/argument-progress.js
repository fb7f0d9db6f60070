'use strict';
// The converters' `argumentProgress()`, shared by both (the counts are the
// core's: core/src/model/argument_progress.rs).

const { native } = require('../native.js');

/**
 * The option (a symbol: the Qwen preload's, not the public API) that gives a
 * converter a function returning the body's bytes that have reached the
 * process but not the converter, because they are held back where the SDK
 * holds them (lib/qwen/raw-body.mjs, lib/qwen/sdk-frames.mjs). Progress
 * counts their argument fragments; nothing converts them early.
 */
const kHeldBytes = Symbol('toolcall-stream.heldBytes');
const NO_BYTES = new Uint8Array(0);

/**
 * A converter's `argumentProgress()`: `received` inputs so far, and the
 * open calls native reports, after the object path handed over what it
 * gathered (that text counts as received; it cannot cross a limit, since
 * lib/object-path.js keeps it under the budget, so handing it over early
 * changes no outcome). A finished converter has no open calls.
 * `keepAlivesVisible`: whether `received` counts keep-alives too, which it
 * does once the converter took raw bytes (`rawBody`). `heldBytes`: the
 * converter's {@link kHeldBytes} function, or undefined; the bytes cross
 * with the one native call a read makes.
 */
function readArgumentProgress(state, objectPath, received, rawBody, heldBytes) {
  if (state.finished) return { received, keepAlivesVisible: rawBody, calls: [] };
  objectPath.flush();
  const held = heldBytes?.() ?? NO_BYTES;
  return {
    received,
    keepAlivesVisible: rawBody,
    calls: JSON.parse(native.converterArgumentProgress(state.slot, held)),
  };
}

module.exports = { readArgumentProgress, kHeldBytes };
