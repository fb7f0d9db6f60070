// A discarded preparation says why it did not run, in its title and in
// `_meta.discardReason` (lib/acp/discard.js, core/src/acp/discard.rs), through
// every way the library discards: ToolCallCards, PreparationTracker (with and
// without a host emitter) and consumeModelStream, each frame received by a
// client model that validates it against the ACP schema v1 and checks the
// card rules. An editor that reads no `_meta` (Zed) shows the status and the
// title alone, so the title carries the cause.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { assertValidUpdate, CardClient } from './acp-helpers.mjs';

const require = createRequire(import.meta.url);
const {
  ToolCallCards,
  PreparationTracker,
  consumeModelStream,
  setToolCallPreparations,
  ToolCallStreamError,
} = require('../index.js');

const isInvalidArgument = (err) => err instanceof ToolCallStreamError && err.code === 'INVALID_ARGUMENT';

/** A response with these preparations and no content. */
function preparing(...preparations) {
  const r = { candidates: [{ content: { role: 'model', parts: [] } }] };
  setToolCallPreparations(r, preparations);
  return r;
}

const describeWrite = (name) => (name === 'write_file' ? { title: 'WriteFile', kind: 'edit' } : {});

/** What each cause reads as, after `WriteFile · not run`. */
const WORDS = {
  retry: ': the request is being retried',
  fallback: ': switched to another model',
  cancel: ': cancelled',
  'stream-error': ': the stream failed',
  'idle-timeout': ': no data from the provider',
};

describe('a discarded preparation says why it did not run', () => {
  it('each cause in words and in _meta.discardReason; no cause, a neutral "not run"', () => {
    for (const [reason, words] of Object.entries(WORDS)) {
      const cards = new ToolCallCards({ describe: describeWrite });
      cards.preparing('a', 'write_file');
      const frame = cards.discarded('a', 'write_file', reason);
      assertValidUpdate(frame);
      assert.equal(frame.title, `WriteFile · not run${words}`);
      assert.equal(frame._meta.discardReason, reason);
      // The lifecycle a client that reads `preparationDiscarded` relies on is unchanged.
      assert.equal(frame.status, 'failed');
      assert.deepEqual(frame.content, []);
      assert.equal(frame._meta.preparationDiscarded, true);
    }
    const cards = new ToolCallCards({ describe: describeWrite });
    cards.preparing('a', 'write_file');
    assert.equal(
      JSON.stringify(cards.discarded('a', 'write_file')),
      JSON.stringify({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'a',
        status: 'failed',
        title: 'WriteFile · not run',
        content: [],
        _meta: {
          toolName: 'write_file',
          tool_name: 'write_file',
          phase: 'preparing',
          preparationDiscarded: true,
          provenance: 'builtin',
        },
      }),
    );
  });

  it('an idle timeout names its limit, as a number in _meta and in seconds in the title', () => {
    const cards = new ToolCallCards({ describe: describeWrite });
    cards.preparing('a', 'write_file');
    const frame = cards.discarded('a', 'write_file', { reason: 'idle-timeout', idleLimitMs: 240_000 });
    assertValidUpdate(frame);
    assert.equal(
      JSON.stringify(frame),
      JSON.stringify({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'a',
        status: 'failed',
        title: 'WriteFile · not run: no data for 240 s',
        content: [],
        _meta: {
          toolName: 'write_file',
          tool_name: 'write_file',
          phase: 'preparing',
          preparationDiscarded: true,
          discardReason: 'idle-timeout',
          idleLimitMs: 240000,
          provenance: 'builtin',
        },
      }),
    );
    // A limit belongs to an idle timeout only.
    cards.preparing('b', 'write_file');
    const retry = cards.discarded('b', 'write_file', { reason: 'retry', idleLimitMs: 5000 });
    assert.equal(retry.title, 'WriteFile · not run: the request is being retried');
    assert.equal('idleLimitMs' in retry._meta, false);
  });

  it("the title is the card's own, bounded and printable as every card title is", () => {
    const hostile = `\u001b]0;pwned\u0007 ${'n'.repeat(1 << 20)}`;
    const cards = new ToolCallCards({ describe: () => ({ title: hostile }) });
    cards.preparing('a', 'write_file');
    const frame = cards.discarded('a', 'write_file', 'cancel');
    assertValidUpdate(frame);
    assert.ok(frame.title.endsWith('… · not run: cancelled'), frame.title.slice(-40));
    assert.ok(frame.title.length < 300);
    assert.doesNotMatch(frame.title, /[\u0000-\u001f\u007f]/);
    // A card with no title of its own is titled by its bounded name.
    const named = new ToolCallCards();
    const name = `mcp__s__${'x'.repeat(1 << 16)}`;
    named.preparing('b', name);
    const byName = named.discarded('b', name, 'retry');
    assert.equal(byName.title, `${name.slice(0, 119)}… · not run: the request is being retried`);
  });

  it('a cause it does not know is refused, and the card stays open', () => {
    const cards = new ToolCallCards();
    cards.preparing('a', 'write_file');
    for (const bad of ['timeout', '', 42, null, { reason: 'later' }, { reason: 'idle-timeout', idleLimitMs: -1 }]) {
      assert.throws(() => cards.discarded('a', 'write_file', bad), isInvalidArgument, String(bad));
      assert.equal(cards.isOpen('a'), true);
    }
    assert.throws(
      () => cards.discarded('a', 'write_file', { reason: 'idle-timeout', idleLimitMs: 1.5 }),
      isInvalidArgument,
    );
    const tracker = new PreparationTracker(cards);
    assert.throws(() => tracker.discard(true, 'soon'), isInvalidArgument);
  });

  it('closeAll gives a preparing card the cause, a started one its message', () => {
    const cards = new ToolCallCards({ describe: describeWrite });
    cards.preparing('p', 'write_file');
    cards.started({ callId: 's', toolName: 'read_file', rawInput: {} });
    const [discarded, failed] = cards.closeAll(undefined, 'cancel');
    assertValidUpdate(discarded);
    assert.equal(discarded.title, 'WriteFile · not run: cancelled');
    assert.equal(discarded._meta.discardReason, 'cancel');
    assert.equal(failed.title, undefined);
    assert.equal(failed.content[0].content.text, 'Tool execution was cancelled');
  });

  it('PreparationTracker: the frames it returns carry the cause', () => {
    const cards = new ToolCallCards({ describe: describeWrite });
    const tracker = new PreparationTracker(cards);
    const client = new CardClient();
    for (const f of tracker.observe(preparing({ callId: 'a', toolName: 'write_file' }))) client.receive(f);
    const [frame] = tracker.discard(true, 'fallback');
    client.receive(frame);
    assert.equal(frame.title, 'WriteFile · not run: switched to another model');
    client.assertOneTerminalPerOpen();
  });
});

describe("a host emitter hears the cause, and one that takes Qwen's two arguments is called with two", () => {
  function recording(trackerOf) {
    const calls = [];
    return {
      calls,
      emitStart: () => true,
      emitPreparationDiscarded(...args) {
        calls.push({ args, frame: trackerOf().frame });
      },
    };
  }

  it('two arguments without a cause, a third `{reason, idleLimitMs?}` with one; the frame says it', async () => {
    let tracker;
    const emitter = recording(() => tracker);
    tracker = new PreparationTracker(new ToolCallCards({ describe: describeWrite }), { emitter });
    await tracker.observe(preparing({ callId: 'a', toolName: 'write_file' }));
    await tracker.discard(true);
    await tracker.observe(preparing({ callId: 'b', toolName: 'write_file' }));
    await tracker.discard(true, 'retry');
    await tracker.observe(preparing({ callId: 'c', toolName: 'write_file' }));
    await tracker.discard(true, { reason: 'idle-timeout', idleLimitMs: 3000 });
    const [none, retry, idle] = emitter.calls;
    assert.deepEqual(none.args, ['a', 'write_file']);
    assert.equal(none.frame.title, 'WriteFile · not run');
    assert.deepEqual(retry.args, ['b', 'write_file', { reason: 'retry' }]);
    assert.equal(retry.frame.title, 'WriteFile · not run: the request is being retried');
    assert.deepEqual(idle.args, ['c', 'write_file', { reason: 'idle-timeout', idleLimitMs: 3000 }]);
    assert.equal(idle.frame.title, 'WriteFile · not run: no data for 3 s');
    for (const { frame } of emitter.calls) assertValidUpdate(frame);
  });
});

describe('consumeModelStream: each discard path gives its cause', () => {
  async function run(events, { signal } = {}) {
    const client = new CardClient();
    const cards = new ToolCallCards({ describe: describeWrite });
    let outcome;
    try {
      outcome = await consumeModelStream(events, { cards, send: (u) => client.receive(u), signal });
    } catch (err) {
      outcome = { error: err };
    }
    const discards = client.frames.filter((f) => f._meta?.preparationDiscarded);
    return { outcome, discards, client };
  }
  const chunk = (id) => ({ type: 'chunk', value: preparing({ callId: id, toolName: 'write_file' }) });
  const reasons = (discards) => discards.map((f) => [f.toolCallId, f._meta.discardReason, f.title]);

  it('retry, fallback, and an event that names its own cause', async () => {
    const { discards } = await run([
      chunk('a'),
      { type: 'retry' },
      chunk('b'),
      { type: 'model_fallback' },
      chunk('c'),
      { type: 'retry', discardCause: { reason: 'idle-timeout', idleLimitMs: 120_000 } },
      { type: 'chunk', value: { candidates: [{ content: { role: 'model', parts: [{ text: 'done' }] } }] } },
    ]);
    assert.deepEqual(reasons(discards), [
      ['a', 'retry', 'WriteFile · not run: the request is being retried'],
      ['b', 'fallback', 'WriteFile · not run: switched to another model'],
      ['c', 'idle-timeout', 'WriteFile · not run: no data for 120 s'],
    ]);
  });

  it("cancel, a stream error, and Qwen's idle timeout error", async () => {
    const controller = new AbortController();
    async function* cancelled() {
      yield chunk('a');
      controller.abort();
      yield chunk('z');
    }
    const cancel = await run(cancelled(), { signal: controller.signal });
    assert.equal(cancel.outcome.cancelled, true);
    assert.deepEqual(reasons(cancel.discards), [['a', 'cancel', 'WriteFile · not run: cancelled']]);

    async function* failing(error) {
      yield chunk('a');
      throw error;
    }
    const failed = await run(failing(new Error('socket hang up')));
    assert.equal(failed.outcome.error.message, 'socket hang up');
    assert.deepEqual(reasons(failed.discards), [['a', 'stream-error', 'WriteFile · not run: the stream failed']]);

    // As Qwen Code's StreamInactivityTimeoutError (packages/core/src/core/stream-guards.ts) is made.
    class StreamInactivityTimeoutError extends Error {
      constructor(idleMs) {
        super(`No stream activity for ${idleMs}ms`);
        this.idleMs = idleMs;
        this.name = 'StreamInactivityTimeoutError';
      }
    }
    const idle = await run(failing(new StreamInactivityTimeoutError(240_000)));
    assert.deepEqual(reasons(idle.discards), [['a', 'idle-timeout', 'WriteFile · not run: no data for 240 s']]);

    // A host's own error names its cause; one it cannot name is a stream error.
    const own = Object.assign(new Error('stalled'), { discardCause: { reason: 'idle-timeout', idleLimitMs: 1500 } });
    const named = await run(failing(own));
    assert.deepEqual(reasons(named.discards), [['a', 'idle-timeout', 'WriteFile · not run: no data for 1.5 s']]);
    const odd = await run(failing(Object.assign(new Error('odd'), { discardCause: 'gremlins' })));
    assert.deepEqual(reasons(odd.discards), [['a', 'stream-error', 'WriteFile · not run: the stream failed']]);
  });

  it('a call that never came by a normal end: a neutral "not run", no reason', async () => {
    const { discards, outcome } = await run([chunk('a')]);
    assert.deepEqual(outcome.functionCalls, []);
    assert.deepEqual(reasons(discards), [['a', undefined, 'WriteFile · not run']]);
  });

  it('an event with a cause it does not know fails the stream', async () => {
    const { outcome, discards } = await run([chunk('a'), { type: 'retry', discardCause: 'later' }]);
    assert.ok(isInvalidArgument(outcome.error));
    assert.deepEqual(reasons(discards), [['a', 'stream-error', 'WriteFile · not run: the stream failed']]);
  });
});
