'use strict';
// One model request, with its attempts, as the StreamEvent sequence that
// consumeModelStream consumes: CHUNK for each converted response, RETRY
// before each new attempt.
const { setTimeout: sleep } = require('node:timers/promises');

const { ToolCallIds } = require('../index.js');
const { log } = require('./log.js');
const { MAX_RETRIES, isRetryable, retryDelay, describeError } = require('./retry.js');

/**
 * Yields the request's stream events. `turn.text` and `turn.finishReason`
 * describe the attempt that succeeded (they are reset at each attempt).
 */
async function* modelEvents(session, provider, signal, turn, retryDelayMs) {
  for (let attempt = 1; ; attempt++) {
    // One ToolCallIds per attempt, seeded from history.
    const ids = new ToolCallIds(provider.historyIds(session));
    const converter = provider.converter();
    turn.text = '';
    turn.finishReason = undefined;
    let emittedOutput = false;
    const chunk = (response) => {
      ids.apply(response);
      const candidate = response.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (typeof part.text === 'string' && part.text) {
          emittedOutput = true;
          if (!part.thought) turn.text += part.text;
        }
      }
      if (candidate?.finishReason) turn.finishReason = candidate.finishReason;
      return { type: 'chunk', value: response };
    };
    let failure;
    try {
      const response = await provider.request(session, signal);
      for await (const bytes of response.body) {
        for (const r of converter.pushBytes(bytes)) yield chunk(r);
      }
      for (const r of converter.end()) yield chunk(r);
      return;
    } catch (err) {
      // Responses converted before an in-band error are never lost.
      if (err?.code === 'STREAM_ERROR') for (const r of err.responses ?? []) yield chunk(r);
      if (signal.aborted || attempt > MAX_RETRIES || !isRetryable(err, emittedOutput)) throw err;
      failure = err;
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
