// consumeModelStream: the stream-loop body of docs/behaviour.md §6.4 (ordering, RETRY /
// MODEL_FALLBACK / COMPRESSED, cancel, stream error, normal end, discard
// failures), a property test over random event sequences, and a real
// converted Anthropic stream. Every frame is validated against the ACP schema.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { assertValidUpdate, CardClient, opsToEvents } from './acp-helpers.mjs';

const require = createRequire(import.meta.url);
const acp = require('../index.js');
const { ToolCallCards, consumeModelStream, setToolCallPreparations, getProviderToolCallId } = acp;

function chunk(parts, preparations, extra = {}) {
  const value = { candidates: [{ content: { role: 'model', parts } }], ...extra };
  if (preparations) setToolCallPreparations(value, preparations);
  return { type: 'chunk', value };
}
const prep = (callId, toolName = 'read_file') => ({ callId, toolName });
const call = (id, name = 'read_file', args = { path: `/${id}` }) => ({ functionCall: { id, name, args } });

async function* stream(events, { throwAt } = {}) {
  let i = 0;
  for (const e of events) {
    if (throwAt === i++) throw new Error('socket hang up');
    yield e;
  }
  if (throwAt !== undefined && throwAt >= events.length) throw new Error('socket hang up');
}

function recorder() {
  const frames = [];
  return {
    frames,
    send: (u) => {
      assertValidUpdate(u);
      frames.push(u);
    },
  };
}
const summary = (frames) =>
  frames.map((f) =>
    f.sessionUpdate.endsWith('_chunk')
      ? `${f.sessionUpdate}:${f.content.text}`
      : `${f.sessionUpdate}:${f.toolCallId}:${f.status}${f._meta?.preparationDiscarded ? ':discarded' : ''}`,
  );

describe('consumeModelStream', () => {
  it('sends text and thought frames first, then preparing cards, then collects calls', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    const result = await consumeModelStream(
      stream([
        chunk([{ text: 'thinking', thought: true }, { text: 'Reading.' }], [prep('call-1')]),
        chunk([call('call-1')], undefined, { usageMetadata: { totalTokenCount: 3 } }),
        chunk([{ text: '' }], undefined, { usageMetadata: { totalTokenCount: 9 } }),
      ]),
      { cards, send },
    );
    assert.deepEqual(summary(frames), [
      'agent_thought_chunk:thinking',
      'agent_message_chunk:Reading.',
      'tool_call:call-1:pending',
    ]);
    assert.deepEqual(result.functionCalls, [{ id: 'call-1', name: 'read_file', args: { path: '/call-1' } }]);
    assert.deepEqual(result.usage, { totalTokenCount: 9 });
    assert.ok(cards.isOpen('call-1'), 'a resolved card waits for execution');
  });

  it('normal end discards only preparations whose call never arrived', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    await consumeModelStream(stream([chunk([], [prep('a'), prep('b', 'shell')]), chunk([call('a')])]), { cards, send });
    assert.deepEqual(summary(frames), [
      'tool_call:a:pending',
      'tool_call:b:pending',
      'tool_call_update:b:failed:discarded',
    ]);
  });

  for (const type of ['retry', 'model_fallback']) {
    it(`${type} discards every card of the abandoned attempt and clears collected calls`, async () => {
      const cards = new ToolCallCards();
      const { frames, send } = recorder();
      const result = await consumeModelStream(
        stream([
          chunk([], [prep('a')]),
          chunk([call('a', 'read_file', { path: '/old' })]),
          type === 'retry'
            ? { type: 'retry', retryInfo: { attempt: 1 } }
            : { type, info: { fromModel: 'x', toModel: 'y' } },
          chunk([], [prep('a')]),
          chunk([call('a', 'read_file', { path: '/new' })]),
        ]),
        { cards, send },
      );
      assert.deepEqual(summary(frames), [
        'tool_call:a:pending',
        'tool_call_update:a:failed:discarded',
        'tool_call:a:pending',
      ]);
      assert.deepEqual(
        result.functionCalls.map((c) => c.args.path),
        ['/new'],
      );
    });
  }

  it('ignores compressed events', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    const result = await consumeModelStream(
      stream([chunk([], [prep('a')]), { type: 'compressed', info: {} }, chunk([call('a')])]),
      { cards, send },
    );
    assert.deepEqual(summary(frames), ['tool_call:a:pending']);
    assert.equal(result.functionCalls.length, 1);
  });

  it('a cancelled stream stops, discards every card (resolved too) and returns no calls', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    const controller = new AbortController();
    let pulled = 0;
    async function* events() {
      yield chunk([], [prep('a'), prep('b')]);
      pulled++;
      yield chunk([call('a')]);
      pulled++;
      controller.abort('qwen:user-cancel');
      yield chunk([{ text: 'never sent' }]);
      pulled++;
      yield chunk([{ text: 'never pulled' }]);
      pulled++;
    }
    const result = await consumeModelStream(events(), { cards, send, signal: controller.signal });
    assert.deepEqual(result, { functionCalls: [], cancelled: true });
    assert.equal(pulled, 2, 'the loop exits at the first event after the abort');
    assert.deepEqual(summary(frames), [
      'tool_call:a:pending',
      'tool_call:b:pending',
      'tool_call_update:a:failed:discarded',
      'tool_call_update:b:failed:discarded',
    ]);
    assert.deepEqual(cards.openIds(), []);
  });

  it('a stream error discards every card, resolved ones too, then rethrows', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    await assert.rejects(
      consumeModelStream(stream([chunk([], [prep('a')]), chunk([call('a')])], { throwAt: 2 }), { cards, send }),
      /socket hang up/,
    );
    assert.deepEqual(summary(frames), ['tool_call:a:pending', 'tool_call_update:a:failed:discarded']);
  });

  it('discard failures never change the outcome; every discard is attempted', async () => {
    const cards = new ToolCallCards();
    const attempted = [];
    const discardErrors = [];
    const send = async (u) => {
      await new Promise((r) => setImmediate(r));
      if (u._meta?.preparationDiscarded) {
        attempted.push(u.toolCallId);
        throw new Error(`pipe closed (${u.toolCallId})`);
      }
    };
    const result = await consumeModelStream(stream([chunk([], [prep('a'), prep('b')])]), {
      cards,
      send,
      onDiscardError: (e) => discardErrors.push(e.message),
    });
    assert.deepEqual(result, { functionCalls: [] });
    assert.deepEqual(attempted, ['a', 'b']);
    assert.deepEqual(discardErrors, ['pipe closed (a)'], 'the first failure is reported');
    // The stream error still wins over a discard failure.
    await assert.rejects(
      consumeModelStream(stream([chunk([], [prep('c')])], { throwAt: 1 }), { cards, send }),
      /socket hang up/,
    );
  });

  it('a failing send of a stream frame fails the stream and still discards', async () => {
    const cards = new ToolCallCards();
    const sent = [];
    const send = (u) => {
      if (u.sessionUpdate === 'agent_message_chunk') throw new Error('client gone');
      sent.push(u);
    };
    await assert.rejects(
      consumeModelStream(stream([chunk([], [prep('a')]), chunk([{ text: 'x' }])]), { cards, send }),
      /client gone/,
    );
    assert.deepEqual(summary(sent), ['tool_call:a:pending', 'tool_call_update:a:failed:discarded']);
  });

  it('normalises ids per attempt with historyIds, so cards and calls share them', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    const result = await consumeModelStream(
      stream([
        chunk([], [prep('toolu_1')]),
        { type: 'retry' },
        chunk([], [prep('toolu_1')]),
        chunk([call('toolu_1'), call('toolu_1'), { functionCall: { name: 'list_directory', args: {} } }]),
      ]),
      { cards, send, historyIds: ['toolu_1'] },
    );
    assert.deepEqual(summary(frames), [
      'tool_call:toolu_1__qwen_dup_2:pending',
      'tool_call_update:toolu_1__qwen_dup_2:failed:discarded',
      'tool_call:toolu_1__qwen_dup_2:pending',
    ]);
    assert.deepEqual(
      result.functionCalls.map((c) => c.id),
      ['toolu_1__qwen_dup_2', 'call_qwen_1'],
    );
    assert.equal(getProviderToolCallId(result.functionCalls[0]), 'toolu_1');
  });

  it('reads calls through the @google/genai getter of a GenerateContentResponse', async () => {
    const { GenerateContentResponse } = require('@google/genai');
    const value = new GenerateContentResponse();
    value.candidates = [{ content: { role: 'model', parts: [call('g')] } }];
    const cards = new ToolCallCards();
    const { send } = recorder();
    const result = await consumeModelStream([{ type: 'chunk', value }], { cards, send });
    assert.deepEqual(
      result.functionCalls.map((c) => c.id),
      ['g'],
    );
  });

  it('never gives todo_write a card', async () => {
    const cards = new ToolCallCards();
    const { frames, send } = recorder();
    const result = await consumeModelStream(
      stream([chunk([], [prep('t', 'todo_write')]), { type: 'retry' }, chunk([], [prep('t', 'todo_write')])]),
      { cards, send },
    );
    assert.deepEqual(frames, []);
    assert.deepEqual(result.functionCalls, []);
  });

  it('rejects bad arguments with INVALID_ARGUMENT', async () => {
    const cards = new ToolCallCards();
    await assert.rejects(consumeModelStream(null, { cards, send() {} }), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(consumeModelStream([], { cards: {}, send() {} }), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(consumeModelStream([], { cards }), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(consumeModelStream([], { cards, send() {}, signal: 'x' }), { code: 'INVALID_ARGUMENT' });
    const { frames, send } = recorder();
    await assert.rejects(consumeModelStream([chunk([], [prep('a')]), 42], { cards, send }), {
      code: 'INVALID_ARGUMENT',
    });
    assert.deepEqual(summary(frames), ['tool_call:a:pending', 'tool_call_update:a:failed:discarded']);
  });

  it('shows a card for a real converted Anthropic stream before its arguments arrive', async (t) => {
    if (typeof acp.AnthropicConverter !== 'function') return t.skip('AnthropicConverter not available');
    const events = JSON.parse(
      readFileSync(new URL('fixtures/conformance/streams/anthropic-tool-use-fragments.json', import.meta.url), 'utf8'),
    );
    const converter = new acp.AnthropicConverter({ model: 'claude-oracle-4' });
    const order = [];
    async function* converted() {
      for (const event of events) {
        for (const response of converter.pushEvent(event)) yield { type: 'chunk', value: response };
        order.push(`event:${event.type}${event.delta?.type ? `/${event.delta.type}` : ''}`);
      }
      for (const response of converter.end()) yield { type: 'chunk', value: response };
    }
    const cards = new ToolCallCards({ describe: () => ({ title: 'ReadFile', kind: 'read' }) });
    const client = new CardClient((id) => (id === 'toolu_01' ? { path: '/data/a.txt', limit: 10 } : undefined));
    const result = await consumeModelStream(converted(), {
      cards,
      send: (u) => {
        client.receive(u);
        order.push(`${u.sessionUpdate}${u.toolCallId ? `:${u.toolCallId}:${u.status}` : ''}`);
      },
    });
    const card = order.indexOf('tool_call:toolu_01:pending');
    const firstArgs = order.findIndex((o) => o === 'event:content_block_delta/input_json_delta');
    assert.ok(card >= 0 && card < firstArgs, `card before the first argument fragment: ${order.join(', ')}`);
    assert.deepEqual(
      result.functionCalls.map((c) => [c.id, c.name]),
      [['toolu_01', 'read_file']],
    );
    const args = result.functionCalls[0].args;
    client.receive(cards.started({ callId: 'toolu_01', toolName: 'read_file', rawInput: args }));
    client.receive(cards.finished('toolu_01', 'read_file', { status: 'completed', content: [] }));
    assert.deepEqual([...client.open], []);
    assert.equal(client.terminals.get('toolu_01'), 1);
  });
});

// ---- property test ----

const RAW_IDS = ['t0', 't1', 't2', 't3'];
const TOOLS = ['read_file', 'todo_write', 'mcp__fs__write', 'shell'];

const eventArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('chunk'),
      text: fc.option(fc.string({ minLength: 1, maxLength: 4 }), { nil: undefined }),
      thought: fc.boolean(),
      preps: fc.uniqueArray(fc.record({ id: fc.constantFrom(...RAW_IDS), tool: fc.constantFrom(...TOOLS) }), {
        selector: (p) => p.id,
        maxLength: 2,
      }),
      calls: fc.array(
        fc.record({
          id: fc.option(fc.constantFrom(...RAW_IDS), { nil: undefined, freq: 6 }),
          tool: fc.constantFrom(...TOOLS),
        }),
        { maxLength: 2 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'retry' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'model_fallback' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compressed' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throw' }) },
);

const toEvents = (ops, controller) =>
  opsToEvents(ops, controller, {
    toResponse: (parts, op) =>
      chunk(
        parts,
        op.preps.map((p) => prep(p.id, p.tool)),
      ).value,
    argsOf: (c) => ({ raw: c.id ?? null, tool: c.tool }),
  });

describe('consumeModelStream property', () => {
  it('keeps the card invariants over random turns of random event sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(eventArb, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        async (turns) => {
          const cards = new ToolCallCards();
          const args = new Map();
          const client = new CardClient((id) => args.get(id));
          const history = [];
          for (const ops of turns) {
            const controller = new AbortController();
            let outcome;
            try {
              outcome = await consumeModelStream(toEvents(ops, controller), {
                cards,
                send: (u) => client.receive(u),
                signal: controller.signal,
                historyIds: history,
              });
            } catch (err) {
              assert.equal(err.message, 'stream failed');
              outcome = { functionCalls: [], failed: true };
            }
            // After the stream: only cards of calls about to run are open.
            const callIds = new Set(outcome.functionCalls.map((c) => c.id));
            for (const id of client.open) assert.ok(callIds.has(id), `card ${id} left open without a call`);
            if (outcome.cancelled || outcome.failed) assert.deepEqual([...client.open], []);
            // Execute like runToolCalls: dedupe by id, start, finish.
            const seen = new Set();
            let n = 0;
            for (const c of outcome.functionCalls) {
              if (seen.has(c.id)) continue;
              seen.add(c.id);
              history.push(c.id);
              args.set(c.id, c.args);
              const started = cards.started({ callId: c.id, toolName: c.name, rawInput: c.args });
              if (started) client.receive(started);
              const done =
                n++ % 2 === 0 ? cards.finished(c.id, c.name, { status: 'completed' }) : cards.failed(c.id, c.name, 'x');
              if (done) client.receive(done);
            }
            assert.deepEqual([...client.open], [], 'every card of the turn ended');
          }
          for (const f of cards.closeAll()) client.receive(f);
          client.assertOneTerminalPerOpen();
          // A card is never opened for todo_write (one prepared under another
          // name whose call came back as todo_write is still ended).
          for (const f of client.frames) {
            if (f.sessionUpdate === 'tool_call') assert.notEqual(f._meta.toolName, 'todo_write');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
