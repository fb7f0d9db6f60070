'use strict';
// One model request, with its attempts, as the StreamEvent sequence that
// consumeModelStream consumes: CHUNK for each converted response, RETRY
// before each new attempt, MODEL_FALLBACK before the first attempt on the
// fallback model (Qwen Code's GeminiChat.sendMessageStream events).
const { setTimeout: sleep } = require('node:timers/promises');

const { ToolCallIds } = require('../index.js');
const { log } = require('./log.js');
const { MAX_RETRIES, isRetryable, isFallbackEligible, retryDelay, describeError } = require('./retry.js');
const { stallWatchdog } = require('./watchdog.js');

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
 * Yields the request's stream events. `turn.text` and `turn.finishReason`
 * describe the attempt that succeeded (they are reset at each attempt).
 * `options`: retryDelayMs, fallbackModel, stallTimeoutMs.
 */
async function* modelEvents(session, provider, signal, turn, options) {
  const { retryDelayMs = 1000, fallbackModel, stallTimeoutMs = 0 } = options;
  for (let attempt = 1; ; attempt++) {
    // One ToolCallIds per attempt, seeded from history.
    const ids = new ToolCallIds(provider.historyIds(session));
    const converter = provider.converter(session);
    turn.text = '';
    turn.finishReason = undefined;
    let emittedOutput = false;
    const chunk = (response) => {
      ids.apply(response);
      if (isOutput(response)) emittedOutput = true;
      const candidate = response.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (typeof part.text === 'string' && part.text && !part.thought) turn.text += part.text;
      }
      if (candidate?.finishReason) turn.finishReason = candidate.finishReason;
      return { type: 'chunk', value: response };
    };
    // The attempt's own abort: the user's cancel, or the stall watchdog.
    const attemptController = new AbortController();
    const watchdog = stallWatchdog(stallTimeoutMs, attemptController);
    const attemptSignal = AbortSignal.any([signal, attemptController.signal]);
    let failure;
    try {
      const response = await provider.request(session, attemptSignal);
      for await (const bytes of response.body) {
        watchdog.touch();
        for (const r of converter.pushBytes(bytes)) yield chunk(r);
      }
      for (const r of converter.end()) yield chunk(r);
      return;
    } catch (thrown) {
      // A stalled stream surfaces as whatever the SDK makes of the abort.
      const err = !signal.aborted && attemptController.signal.aborted ? attemptController.signal.reason : thrown;
      // Responses converted before an in-band error are never lost.
      if (err?.code === 'STREAM_ERROR') for (const r of err.responses ?? []) yield chunk(r);
      if (signal.aborted) throw err;
      const retryable = isRetryable(err, emittedOutput);
      if (retryable && attempt <= MAX_RETRIES) {
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
      watchdog.stop();
    }
    const delay = retryDelay(failure, attempt, retryDelayMs);
    log(`attempt ${attempt} failed (${describeError(failure)}); retrying in ${delay} ms`);
    yield {
      type: 'retry',
      retryInfo: { message: describeError(failure), attempt, maxRetries: MAX_RETRIES, delayMs: delay },
    };
    await sleep(delay, undefined, { signal });
  }
}

module.exports = { modelEvents };
