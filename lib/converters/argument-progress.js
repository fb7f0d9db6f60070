'use strict';
// The converters' `argumentProgress()`, shared by both (the counts are the
// core's: core/src/model/argument_progress.rs).

const { native } = require('../native.js');

/**
 * A converter's `argumentProgress()`: `received` inputs so far, and the
 * open calls native reports, after the object path handed over what it
 * gathered (that text counts as received; it cannot cross a limit, since
 * lib/object-path.js keeps it under the budget, so handing it over early
 * changes no outcome). A finished converter has no open calls.
 * `keepAlivesVisible`: whether `received` counts keep-alives too, which it
 * does once the converter took raw bytes (`rawBody`).
 */
function readArgumentProgress(state, objectPath, received, rawBody) {
  if (state.finished) return { received, keepAlivesVisible: rawBody, calls: [] };
  objectPath.flush();
  return { received, keepAlivesVisible: rawBody, calls: JSON.parse(native.converterArgumentProgress(state.slot)) };
}

module.exports = { readArgumentProgress };
