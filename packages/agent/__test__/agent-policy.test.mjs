// The agent's policies, one module at a time: when to ask before a tool runs
// (lib/permission.js), what is retried or falls back (lib/retry.js) and
// the usage frame (lib/usage.js).
// The end-to-end tests drive the same code over real pipes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { sessionNotificationErrors } from '../demo/schema.mjs';

const require = createRequire(import.meta.url);
const permission = require('../lib/permission.js');
const retry = require('../lib/retry.js');
const { usageUpdate } = require('../lib/usage.js');
const { StreamStalledError } = require('../lib/model-request.js');

describe('permission', () => {
  it('default asks for edits only; auto-edit and yolo never ask; --approve=always starts in yolo', () => {
    const approval = permission.initialApproval('ask');
    assert.equal(approval.mode, 'default');
    assert.deepEqual(
      ['read', 'search', 'edit', 'delete', 'move', 'execute', 'other'].map((k) => permission.decide(approval, k)),
      ['run', 'run', 'ask', 'ask', 'ask', 'ask', 'run'],
    );
    for (const mode of ['auto-edit', 'yolo']) {
      assert.equal(permission.setMode(approval, mode), true);
      assert.equal(permission.decide(approval, 'edit'), 'run');
    }
    assert.equal(permission.setMode(approval, 'plan'), false, 'an unknown mode is refused');
    assert.equal(approval.mode, 'yolo');
    assert.equal(permission.initialApproval('always').mode, 'yolo');
    assert.deepEqual(
      permission.modeState(permission.initialApproval('ask')).availableModes.map((m) => m.id),
      ['default', 'auto-edit', 'yolo'],
    );
  });

  const ask = (approval, answer, signal = new AbortController().signal) =>
    permission.ask({
      approval,
      sessionId: 's',
      signal,
      toolCall: { toolCallId: 'c' },
      request: async ({ options }) =>
        answer === 'cancelled'
          ? { outcome: { outcome: 'cancelled' } }
          : { outcome: { outcome: 'selected', optionId: options.find((o) => o.kind === answer)?.optionId ?? answer } },
    });

  it('maps the four answers, and remembers the "always" ones for the session', async () => {
    const approval = permission.initialApproval('ask');
    assert.deepEqual(await ask(approval, 'allow_once'), { outcome: 'allow' });
    assert.equal(approval.mode, 'default');
    assert.deepEqual(await ask(approval, 'reject_once'), { outcome: 'reject' });
    assert.equal(permission.decide(approval, 'edit'), 'ask');
    assert.deepEqual(await ask(approval, 'cancelled'), { outcome: 'cancelled' });
    assert.deepEqual(await ask(approval, 'reject_always'), { outcome: 'reject' });
    assert.equal(permission.decide(approval, 'edit'), 'refuse');
    assert.equal(permission.decide(approval, 'read'), 'run', 'reads never ask');
    permission.setMode(approval, 'auto-edit');
    assert.equal(permission.decide(approval, 'edit'), 'run', 'a mode that allows edits lifts the refusal');
    const fresh = permission.initialApproval('ask');
    assert.deepEqual(await ask(fresh, 'allow_always'), { outcome: 'allow', modeChanged: true });
    assert.equal(fresh.mode, 'auto-edit');
  });

  it('an option that was not offered is an error; a cancel while waiting is cancelled', async () => {
    await assert.rejects(ask(permission.initialApproval('ask'), 'proceed_forever'), /unoffered option/);
    const controller = new AbortController();
    const pending = permission.ask({
      approval: permission.initialApproval('ask'),
      sessionId: 's',
      signal: controller.signal,
      toolCall: { toolCallId: 'c' },
      request: () => new Promise(() => {}),
    });
    controller.abort();
    assert.deepEqual(await pending, { outcome: 'cancelled' });
  });
});

describe('retry', () => {
  const streamError = (type, code) =>
    Object.assign(new Error(type), { code: 'STREAM_ERROR', providerError: { type, code } });
  const connection = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

  it('provider errors are retried whatever was emitted; transport errors only before output', () => {
    assert.equal(retry.isRetryable(streamError('overloaded_error'), true), true);
    assert.equal(retry.isRetryable({ status: 529 }, false), true);
    assert.equal(retry.isRetryable({ status: 400 }, false), false);
    assert.equal(retry.isRetryable(connection, false), true);
    assert.equal(retry.isRetryable(connection, true), false);
    assert.equal(retry.isRetryable(new StreamStalledError(5), false), true);
    assert.equal(retry.isRetryable(new StreamStalledError(5), true), false);
  });

  it('falls back only on a provider failure with nothing emitted; 429 is recognised in both forms', () => {
    assert.equal(retry.isFallbackEligible(streamError('overloaded_error'), false), true);
    assert.equal(retry.isFallbackEligible(streamError('overloaded_error'), true), false);
    assert.equal(retry.isFallbackEligible(connection, false), false);
    assert.equal(retry.isRateLimit({ status: 429 }), true);
    assert.equal(retry.isRateLimit(streamError('rate_limit_error')), true);
    assert.equal(retry.isRateLimit(streamError('overloaded_error')), false);
  });
});

describe('usage', () => {
  it("is Qwen's empty agent_message_chunk with _meta.usage and durationMs, schema-valid", () => {
    const update = usageUpdate(
      { promptTokenCount: 412, candidatesTokenCount: 20, totalTokenCount: 432, cachedContentTokenCount: 0 },
      12.6,
    );
    assert.deepEqual(update, {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: '' },
      _meta: { usage: { inputTokens: 412, outputTokens: 20, totalTokens: 432, cachedReadTokens: 0 }, durationMs: 13 },
    });
    assert.equal(sessionNotificationErrors({ sessionId: 's', update }), null);
    assert.deepEqual(usageUpdate({}, 0)._meta.usage, { inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});
