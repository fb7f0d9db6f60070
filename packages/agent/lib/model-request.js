'use strict';
// One model request, with its attempts, as the StreamEvent sequence that
// consumeModelStream consumes: CHUNK for each converted response, RETRY
// before each new attempt, MODEL_FALLBACK before the first attempt on the
// fallback model (Qwen Code's GeminiChat.sendMessageStream events). Each
// attempt has a watchdog like Qwen Code 0.24.4's stream idle timeout
// (packages/core/src/core/stream-guards.ts, withStreamGuards), except that
// only data counts as progress: pings and SSE comments do not, so a provider
// that only keeps the connection alive is caught. An Anthropic stream that
// ends empty is asked again without streaming, as Qwen Code's
// AnthropicContentGenerator.processStreamWithEmptyFallback does. An attempt
// that ends cleanly without a complete answer (no finish reason, no text) is
// retried as Qwen's InvalidStreamError (stream-validation.js). A call whose
// arguments pass CONVERTER_LIMITS.maxCallBytes stops the attempt without an
// error: the agent refuses the call (argumentLimitStop), it does not abandon
// the attempt.
const { setTimeout: sleep } = require('node:timers/promises');

const { ToolCallIds, getToolCallPreparations } = require('toolcall-stream');
const { log } = require('./log.js');
const { MAX_RETRIES, isRetryable, isFallbackEligible, retryDelay, describeError } = require('./retry.js');
const { StreamObserver } = require('./stream-observer.js');
const { InvalidStreamError, checkAttempt, acceptedAfterRetries } = require('./stream-validation.js');

/**
 * The converter limits the agent runs with, well below the library's
 * defaults (64 MiB per call, 256 MiB buffered): one tool call's arguments,
 * and everything one converter buffers, including an unterminated SSE line.
 */
const CONVERTER_LIMITS = { maxCallBytes: 24 << 20, maxBufferedBytes: 32 << 20 };

/**
 * The converter refused a call's arguments past `maxCallBytes` (`observer`
 * says which call). The attempt ends there, as a refusal rather than a
 * failure: every call of the response so far comes back as a complete call
 * (arguments `{}` where they never arrived whole), so that its card stays
 * open and then fails with the reason, and the model's history answers it
 * (vet-calls.js refuses them all, session.js ends the turn). Returns the
 * chunk that carries the unfinished calls, or null when there are none.
 */
function argumentLimitStop(turn, prepared, completed, tooLarge) {
  const unfinished = [...prepared].filter(([id]) => !completed.has(id));
  // The card of the refused call: its id is the provider's, or that id with
  // the suffix of the id normalisation (ToolCallIds); else the latest card.
  const raw = tooLarge.rawId;
  const isRefused = ([id]) => raw !== null && (id === raw || id.startsWith(`${raw}__qwen_dup_`));
  turn.argumentLimit = {
    toolName: tooLarge.name,
    limit: CONVERTER_LIMITS.maxCallBytes,
    refusedId: (unfinished.findLast(isRefused) ?? unfinished.at(-1))?.[0],
  };
  if (unfinished.length === 0) return null;
  const parts = unfinished.map(([id, name]) => ({ functionCall: { id, name, args: {} } }));
  return { candidates: [{ content: { role: 'model', parts }, index: 0 }] };
}

/**
 * No data for `ms`: the attempt is aborted and retried as a transport error.
 * Its `discardCause` is what the discarded cards say (toolcall-stream's
 * consumeModelStream reads it from a thrown error, and the retry after it
 * carries it): `… not run: no data for <ms>`.
 */
class StreamStalledError extends Error {
  constructor(ms) {
    super(`The model stream sent no data for ${ms} ms.`);
    this.name = 'StreamStalledError';
    this.code = 'STREAM_STALLED';
    this.discardCause = { reason: 'idle-timeout', idleLimitMs: ms };
  }
}

/**
 * Whether a response is output the user saw: text, a complete call, a
 * finish. A preparation-only chunk is not (Qwen's isToolCallPreparationOnly),
 * even when it carries the usage of Anthropic's message_start: nothing of it
 * is visible, and its card is discarded by the RETRY anyway.
 */
function isOutput(response) {
  const candidate = response.candidates?.[0];
  if (candidate?.finishReason) return true;
  return (candidate?.content?.parts ?? []).some((p) => (typeof p.text === 'string' && p.text) || p.functionCall);
}

/**
 * Yields the request's stream events. `turn.text`, `turn.finishReason` and
 * `turn.observer` describe the attempt that succeeded (they are reset at
 * each attempt). `options`: {retryDelayMs, stallTimeoutMs, fallbackModel}.
 */
async function* modelEvents(session, provider, signal, turn, options) {
  const { fallbackModel } = options;
  for (let attempt = 1; ; attempt++) {
    // One ToolCallIds per attempt, seeded from history.
    const ids = new ToolCallIds(provider.historyIds(session));
    const converter = provider.converter(session, CONVERTER_LIMITS);
    const observer = new StreamObserver(provider.kind);
    turn.text = '';
    turn.thoughtText = '';
    turn.hasToolCall = false;
    turn.finishReason = undefined;
    turn.observer = observer;
    turn.argumentLimit = undefined;
    let emittedOutput = false;
    // This attempt's cards (id → tool name) and the calls that arrived whole.
    const prepared = new Map();
    const completed = new Set();
    const chunk = (response) => {
      ids.apply(response);
      for (const p of getToolCallPreparations(response)) prepared.set(p.callId, p.toolName);
      if (isOutput(response)) emittedOutput = true;
      const candidate = response.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (typeof part.text === 'string' && part.text) {
          if (part.thought) turn.thoughtText += part.text;
          else turn.text += part.text;
        }
        if (part.functionCall) {
          turn.hasToolCall = true;
          completed.add(part.functionCall.id);
        }
      }
      if (candidate?.finishReason) turn.finishReason = candidate.finishReason;
      return { type: 'chunk', value: response };
    };
    const watchdog = new AbortController();
    let timer;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => watchdog.abort(new StreamStalledError(options.stallTimeoutMs)), options.stallTimeoutMs);
    };
    let failure;
    try {
      arm();
      const response = await provider.request(session, AbortSignal.any([signal, watchdog.signal]));
      for await (const bytes of response.body) {
        const progress = observer.push(bytes);
        if (progress) arm();
        for (const r of converter.pushBytes(bytes)) yield chunk(r);
        // Again after the work, so only time spent waiting for data counts.
        if (progress) arm();
      }
      for (const r of converter.end()) yield chunk(r);
      if (converter.emptyStream && provider.emptyStreamFallback) {
        // Not a stream: a long answer sends nothing until it is complete, so
        // the stall watchdog does not apply (the SDK's request timeout does).
        clearTimeout(timer);
        log('the stream ended without content or stop reason; asking again without streaming');
        yield chunk(await provider.emptyStreamFallback(session, AbortSignal.any([signal, watchdog.signal])));
      }
      checkAttempt(turn);
      return;
    } catch (caught) {
      const err = watchdog.signal.aborted && !signal.aborted ? watchdog.signal.reason : caught;
      // Responses converted before an in-band error are never lost.
      if (err?.code === 'STREAM_ERROR') for (const r of err.responses ?? []) yield chunk(r);
      if (signal.aborted) throw err;
      const tooLarge = err?.code === 'LIMIT_EXCEEDED' ? observer.callOver(CONVERTER_LIMITS.maxCallBytes) : null;
      if (tooLarge) {
        for (const r of err.responses ?? []) yield chunk(r);
        log(`refused ${tooLarge.name}: its arguments exceed ${CONVERTER_LIMITS.maxCallBytes} bytes`);
        const calls = argumentLimitStop(turn, prepared, completed, tooLarge);
        if (calls) yield { type: 'chunk', value: calls };
        return;
      }
      if (attempt > MAX_RETRIES && acceptedAfterRetries(err)) {
        log(`accepting a quiet completion after a tool result (${attempt} attempts)`);
        return;
      }
      if (attempt <= MAX_RETRIES && isRetryable(err, emittedOutput)) {
        failure = err;
      } else if (
        fallbackModel &&
        provider.modelFor(session) !== fallbackModel &&
        isFallbackEligible(err, emittedOutput)
      ) {
        const fromModel = provider.modelFor(session);
        log(`${fromModel} failed after ${attempt} attempts (${describeError(err)}); falling back to ${fallbackModel}`);
        // The session keeps the fallback model from now on, as Qwen's fallback does.
        session.model = fallbackModel;
        attempt = 0;
        yield {
          type: 'model_fallback',
          info: { fromModel, toModel: fallbackModel, ...(err?.status ? { statusCode: err.status } : {}) },
        };
        continue;
      } else {
        throw err;
      }
    } finally {
      clearTimeout(timer);
    }
    const delay = retryDelay(failure, attempt, options.retryDelayMs);
    log(`attempt ${attempt} failed (${describeError(failure)}); retrying in ${delay} ms`);
    yield {
      type: 'retry',
      retryInfo: { message: describeError(failure), attempt, maxRetries: MAX_RETRIES, delayMs: delay },
      // A stall's cards say the watchdog gave up, not only that the request is sent again.
      ...(failure instanceof StreamStalledError ? { discardCause: failure.discardCause } : {}),
    };
    await sleep(delay, undefined, { signal });
  }
}

module.exports = { modelEvents, InvalidStreamError, StreamStalledError, CONVERTER_LIMITS };
