// Cards always end, driven by the real converters: random turns of attempts
// over real provider streams (conformance and quirk corpora) that complete,
// fail mid-stream (in-band provider errors, transport errors, limits),
// are cancelled, or are abandoned by RETRY / MODEL_FALLBACK, followed by tool
// runs that succeed or fail, some after a permission request that is allowed,
// rejected or never answered (the request opens the card when the call was
// not prepared). Every opened card ends with exactly one
// terminal frame and no frame names an id the client has no card for
// (acp-stream.test.mjs covers the same invariants over synthetic chunks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { CardClient } from './acp-helpers.mjs';
import { streams, anthropicSse, openaiSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const m = require('../index.js');
const { AnthropicConverter, OpenAIConverter, ToolCallCards, consumeModelStream } = m;

const corpus = [
  ...streams('anthropic-').map((s) => ({
    anthropic: true,
    items: s.items.filter((e) => !e?.__throw__),
  })),
  ...streams('openai-').map((s) => ({ anthropic: false, items: s.items })),
];
// The quirk corpus too (helpers/corpus.mjs reads conformance, extra and qwen-0.24).
import fs from 'node:fs';
const quirkDir = new URL('./fixtures/quirks/streams/', import.meta.url);
for (const file of fs.readdirSync(quirkDir).sort()) {
  corpus.push({
    anthropic: file.startsWith('anthropic-'),
    items: JSON.parse(fs.readFileSync(new URL(file, quirkDir), 'utf8')),
  });
}

const attemptArb = fc.record({
  stream: fc.nat({ max: corpus.length - 1 }),
  bytes: fc.boolean(),
  cut: fc.option(fc.nat({ max: 40 }), { nil: undefined }),
  failure: fc.constantFrom('none', 'none', 'provider_error', 'transport', 'limit', 'cancel'),
  then: fc.constantFrom('retry', 'model_fallback'),
});
const turnArb = fc.record({
  attempts: fc.array(attemptArb, { minLength: 1, maxLength: 3 }),
  toolRuns: fc.array(fc.constantFrom('ok', 'fail', 'ask-allow', 'ask-reject', 'ask-unanswered'), { maxLength: 6 }),
});

/** The events of one attempt: real converter output, with the failure injected. */
async function* attemptEvents(a, controller) {
  const { anthropic, items: all } = corpus[a.stream];
  const items = a.cut === undefined ? all : all.slice(0, a.cut);
  const limits = a.failure === 'limit' ? { maxCallBytes: 4 } : undefined;
  const c = anthropic ? new AnthropicConverter({ limits }) : new OpenAIConverter({ limits });
  const chunks = function* (responses) {
    for (const r of responses) yield { type: 'chunk', value: r };
  };
  const failAt = Math.floor(items.length / 2);
  if (a.bytes) {
    let body = anthropic ? anthropicSse(items) : openaiSse(items);
    if (a.failure === 'provider_error') {
      const error = anthropic
        ? 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
        : 'data: {"error":{"message":"upstream"}}\n\n';
      const at = body.indexOf('\n\n', Math.floor(body.length / 2));
      body = at < 0 ? body + error : body.slice(0, at + 2) + error + body.slice(at + 2);
    }
    for (let at = 0; at < body.length; at += 61) {
      if (a.failure === 'cancel' && at > body.length / 2) controller.abort();
      if (a.failure === 'transport' && at > body.length / 2) throw new Error('socket hang up');
      yield* chunks(c.pushBytes(body.slice(at, at + 61)));
    }
    yield* chunks(c.end());
  } else {
    for (let i = 0; i < items.length; i++) {
      if (i === failAt && a.failure === 'cancel') controller.abort();
      if (i === failAt && a.failure === 'transport') throw new Error('socket hang up');
      if (i === failAt && a.failure === 'provider_error') {
        yield* chunks(
          anthropic
            ? c.pushEvent({ type: 'error', error: { message: 'Overloaded' } })
            : c.pushBytes('data: {"error":{"message":"x"}}\n\n'),
        );
      }
      if (anthropic) yield* chunks(c.pushEvent(items[i]));
      else yield { type: 'chunk', value: c.pushChunk(items[i]) };
    }
    yield* chunks(c.end());
  }
}

/** One turn's model stream: attempts separated by RETRY / MODEL_FALLBACK (docs/behaviour.md §4.2). */
async function* turnEvents(attempts, controller) {
  for (let i = 0; i < attempts.length; i++) {
    if (i > 0) yield { type: attempts[i - 1].then };
    yield* attemptEvents(attempts[i], controller);
  }
}

test('every opened card ends with exactly one terminal frame, over real converter streams', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 3 }), async (turns) => {
      const cards = new ToolCallCards();
      const args = new Map();
      const client = new CardClient((id) => args.get(id));
      const history = [];
      for (const turn of turns) {
        let functionCalls = [];
        const controller = new AbortController();
        try {
          const outcome = await consumeModelStream(turnEvents(turn.attempts, controller), {
            cards,
            send: (u) => client.receive(u),
            signal: controller.signal,
            historyIds: history,
          });
          functionCalls = outcome.functionCalls;
          if (outcome.cancelled) assert.deepEqual([...client.open], [], 'a cancel ends every card');
        } catch (err) {
          assert.ok(
            err instanceof m.ToolCallStreamError || err.message === 'socket hang up',
            `an expected failure: ${err.stack}`,
          );
          assert.deepEqual([...client.open], [], 'a failed stream ends every card');
        }
        // Only cards of calls about to run stay open after a stream.
        const ids = new Set(functionCalls.map((c) => c.id));
        for (const id of client.open) assert.ok(ids.has(id), `card ${id} left open without a call`);
        // Run the calls like runToolCalls: start, then complete or fail.
        const seen = new Set();
        functionCalls.forEach((c, i) => {
          // No card exists for a call whose id or name is not a string (quirk
          // AX: the converter passes them through, and prepares nothing).
          if (typeof c.id !== 'string' || typeof c.name !== 'string') return;
          if (seen.has(c.id)) return;
          seen.add(c.id);
          history.push(c.id);
          // A card's rawInput is an object; qwen-0.21 passes a non-object
          // argument root (an array) through as the call's args.
          const objectArgs = c.args !== null && typeof c.args === 'object' && !Array.isArray(c.args);
          const rawInput = objectArgs ? c.args : {};
          args.set(c.id, rawInput);
          const call = { callId: c.id, toolName: c.name ?? 'unknown', rawInput };
          const run = turn.toolRuns[i] ?? 'ok';
          if (run.startsWith('ask-')) {
            // The request replaces the start frame (Qwen's Session.runTool).
            const toolCall = cards.permission(call, [{ type: 'diff', path: '/w/a', oldText: '', newText: 'x' }]);
            if (toolCall) client.permission(toolCall);
            if (run === 'ask-unanswered') return;
          } else {
            const started = cards.started(call);
            if (started) client.receive(started);
          }
          const done =
            run === 'fail' || run === 'ask-reject'
              ? cards.failed(c.id, call.toolName, 'tool failed')
              : cards.finished(c.id, call.toolName, { status: 'completed' });
          if (done) client.receive(done);
        });
        // End of turn: what was never answered is closed (the agent's closeAll).
        for (const f of cards.closeAll()) client.receive(f);
        assert.deepEqual([...client.open], [], 'every card of the turn ended');
      }
      for (const f of cards.closeAll()) client.receive(f);
      client.assertOneTerminalPerOpen();
      assert.deepEqual(cards.openIds(), []);
    }),
    { numRuns: 200, seed: 20260101 },
  );
});
