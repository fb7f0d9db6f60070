'use strict';
// Which source errors are retryable stream transport errors, as Qwen Code
// 0.24.4 classifies them: under qwen-0.24 those are the failures after which
// the held calls confirmed complete are still yielded.

/** `RETRYABLE_STREAM_TRANSPORT_CODES` of 0.24.4 (packages/core/src/core/stream-transport-retry.ts). */
const RETRYABLE_STREAM_TRANSPORT_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The transport codes 0.24.4's `classifyRetryError` recognises (packages/core/src/utils/retryErrorClassification.ts). */
const TRANSPORT_CODES = new Set([
  ...RETRYABLE_STREAM_TRANSPORT_CODES,
  'EAI_AGAIN',
  'ECONNABORTED',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/**
 * 0.24.4's `isRetryableStreamTransportError(classifyRetryError(err))`, as
 * far as it goes without Qwen's provider-payload parsing: not an abort; no
 * HTTP status below 500; and the first transport `code` along the `cause`
 * chain (4 levels, Error instances) is a retryable one. Not covered: the
 * rate-limit and quota classes (they come first in Qwen and never carry a
 * transport code in practice) and "upstream error without status" (a
 * provider request id on a status-less error), which 0.24.4 also yields
 * for; here such an error is rethrown without the held calls.
 */
function isRetryableStreamTransportError(err) {
  if (err === null || typeof err !== 'object') return false;
  if (err.code === 'ABORT_ERR') return false;
  if (err instanceof Error) {
    const name = err.name;
    if (name === 'AbortError' || name === 'CanceledError' || err.constructor?.name === 'APIUserAbortError')
      return false;
  }
  const status = typeof err.status === 'number' ? err.status : err.statusCode;
  if (typeof status === 'number' && status < 500) return false;
  let current = err;
  for (let depth = 0; depth <= 4; depth++) {
    if (current === null || typeof current !== 'object') return false;
    const code = current.code;
    if (typeof code === 'string' && TRANSPORT_CODES.has(code)) return RETRYABLE_STREAM_TRANSPORT_CODES.has(code);
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

module.exports = { isRetryableStreamTransportError };
