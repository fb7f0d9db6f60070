'use strict';
// consumeModelStream: the stream loop of docs/behaviour.md §6.4, turning a
// model stream's events into tool-card frames and the attempt's calls.

const { unreadable } = require('../responses.js');
const { invalid, isObject, isPlainObjectLike } = require('./values.js');
const { ToolCallCards } = require('./cards.js');
const { PreparationTracker, observeChunk, callsArrived } = require('./tracker.js');
const { ToolCallIds } = require('./ids.js');
const { modelParts, functionCallsOf } = require('./response-parts.js');
const { sendAll } = require('./send-all.js');
const { discardCause, isIdleLimit } = require('./discard.js');

/** consumeModelStream's arguments, checked; `historyIds` copied. */
function streamOptions(events, options) {
  if (
    !isObject(events) ||
    (typeof events[Symbol.asyncIterator] !== 'function' && typeof events[Symbol.iterator] !== 'function')
  ) {
    throw invalid('consumeModelStream: events must be an (async) iterable');
  }
  if (!isPlainObjectLike(options)) throw invalid('consumeModelStream: options must be an object');
  const { cards, send, signal, historyIds, onDiscardError, progress } = options;
  if (!(cards instanceof ToolCallCards)) throw invalid('consumeModelStream: options.cards must be a ToolCallCards');
  if (typeof send !== 'function') throw invalid('consumeModelStream: options.send must be a function');
  if (signal !== undefined && !(isObject(signal) && typeof signal.aborted === 'boolean')) {
    throw invalid('consumeModelStream: options.signal must be an AbortSignal');
  }
  if (onDiscardError !== undefined && typeof onDiscardError !== 'function') {
    throw invalid('consumeModelStream: options.onDiscardError must be a function');
  }
  if (progress !== undefined && typeof progress !== 'boolean' && !isPlainObjectLike(progress)) {
    throw invalid('consumeModelStream: options.progress must be a boolean or an object');
  }
  return {
    cards,
    send,
    signal,
    history: historyIds === undefined ? undefined : [...historyIds],
    onDiscardError,
    // Progress frames go out through the same `send` unless the caller names another.
    progress: progress === true ? { send } : progress ? { ...progress, send: progress.send ?? send } : undefined,
  };
}

/**
 * Why a stream that threw discarded its cards: the error's own
 * `discardCause` (lib/acp/discard.js) when it has a valid one; an idle
 * timeout for Qwen Code's `StreamInactivityTimeoutError`
 * (packages/core/src/core/stream-guards.ts, which carries the limit as
 * `idleMs`); else a stream error.
 */
function causeOfFailure(err) {
  if (isObject(err)) {
    try {
      const own = discardCause(err.discardCause, 'discardCause');
      if (own) return own;
    } catch {
      // Not a cause this package knows: the stream failed, as any other error.
    }
    if (err.name === 'StreamInactivityTimeoutError' && isIdleLimit(err.idleMs)) {
      return { reason: 'idle-timeout', idleLimitMs: err.idleMs };
    }
  }
  return 'stream-error';
}

/**
 * The one stream-loop body of docs/behaviour.md §6.4 (Qwen copies it into four paths).
 * Per chunk: text / thought frames, then preparing cards, then call
 * collection. `retry` / `model_fallback` discard every card of the abandoned
 * attempt (resolved too) and clear the collected calls; `compressed` is
 * ignored. A thrown stream error or an aborted signal discards everything; a
 * normal end discards only cards whose call never arrived, leaving the rest
 * open for execution. Discard failures never change the outcome.
 *
 * Each discard says why in its title and `_meta.discardReason`
 * (lib/acp/discard.js): `retry`, `fallback` (or the event's own
 * `discardCause`, e.g. an idle timeout that made the host retry), `cancel`
 * for an aborted signal, and for a thrown error {@link causeOfFailure}'s. A
 * card whose call never came by a normal end says a neutral `not run`.
 *
 * With `historyIds`, chunks are id-normalised here (a fresh
 * {@link ToolCallIds} per attempt); leave it out if the stream already is.
 *
 * With `progress` (`true`, or the options of lib/acp/progress.js), each
 * preparing card whose chunk came from this package's converters is updated
 * while its arguments stream (docs/api.md "Live progress on preparing
 * cards"), through `send` unless `progress.send` is given. Its timer ends
 * with the stream: no progress frame follows a card's call, its discard, or
 * the end of the stream.
 *
 * @param {AsyncIterable<{type: string, value?: object}> | Iterable<{type: string, value?: object}>} events
 * @param {{ cards: ToolCallCards, send: (update: object) => unknown, signal?: AbortSignal, historyIds?: Iterable<string>, onDiscardError?: (error: unknown) => void, progress?: boolean | object }} options
 * @returns {Promise<{ functionCalls: object[], usage?: object, cancelled?: true }>}
 */
async function consumeModelStream(events, options) {
  let cards, send, signal, history, onDiscardError, progress, tracker;
  try {
    ({ cards, send, signal, history, onDiscardError, progress } = streamOptions(events, options));
    tracker = new PreparationTracker(cards, progress === undefined ? undefined : { progress });
  } catch (err) {
    throw unreadable(err, 'consumeModelStream');
  }
  const newAttemptIds = () => (history === undefined ? undefined : new ToolCallIds(history));

  let ids = newAttemptIds();
  let functionCalls = [];
  let usage;
  let streamFailed = false;
  let failure;

  // Qwen's finalizeToolCallPreparations: discard, and swallow failures.
  const finalize = async (includeResolved, cause) => {
    try {
      await sendAll(tracker.discard(includeResolved, cause), send);
    } catch (err) {
      if (onDiscardError) {
        try {
          onDiscardError(err);
        } catch {
          // A failing observer must not change the outcome either.
        }
      }
    }
  };

  try {
    for await (const event of events) {
      if (signal && signal.aborted) break;
      if (!isObject(event) || typeof event.type !== 'string') {
        throw invalid('consumeModelStream: each event must be an object with a string type');
      }
      if (event.type === 'chunk') {
        const response = event.value;
        if (!isObject(response)) throw invalid('consumeModelStream: a chunk event needs a response value');
        const content = modelParts(response);
        if (content) {
          for (const part of content.parts) {
            if (isObject(part) && typeof part.text === 'string' && part.text !== '') {
              await send({
                sessionUpdate: part.thought ? 'agent_thought_chunk' : 'agent_message_chunk',
                content: { type: 'text', text: part.text },
              });
            }
          }
        }
        if (response.usageMetadata) usage = response.usageMetadata;
        // Ids, preparing cards and resolved calls: one native call at most.
        // Without ids the calls are read once, before; with them, after
        // they are normalised.
        const before = ids ? undefined : functionCallsOf(response);
        for (const frame of observeChunk(tracker, ids, response, before)) {
          await send(frame);
          tracker.sent(frame);
        }
        const calls = ids ? functionCallsOf(response) : before;
        callsArrived(tracker, calls);
        if (calls && calls.length > 0) {
          if (typeof calls[Symbol.iterator] !== 'function') throw invalid('resolve: functionCalls must be iterable');
          functionCalls.push(...calls);
        }
      } else if (event.type === 'retry' || event.type === 'model_fallback') {
        const cause = event.discardCause ?? (event.type === 'retry' ? 'retry' : 'fallback');
        discardCause(cause, 'consumeModelStream: discardCause');
        await finalize(true, cause);
        functionCalls = [];
        ids = newAttemptIds();
      }
    }
  } catch (err) {
    streamFailed = true;
    failure = err;
    throw err;
  } finally {
    const cancelled = Boolean(signal && signal.aborted);
    // A normal end discards only cards whose call never came: no cause is known.
    const cause = cancelled ? 'cancel' : streamFailed ? causeOfFailure(failure) : undefined;
    await finalize(streamFailed || cancelled, cause);
  }
  if (signal && signal.aborted) {
    // docs/behaviour.md §6.6: the collected calls are never executed.
    return usage === undefined ? { functionCalls: [], cancelled: true } : { functionCalls: [], usage, cancelled: true };
  }
  return usage === undefined ? { functionCalls } : { functionCalls, usage };
}

module.exports = { consumeModelStream };
