'use strict';
// Retry policy: rate limits and overload are retried; a dropped connection
// only before any visible output. Each retry reaches consumeModelStream as a
// RETRY event (see model-request.js).

const MAX_RETRIES = 4;

const RETRYABLE_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error']);
const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** Socket-level failures: a reset, a refused connection, a body cut mid-stream (undici's "terminated"). */
const TRANSPORT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET']);

function isRetryable(err, emittedOutput) {
  // Qwen retries an InvalidStreamError whatever was emitted (geminiChat.ts, sendMessageStream).
  if (err?.name === 'InvalidStreamError') return true;
  if (err?.code === 'STREAM_ERROR') {
    const pe = err.providerError ?? {};
    return RETRYABLE_TYPES.has(pe.type) || RETRYABLE_STATUS.has(Number(pe.code)) || pe.code === 'rate_limit_exceeded';
  }
  if (typeof err?.status === 'number') return RETRYABLE_STATUS.has(err.status);
  // A dropped or stalled connection is retried only before any visible output.
  return (
    !emittedOutput &&
    (err?.name === 'APIConnectionError' ||
      err?.code === 'STREAM_STALLED' ||
      TRANSPORT_CODES.has(err?.cause?.code ?? err?.code))
  );
}

function retryDelay(err, attempt, baseMs) {
  const headers = err?.headers;
  const ms = Number(headers?.get?.('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers.get('retry-after-ms') !== null) return Math.min(ms, 10_000);
  const s = Number(headers?.get?.('retry-after'));
  if (Number.isFinite(s) && s > 0) return Math.min(s * 1000, 10_000);
  return baseMs * attempt;
}

const describeError = (err) =>
  err?.code === 'STREAM_ERROR' && err.providerError
    ? `${err.providerError.type ?? 'error'}: ${err.providerError.message ?? err.message}`
    : (err?.message ?? String(err));

module.exports = { MAX_RETRIES, isRetryable, retryDelay, describeError };
