'use strict';
// The end-of-attempt checks of Qwen Code's GeminiChat
// (packages/core/src/core/geminiChat.ts, processStreamResponse; llm-chat.ts
// in 0.24.4): an attempt that ended cleanly but without what a complete
// answer has throws InvalidStreamError, which the retry policy retries
// (retry.js). Without a tool call: no finish reason is NO_FINISH_REASON;
// after a tool result, a finish without visible text is
// NO_TOOL_RESULT_PROGRESS (…_MAX_TOKENS when cut by the token limit); any
// other finish without text or thought is NO_RESPONSE_TEXT.
//
// One deliberate difference: Qwen accepts the calls of a stream that ended
// without a finish reason; the agent retries it too (NO_FINISH_REASON),
// since such a stream may have been cut after a call whose arguments the
// model meant to continue (README, "What the agent guarantees").

/** What Qwen puts in history for an empty model turn, which is no progress either. */
const EMPTY_CONTENT_PLACEHOLDER = '(empty content)';

/** Qwen's InvalidStreamError: a stream that ended without what a complete one has. Retried. */
class InvalidStreamError extends Error {
  constructor(message, type) {
    super(message);
    this.name = 'InvalidStreamError';
    this.type = type;
  }
}

/**
 * Throws the attempt's InvalidStreamError, if any. `attempt`: {finishReason,
 * text (visible), thoughtText, hasToolCall, toolResultContinuation (the
 * request answers tool results)}.
 */
function checkAttempt({ finishReason, text, thoughtText, hasToolCall, toolResultContinuation }) {
  if (!finishReason) throw new InvalidStreamError('Model stream ended without a finish reason.', 'NO_FINISH_REASON');
  if (hasToolCall) return;
  const content = text.trim();
  if (toolResultContinuation && (!content || content === EMPTY_CONTENT_PLACEHOLDER)) {
    const err = new InvalidStreamError(
      'Model stream ended after a tool result without visible progress.',
      finishReason === 'MAX_TOKENS' ? 'NO_TOOL_RESULT_PROGRESS_MAX_TOKENS' : 'NO_TOOL_RESULT_PROGRESS',
    );
    err.finishReason = finishReason;
    throw err;
  }
  if (!content && !thoughtText.trim()) {
    throw new InvalidStreamError('Model stream ended with empty response text.', 'NO_RESPONSE_TEXT');
  }
}

/**
 * Whether an attempt that failed `checkAttempt` with `err` is accepted once
 * the retries are spent: a quiet STOP after a tool result (Qwen Code 0.24.4,
 * "accepting quiet post-tool-result completion after retry budget
 * exhaustion", #9026; 0.21.2 fails the prompt instead).
 */
const acceptedAfterRetries = (err) =>
  err instanceof InvalidStreamError && err.type === 'NO_TOOL_RESULT_PROGRESS' && err.finishReason === 'STOP';

module.exports = { InvalidStreamError, checkAttempt, acceptedAfterRetries };
