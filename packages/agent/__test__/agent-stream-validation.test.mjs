// lib/stream-validation.js: the end-of-attempt checks of Qwen Code's
// GeminiChat (processStreamResponse), one case per rule. The end-to-end test
// (e2e-empty-stream.test.mjs) drives the same checks over real pipes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { checkAttempt, acceptedAfterRetries, InvalidStreamError } = require('../lib/stream-validation.js');
const retry = require('../lib/retry.js');

const attempt = (o) => ({
  finishReason: 'STOP',
  text: '',
  thoughtText: '',
  hasToolCall: false,
  toolResultContinuation: false,
  ...o,
});
const typeOf = (a) => {
  try {
    checkAttempt(attempt(a));
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof InvalidStreamError);
    assert.equal(retry.isRetryable(err, true), true, 'retried even after output');
    return err.type;
  }
};

test('the checks, in Qwen’s order', () => {
  assert.equal(typeOf({ finishReason: undefined, text: 'hi' }), 'NO_FINISH_REASON');
  // The agent's stricter rule: calls without a finish reason are retried too.
  assert.equal(typeOf({ finishReason: undefined, hasToolCall: true }), 'NO_FINISH_REASON');
  assert.equal(typeOf({ hasToolCall: true }), 'ok');
  assert.equal(typeOf({ hasToolCall: true, toolResultContinuation: true }), 'ok');
  assert.equal(typeOf({}), 'NO_RESPONSE_TEXT');
  assert.equal(typeOf({ text: ' \n ' }), 'NO_RESPONSE_TEXT');
  assert.equal(typeOf({ thoughtText: 'thinking only' }), 'ok');
  assert.equal(typeOf({ text: 'hi' }), 'ok');
  assert.equal(typeOf({ toolResultContinuation: true, thoughtText: 'thinking only' }), 'NO_TOOL_RESULT_PROGRESS');
  assert.equal(typeOf({ toolResultContinuation: true, text: '(empty content)' }), 'NO_TOOL_RESULT_PROGRESS');
  assert.equal(
    typeOf({ toolResultContinuation: true, finishReason: 'MAX_TOKENS' }),
    'NO_TOOL_RESULT_PROGRESS_MAX_TOKENS',
  );
  assert.equal(typeOf({ toolResultContinuation: true, text: 'Done.' }), 'ok');
});

test('after the retries, only a quiet STOP after a tool result is accepted (Qwen 0.24.4)', () => {
  const errorOf = (a) => {
    try {
      checkAttempt(attempt(a));
    } catch (err) {
      return err;
    }
    return undefined;
  };
  assert.equal(acceptedAfterRetries(errorOf({ toolResultContinuation: true })), true);
  assert.equal(acceptedAfterRetries(errorOf({ toolResultContinuation: true, finishReason: 'SAFETY' })), false);
  assert.equal(acceptedAfterRetries(errorOf({ toolResultContinuation: true, finishReason: 'MAX_TOKENS' })), false);
  assert.equal(acceptedAfterRetries(errorOf({})), false);
  assert.equal(acceptedAfterRetries(new Error('x')), false);
});
