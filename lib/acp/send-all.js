'use strict';

/** Sends every frame, awaiting each; rethrows the first failure after trying all (docs/behaviour.md §5.3 discard). */
async function sendAll(frames, send) {
  let failure;
  let failed = false;
  for (const frame of frames) {
    try {
      await send(frame);
    } catch (err) {
      if (!failed) failure = err;
      failed = true;
    }
  }
  if (failed) throw failure;
}

module.exports = { sendAll };
