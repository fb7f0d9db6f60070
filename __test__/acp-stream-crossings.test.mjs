// consumeModelStream's crossings into native code, counted per chunk: at
// most one for a chunk with preparations and / or calls (ids, preparing
// cards and resolved calls in one native step, core/src/acp/chunk.rs), none
// for a chunk with neither. And the frames and outcome of that one step
// against the stream loop built from the public pieces, each crossing on its
// own (ToolCallIds.apply, PreparationTracker.observe / sent / resolve /
// discard, the loop of docs/behaviour.md §6.4): the same bytes, on random
// event sequences and on the conformance corpus's converted streams.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { countNativeCrossings, crossingCount, crossingsSince } from './helpers/native-crossings.mjs';
import { streams } from './helpers/corpus.mjs';
import { opsToEvents } from './acp-helpers.mjs';

countNativeCrossings();

const require = createRequire(import.meta.url);
const {
  ToolCallCards,
  PreparationTracker,
  ToolCallIds,
  AnthropicConverter,
  OpenAIConverter,
  consumeModelStream,
  setToolCallPreparations,
  getToolCallPreparations,
  getProviderToolCallId,
  ToolCallStreamError,
} = require('../index.js');

function response(parts, preparations, extra = {}) {
  const value = { candidates: [{ content: { role: 'model', parts } }], ...extra };
  if (preparations) setToolCallPreparations(value, preparations);
  return value;
}
const prep = (callId, toolName = 'read_file') => ({ callId, toolName });
const call = (id, name = 'read_file') => ({ functionCall: { ...(id === undefined ? {} : { id }), name, args: {} } });

/**
 * Runs consumeModelStream over `chunks` (responses); returns, per chunk, the
 * native calls made while it was handled.
 */
async function crossingsPerChunk(chunks, options) {
  const per = [];
  async function* events() {
    for (const value of chunks) {
      const before = crossingCount();
      yield { type: 'chunk', value };
      // The loop asks for the next event once this one is handled.
      per.push(crossingsSince(before));
    }
  }
  await consumeModelStream(events(), { cards: new ToolCallCards(), send: () => {}, ...options });
  return per;
}

describe('consumeModelStream crossings', () => {
  const chunks = () => [
    response([{ text: 'Reading.' }]),
    response([{ text: 'thinking', thought: true }], undefined, { usageMetadata: { totalTokenCount: 3 } }),
    response([{ text: 'a' }], [prep('c1')]),
    response([call('c1')]),
    response([{ text: 'b' }, call('c2'), call(undefined, 'shell')], [prep('c2'), prep('c3', 'shell')]),
    response([call('c3', 'shell'), call('c4'), call('c4')], [prep('c4'), prep('c5', 'todo_write')]),
    response([{ text: '' }]),
  ];
  const carriesIds = (r) =>
    getToolCallPreparations(r).length > 0 || r.candidates[0].content.parts.some((p) => p.functionCall);

  for (const [label, options] of [
    ['without historyIds', {}],
    ['with historyIds', { historyIds: ['c1', 'x'] }],
    ['with progress', { historyIds: [], progress: true }],
  ]) {
    it(`crosses at most once a chunk with a preparation or a call, never for one without (${label})`, async () => {
      const list = chunks();
      const per = await crossingsPerChunk(list, options);
      assert.equal(per.length, list.length);
      list.forEach((r, i) => {
        if (carriesIds(r)) assert.ok(per[i].length <= 1, `chunk ${i}: ${per[i].join(', ')}`);
        else assert.deepEqual(per[i], [], `chunk ${i} has no preparation and no call`);
      });
      // A chunk with both preparations and calls does cross (once).
      assert.deepEqual(per[4], ['NativePreparationTracker.observeChunk']);
    });
  }

  it('refuses bad chunks with a ToolCallStreamError and a stable code, with and without historyIds', async () => {
    const bad = [
      response([{ text: 'a' }], [prep('')]),
      Object.defineProperty(response([]), 'functionCalls', { value: { length: 1 } }),
    ];
    for (const value of bad) {
      for (const historyIds of [undefined, []]) {
        if (historyIds && !getToolCallPreparations(value).length) continue; // normalised calls are always an array
        await assert.rejects(
          consumeModelStream([{ type: 'chunk', value }], { cards: new ToolCallCards(), send: () => {}, historyIds }),
          (err) => err instanceof ToolCallStreamError && err.code === 'INVALID_ARGUMENT',
        );
      }
    }
  });

  it('crosses once for a chunk of calls alone, whose ids must be normalised or resolved', async () => {
    const per = await crossingsPerChunk([response([call('c1'), call(undefined)])], { historyIds: [] });
    assert.deepEqual(per, [['NativePreparationTracker.observeChunk']]);
  });
});

// ---- the loop built from the public pieces ---------------------------------
// docs/behaviour.md §6.4 as the public classes compose it: ids.apply, the
// text frames, observe (each frame sent, then `sent`), resolve; discard on
// retry / fallback and at the end, each with its cause.
async function piecesLoop(events, { cards, send, signal, historyIds, progress }) {
  const tracker = new PreparationTracker(cards, progress ? { progress: { send } } : undefined);
  const newIds = () => (historyIds === undefined ? undefined : new ToolCallIds([...historyIds]));
  let ids = newIds();
  let functionCalls = [];
  let usage;
  let failed = false;
  // As consumeModelStream: every discard frame is tried, and a failure
  // changes nothing.
  const finalize = async (all, cause) => {
    for (const frame of tracker.discard(all, cause)) {
      try {
        await send(frame);
      } catch {
        // ignored
      }
    }
  };
  try {
    for await (const event of events) {
      if (signal && signal.aborted) break;
      if (event.type === 'chunk') {
        const r = event.value;
        if (ids) ids.apply(r);
        for (const part of r.candidates?.[0]?.content?.parts ?? []) {
          if (typeof part.text === 'string' && part.text !== '') {
            await send({
              sessionUpdate: part.thought ? 'agent_thought_chunk' : 'agent_message_chunk',
              content: { type: 'text', text: part.text },
            });
          }
        }
        if (r.usageMetadata) usage = r.usageMetadata;
        for (const frame of tracker.observe(r)) {
          await send(frame);
          tracker.sent(frame);
        }
        const calls =
          r.functionCalls ?? r.candidates?.[0]?.content?.parts.filter((p) => p.functionCall).map((p) => p.functionCall);
        if (calls && calls.length > 0) {
          tracker.resolve(calls);
          functionCalls.push(...calls);
        }
      } else if (event.type === 'retry' || event.type === 'model_fallback') {
        await finalize(true, event.type === 'retry' ? 'retry' : 'fallback');
        functionCalls = [];
        ids = newIds();
      }
    }
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    const cancelled = Boolean(signal && signal.aborted);
    await finalize(failed || cancelled, cancelled ? 'cancel' : failed ? 'stream-error' : undefined);
  }
  if (signal && signal.aborted) return { functionCalls: [], usage, cancelled: true };
  return { functionCalls, usage };
}

/** One run of a loop: every frame's JSON text, the outcome, the responses' ids after it, the cards left open. */
async function run(loop, makeEvents, options) {
  const cards = new ToolCallCards({ describe: options.describe });
  const sent = [];
  let n = 0;
  const send = (frame) => {
    if (n++ === options.failSendAt) throw new Error('send failed');
    sent.push(JSON.stringify(frame));
  };
  const controller = new AbortController();
  const { events, responses } = makeEvents(controller);
  let outcome;
  try {
    const result = await loop(events, {
      cards,
      send,
      signal: controller.signal,
      historyIds: options.historyIds,
      progress: options.progress,
    });
    outcome = {
      calls: result.functionCalls.map((c) => [JSON.stringify(c), getProviderToolCallId(c) ?? null]),
      usage: JSON.stringify(result.usage),
      cancelled: Boolean(result.cancelled),
    };
  } catch (err) {
    outcome = { error: `${err.code ?? ''} ${err.message}` };
  }
  const rewritten = responses.map((r) => [
    JSON.stringify(getToolCallPreparations(r)),
    JSON.stringify(r.candidates?.[0]?.content?.parts ?? null),
    JSON.stringify(r.functionCalls ?? null),
  ]);
  return { sent, outcome, rewritten, open: cards.openIds() };
}

const RAW_IDS = ['t0', 't1', 't2', ''];
const TOOLS = ['read_file', 'todo_write', 'shell'];

const opArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('chunk'),
      text: fc.option(fc.string({ minLength: 1, maxLength: 3 }), { nil: undefined }),
      thought: fc.boolean(),
      preps: fc.array(fc.record({ id: fc.constantFrom(...RAW_IDS), tool: fc.constantFrom(...TOOLS) }), {
        maxLength: 3,
      }),
      calls: fc.array(
        fc.record({
          id: fc.option(fc.constantFrom(...RAW_IDS, 7), { nil: undefined, freq: 5 }),
          tool: fc.constantFrom(...TOOLS),
        }),
        { maxLength: 3 },
      ),
      usage: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'retry' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'model_fallback' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throw' }) },
);

function randomEvents(ops) {
  return (controller) => {
    const responses = [];
    const toResponse = (parts, op) => {
      const r = response(
        parts,
        op.preps.map((p) => prep(p.id, p.tool)),
        op.usage ? { usageMetadata: { totalTokenCount: parts.length } } : {},
      );
      responses.push(r);
      return r;
    };
    return { events: opsToEvents(ops, controller, { toResponse, argsOf: () => ({ n: 1 }) }), responses };
  };
}

const describeArb = fc.constantFrom(
  undefined,
  (tool) => ({ title: `Run ${tool}`, kind: tool === 'shell' ? 'execute' : 'read' }),
  (tool) => (tool === 'shell' ? { title: 7 } : null),
);

async function assertSame(makeEvents, options) {
  const one = await run(consumeModelStream, makeEvents, options);
  const pieces = await run(piecesLoop, makeEvents, options);
  if (one.outcome.error !== undefined) {
    // The chunk that fails the stream (a send of its text frames fails, or
    // a preparation has an empty id), the last one read, may be left as it
    // came: its final ids come with its preparing frames, in one step after
    // its text. The stream fails with it, so no one reads its ids.
    one.rewritten.pop();
    pieces.rewritten.pop();
  }
  assert.deepEqual(one, pieces);
}

describe('consumeModelStream against the loop of the public pieces', () => {
  it('sends the same frames, byte for byte, and gives the same outcome on random event sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 10 }),
        fc.option(fc.constantFrom([], ['t0'], ['t1', 't0__qwen_dup_2', 'call_qwen_1']), { nil: undefined }),
        describeArb,
        fc.option(fc.nat(12), { nil: undefined }),
        fc.boolean(),
        async (ops, historyIds, describe, failSendAt, progress) => {
          await assertSame(randomEvents(ops), { historyIds, describe, failSendAt, progress });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('sends the same frames for the corpus streams, converted', async () => {
    const convert = (name, items) => {
      const out = [];
      try {
        if (name.startsWith('anthropic-')) {
          const c = new AnthropicConverter();
          for (const e of items) {
            if (e?.__throw__) break;
            out.push(...c.pushEvent(e));
          }
          out.push(...c.end());
        } else {
          const c = new OpenAIConverter();
          for (const chunk of items) {
            if (chunk?.__throw__) break;
            out.push(...c.pushChunk(chunk));
          }
          out.push(...c.end());
        }
      } catch (err) {
        out.push(...(err.responses ?? []));
      }
      return out;
    };
    const all = [...streams('anthropic-'), ...streams('openai-')];
    assert.ok(all.length > 20);
    for (const { name, items } of all) {
      const makeEvents = () => {
        const responses = convert(name, items);
        return {
          responses,
          events: (async function* () {
            for (const value of responses) yield { type: 'chunk', value };
          })(),
        };
      };
      for (const historyIds of [undefined, ['call_qwen_1']]) {
        const one = await run(consumeModelStream, makeEvents, { historyIds });
        const pieces = await run(piecesLoop, makeEvents, { historyIds });
        assert.deepEqual(one, pieces, name);
      }
    }
  });
});
