'use strict';
// Why a preparing card ended without running (core/src/acp/discard.rs):
// the one set of reasons the library, the reference agent and the Qwen
// preload share, and the check of a cause given from JS.

const { invalid, isPlainObjectLike } = require('./values.js');

/**
 * Every `_meta.discardReason`, and what a discarded card's title says for
 * it (`<title> · not run: <words>`; an idle timeout says its limit:
 * `no data for 240 s`).
 */
const DISCARD_REASONS = Object.freeze({
  retry: 'the request is being retried',
  fallback: 'switched to another model',
  cancel: 'cancelled',
  'stream-error': 'the stream failed',
  'idle-timeout': 'no data from the provider',
});

/** The longest idle limit accepted: Qwen Code's MAX_STREAM_GUARD_TIMEOUT_MS is far below it. */
const MAX_IDLE_LIMIT_MS = 2 ** 31 - 1;

/** Whether `ms` is an idle limit: a whole, positive number of milliseconds, at most {@link MAX_IDLE_LIMIT_MS}. */
function isIdleLimit(ms) {
  return Number.isInteger(ms) && ms > 0 && ms <= MAX_IDLE_LIMIT_MS;
}

/**
 * A discard's cause, checked: `undefined` (not known: the title says a
 * neutral `not run`), a reason, or `{ reason, idleLimitMs? }` where
 * `idleLimitMs` is the idle limit that passed (for `'idle-timeout'`).
 * Returns `undefined` or `{ reason, idleLimitMs? }`; throws INVALID_ARGUMENT
 * for anything else.
 */
function discardCause(value, what) {
  if (value === undefined) return undefined;
  const reason = typeof value === 'string' ? value : isPlainObjectLike(value) ? value.reason : undefined;
  if (typeof reason !== 'string' || !Object.hasOwn(DISCARD_REASONS, reason)) {
    throw invalid(`${what}: a discard's cause must be one of ${Object.keys(DISCARD_REASONS).join(', ')}`);
  }
  const idleLimitMs = typeof value === 'string' ? undefined : value.idleLimitMs;
  if (idleLimitMs === undefined || reason !== 'idle-timeout') return { reason };
  if (!isIdleLimit(idleLimitMs)) throw invalid(`${what}: idleLimitMs must be a positive whole number of milliseconds`);
  return { reason, idleLimitMs };
}

module.exports = { DISCARD_REASONS, discardCause, isIdleLimit };
