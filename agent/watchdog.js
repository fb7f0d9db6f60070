'use strict';
// The stall watchdog: a provider stream that sends no bytes for a while is
// given up, like Qwen Code's withStreamInactivityTimeout
// (packages/core/src/core/openaiContentGenerator/pipeline.ts): the request is
// aborted and the attempt fails with a retryable timeout error (`ETIMEDOUT`),
// which model-request.js retries as a transport error. Deliberate
// differences: it runs for both providers, and from the request on, so a
// server that never sends its response headers is caught too; any bytes
// count as progress (Qwen counts SDK chunks).

/** The stream sent nothing for `ms` milliseconds. */
class StreamStallError extends Error {
  constructor(ms) {
    super(`The model stream sent no data for ${ms} ms.`);
    this.name = 'StreamStallError';
    this.code = 'ETIMEDOUT';
  }
}

/**
 * Aborts `controller` with a StreamStallError unless `touch()` is called at
 * least every `ms` milliseconds; `stop()` disarms it. `ms <= 0` never fires.
 */
function stallWatchdog(ms, controller) {
  let timer;
  const arm = () => {
    clearTimeout(timer);
    if (ms > 0) timer = setTimeout(() => controller.abort(new StreamStallError(ms)), ms);
  };
  arm();
  return { touch: arm, stop: () => clearTimeout(timer) };
}

module.exports = { StreamStallError, stallWatchdog };
