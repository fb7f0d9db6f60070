'use strict';
// Retry policy, as Qwen Code's GeminiChat applies it
// (packages/core/src/core/geminiChat.ts, sendMessageStream): rate limits and
// overload are retried, and so is an InvalidStreamError; a transport failure
// (a dropped connection, a stalled stream) only before any output was
// emitted; after the retries, a model fallback when one is configured and
// nothing was emitted. Each retry reaches consumeModelStream as a RETRY
// event, a fallback as MODEL_FALLBACK (see model-request.js).

const MAX_RETRIES = 4;

const RETRYABLE_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error']);
const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** Socket-level failures: a reset, a refused connection, a body cut mid-stream (undici's "terminated"). */
const TRANSPORT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET']);

/** A provider error (HTTP status or in-band error) that is worth another attempt. */
function isRetryableProviderError(err) {
  if (err?.code === 'STREAM_ERROR') {
    const pe = err.providerError ?? {};
    return RETRYABLE_TYPES.has(pe.type) || RETRYABLE_STATUS.has(Number(pe.code)) || pe.code === 'rate_limit_exceeded';
  }
  return typeof err?.status === 'number' && RETRYABLE_STATUS.has(err.status);
}

function isTransportError(err) {
  return (
    err?.name === 'APIConnectionError' ||
    err?.name === 'APIConnectionTimeoutError' ||
    err?.code === 'STREAM_STALLED' ||
    TRANSPORT_CODES.has(err?.cause?.code ?? err?.code)
  );
}

/**
 * Whether to try again. `emittedOutput`: the attempt already yielded
 * something the user saw (text, a complete call, a finish); a transport
 * retry would show it twice, so it is not retried (Qwen: no transport retry
 * after a non-preparation chunk).
 */
function isRetryable(err, emittedOutput) {
  // Qwen retries an InvalidStreamError whatever was emitted (geminiChat.ts, sendMessageStream).
  if (err?.name === 'InvalidStreamError') return true;
  if (isRetryableProviderError(err)) return true;
  return !emittedOutput && isTransportError(err);
}

/** Whether a failure that outlived the retries may move to the fallback model (Qwen: primary exhausted, nothing emitted). */
function isFallbackEligible(err, emittedOutput) {
  return !emittedOutput && isRetryableProviderError(err);
}

/** HTTP 429 or an in-band rate-limit error. */
function isRateLimit(err) {
  if (err?.status === 429) return true;
  const pe = err?.code === 'STREAM_ERROR' ? (err.providerError ?? {}) : {};
  return pe.type === 'rate_limit_error' || Number(pe.code) === 429 || pe.code === 'rate_limit_exceeded';
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

module.exports = { MAX_RETRIES, isRetryable, isFallbackEligible, isRateLimit, retryDelay, describeError };
