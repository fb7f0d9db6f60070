// PreparationTracker with a host emitter ({ emitter }): what the package adds
// to Qwen Code's ToolCallPreparationTracker contract (the contract itself is
// checked against Qwen's own tracker in acp-tracker-qwen-differential): the
// frames readable by the emitter, the card ledger's view of a card the emitter
// declined, the ledger deciding before the emitter, argument errors, and what
// a client sees.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { assertValidUpdate, CardClient } from './acp-helpers.mjs';

const require = createRequire(import.meta.url);
const { ToolCallCards, PreparationTracker, ToolCallStreamError, setToolCallPreparations } = require('../index.js');

function response(preparations) {
  const r = {};
  setToolCallPreparations(r, preparations);
  return r;
}

/**
 * An emitter that shows every card except `declined` tools, logging each
 * call with every argument it got and the frame `tracker.frame` holds then
 * (`trackerOf()` names the tracker, made after the emitter).
 */
function recordingEmitter({ declined = [], trackerOf = () => undefined } = {}) {
  const calls = [];
  return {
    calls,
    emitStart(...args) {
      calls.push(['emitStart', ...args, trackerOf()?.frame]);
      return !declined.includes(args[0].toolName);
    },
    emitPreparationDiscarded(...args) {
      calls.push(['emitPreparationDiscarded', ...args, trackerOf()?.frame]);
    },
  };
}

const isInvalidArgument = (err) => err instanceof ToolCallStreamError && err.code === 'INVALID_ARGUMENT';

describe('PreparationTracker({ emitter })', () => {
  it('a name longer than any real one: the frames carry it cut, the emitter gets it whole', async () => {
    const name = `mcp__srv__${'n'.repeat(1 << 20)}`;
    let tracker;
    const emitter = recordingEmitter({ trackerOf: () => tracker });
    tracker = new PreparationTracker(new ToolCallCards({ suppressedTools: [] }), { emitter });
    await tracker.observe(response([{ callId: 'a', toolName: name }]));
    await tracker.discard();
    const [[, params, opened], [, callId, toolName, discarded]] = emitter.calls;
    // Qwen's contract: the preparation's own name, as its tracker passes it.
    assert.equal(params.toolName, name);
    assert.equal(callId, 'a');
    assert.equal(toolName, name);
    for (const frame of [opened, discarded]) {
      assertValidUpdate(frame);
      assert.equal(frame._meta.toolName, `${name.slice(0, 119)}…`);
      assert.ok(JSON.stringify(frame).length < 1024);
    }
    assert.equal(opened.name, opened._meta.toolName);
  });

  it("calls the emitter exactly as Qwen's tracker does, this package's frames readable meanwhile", async () => {
    const cards = new ToolCallCards({ describe: (name) => ({ title: `Read ${name}`, kind: 'read' }) });
    let tracker;
    const emitter = recordingEmitter({ trackerOf: () => tracker });
    tracker = new PreparationTracker(cards, { emitter });
    await tracker.observe(response([{ callId: 'a', toolName: 'read_file' }]));
    await tracker.discard();
    // One argument to emitStart and two to emitPreparationDiscarded, nothing
    // more: Qwen's own tests check these calls with toHaveBeenCalledWith.
    assert.deepEqual(
      emitter.calls.map((c) => c.length),
      [3, 4],
    );
    const [[, params, frame], [, callId, toolName, discarded]] = emitter.calls;
    assert.equal(tracker.frame, undefined, 'the frame is readable only while the emitter runs');
    assert.deepEqual(params, { callId: 'a', toolName: 'read_file', args: {}, status: 'pending', phase: 'preparing' });
    assert.deepEqual(
      frame,
      new ToolCallCards({ describe: () => ({ title: 'Read read_file', kind: 'read' }) }).preparing('a', 'read_file'),
    );
    assert.deepEqual([callId, toolName], ['a', 'read_file']);
    assert.deepEqual(discarded, {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'a',
      status: 'failed',
      title: 'Read read_file · not run',
      content: [],
      _meta: {
        toolName: 'read_file',
        tool_name: 'read_file',
        phase: 'preparing',
        preparationDiscarded: true,
        provenance: 'builtin',
      },
    });
    assertValidUpdate(frame);
    assertValidUpdate(discarded);
  });

  it('calls the emitter as a method and settles to undefined, with or without preparations', async () => {
    class HostEmitter {
      shown = [];
      emitStart(params) {
        this.shown.push(params.callId);
        return true;
      }
      emitPreparationDiscarded(callId) {
        this.shown = this.shown.filter((id) => id !== callId);
      }
    }
    const emitter = new HostEmitter();
    const tracker = new PreparationTracker(new ToolCallCards(), { emitter });
    const observed = tracker.observe({});
    assert.ok(observed instanceof Promise);
    assert.equal(await observed, undefined);
    assert.equal(await tracker.observe(null), undefined);
    assert.equal(await tracker.observe(response([{ callId: 'a', toolName: 'x' }])), undefined);
    assert.deepEqual(emitter.shown, ['a']);
    assert.equal(await tracker.discard(), undefined);
    assert.deepEqual(emitter.shown, []);
  });

  it('a declined card is unknown to the ledger: its call starts a new card and nothing else addresses it', async () => {
    const cards = new ToolCallCards({ suppressedTools: [] });
    const tracker = new PreparationTracker(cards, { emitter: recordingEmitter({ declined: ['web_fetch'] }) });
    await tracker.observe(response([{ callId: 'a', toolName: 'web_fetch' }]));
    assert.deepEqual(cards.openIds(), []);
    assert.equal(cards.discarded('a', 'web_fetch'), null);
    assert.deepEqual(cards.closeAll(), []);
    const start = cards.started({ callId: 'a', toolName: 'web_fetch', rawInput: { url: 'https://x' } });
    assert.equal(start.sessionUpdate, 'tool_call', 'the client never saw a preparing card for it');
  });

  it('an id with a lone surrogate is answered and discarded as given', async () => {
    for (const shown of [true, false]) {
      const cards = new ToolCallCards();
      let tracker;
      const emitter = recordingEmitter({ declined: shown ? [] : ['t\udc00'], trackerOf: () => tracker });
      tracker = new PreparationTracker(cards, { emitter });
      const r = response([{ callId: 'x\ud800', toolName: 't\udc00' }]);
      await tracker.observe(r);
      await tracker.observe(r);
      assert.deepEqual(cards.openIds(), shown ? ['x\ud800'] : []);
      await tracker.discard(true);
      assert.deepEqual(
        emitter.calls.map(([method, a, b, c]) =>
          method === 'emitStart' ? [method, a.callId, b.toolCallId] : [method, a, b, c.toolCallId],
        ),
        shown
          ? [
              ['emitStart', 'x\ud800', 'x\ud800'],
              ['emitPreparationDiscarded', 'x\ud800', 't\udc00', 'x\ud800'],
            ]
          : [['emitStart', 'x\ud800', 'x\ud800']],
      );
    }
  });

  it('the ledger decides first: a suppressed tool or an open card is never offered to the emitter', async () => {
    const cards = new ToolCallCards();
    cards.preparing('open', 'read_file');
    const emitter = recordingEmitter();
    const tracker = new PreparationTracker(cards, { emitter });
    await tracker.observe(
      response([
        { callId: 'todo', toolName: 'todo_write' },
        { callId: 'open', toolName: 'read_file' },
      ]),
    );
    await tracker.discard(true);
    assert.deepEqual(emitter.calls, []);
    assert.deepEqual(cards.openIds(), ['open'], "another tracker's card is left alone");
  });

  it('a preparation awaiting its answer is not offered twice by an overlapping observe', async () => {
    // Qwen's stream loop awaits each observe, so its tracker never overlaps
    // two; were they to, a second emitStart for the same id could show the
    // card twice. Here the second observe skips the call in flight.
    let release;
    const asked = [];
    const emitter = {
      emitStart(params) {
        asked.push(params.callId);
        return params.callId === 'a' && !release ? new Promise((resolve) => (release = resolve)) : true;
      },
      emitPreparationDiscarded() {},
    };
    const cards = new ToolCallCards();
    const tracker = new PreparationTracker(cards, { emitter });
    const r = response([{ callId: 'a', toolName: 'x' }]);
    const first = tracker.observe(r);
    await tracker.observe(
      response([
        { callId: 'a', toolName: 'x' },
        { callId: 'b', toolName: 'y' },
      ]),
    );
    release(true);
    await first;
    assert.deepEqual(asked, ['a', 'b']);
    assert.deepEqual(cards.openIds(), ['a', 'b']);
    // Skipped, not suppressed: once discarded, the next attempt asks again.
    await tracker.discard(true);
    await tracker.observe(r);
    assert.deepEqual(asked, ['a', 'b', 'a']);
  });

  it("passes the emitter's own failure through unchanged, and reports its own as ToolCallStreamError", async () => {
    const failure = new Error('connection closed');
    const failing = {
      emitStart() {
        throw failure;
      },
      emitPreparationDiscarded() {
        return Promise.reject(failure);
      },
    };
    const tracker = new PreparationTracker(new ToolCallCards(), { emitter: failing });
    await assert.rejects(tracker.observe(response([{ callId: 'a', toolName: 'x' }])), (err) => err === failure);

    const describing = new ToolCallCards({
      describe() {
        throw new Error('registry down');
      },
    });
    const asked = recordingEmitter();
    const described = new PreparationTracker(describing, { emitter: asked });
    await assert.rejects(described.observe(response([{ callId: 'a', toolName: 'x' }])), isInvalidArgument);
    const empty = new PreparationTracker(new ToolCallCards(), { emitter: asked });
    await assert.rejects(empty.observe(response([{ callId: '', toolName: 'x' }])), isInvalidArgument);
    assert.deepEqual(asked.calls, []);
  });

  it('rejects bad options with INVALID_ARGUMENT', () => {
    const cards = new ToolCallCards();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    const bad = [
      null,
      'emitter',
      [],
      { emitter: null },
      { emitter: 'x' },
      { emitter: {} },
      { emitter: { emitStart() {} } },
      { emitter: { emitPreparationDiscarded() {} } },
      { emitter: { emitStart: true, emitPreparationDiscarded() {} } },
      { emitter: hostile },
      hostile,
    ];
    for (const [i, options] of bad.entries()) {
      assert.throws(() => new PreparationTracker(cards, options), isInvalidArgument, `bad options #${i}`);
    }
    // Without an emitter the tracker is the frame-returning one.
    assert.deepEqual(new PreparationTracker(cards, {}).observe({}), []);
    assert.deepEqual(new PreparationTracker(cards, { emitter: undefined }).discard(), []);
  });

  it('a client sees valid frames, no frame for a declined card, and one terminal frame per card', async () => {
    const client = new CardClient((id) => ({ id }));
    const cards = new ToolCallCards({ suppressedTools: [] });
    const emitter = {
      async emitStart(params) {
        if (params.toolName === 'web_fetch') return false;
        client.receive(tracker.frame);
        return true;
      },
      async emitPreparationDiscarded() {
        client.receive(tracker.frame);
      },
    };
    const tracker = new PreparationTracker(cards, { emitter });
    const prepared = [
      { callId: 'a', toolName: 'read_file' },
      { callId: 'b', toolName: 'web_fetch' },
      { callId: 'c', toolName: 'run_shell_command' },
    ];
    await tracker.observe(response(prepared));
    tracker.resolve([{ id: 'a' }, { id: 'b' }]);
    await tracker.discard(true); // a retry
    await tracker.observe(response(prepared));
    tracker.resolve([{ id: 'a' }, { id: 'b' }]);
    await tracker.discard(false); // the stream's normal end: c never arrived
    for (const id of ['a', 'b']) {
      const start = cards.started({
        callId: id,
        toolName: prepared.find((p) => p.callId === id).toolName,
        rawInput: { id },
      });
      client.receive(start);
      client.receive(cards.finished(id, 'tool', { status: 'completed' }));
    }
    cards.closeAll().forEach((frame) => client.receive(frame));
    client.assertOneTerminalPerOpen();
    assert.deepEqual(
      client.frames.filter((f) => f.toolCallId === 'b').map((f) => f._meta.phase ?? f.status),
      ['in_progress', 'completed'],
      'the declined card appears only when its call runs',
    );
    assert.deepEqual(client.opens.get('a'), 2, 'prepared again after the retry');
  });
});
