// End to end: what the agent does around the model stream. The usage frame
// after each stream, a rate limit that outlives the retries (RequestError
// 429), the fallback model after the retries, no transport retry once a
// complete call was out, and the stall watchdog on a provider that goes
// silent mid-arguments. bin/agent.js over real stdio
// pipes, the real provider SDKs against the loopback provider; every message
// the agent wrote is validated against the ACP schema v1.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent } from '../demo/harness.mjs';
import { scenarios, FALLBACK_MODEL } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { workspaces, framesOf, shape, closeChecked, runScenario } from './helpers/e2e.mjs';

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-model-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

// Long enough that a healthy replay (20× speed) never trips it, even on a loaded machine (at
// 400 ms, a run with the load average at 8–9 on 2 cores once saw a gap that long in a healthy
// stream, and the extra retry failed a test that is not about stalls), short enough for a test.
const STALL_TIMEOUT_MS = 2000;

/** What each discarded card of `id` says: its `_meta.discardReason` and its title. */
const discardsOf = (updates, id) =>
  framesOf(updates, id)
    .filter((u) => u._meta?.preparationDiscarded)
    .map((u) => [u._meta.discardReason, u.title]);

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`around the model stream: ${providerKind}`, () => {
    let provider;
    let agent;

    before(async () => {
      provider = await startProvider({ speed: 20 });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        model: 'replay-primary',
        retryDelayMs: 5,
        extraArgs: [
          '--approve=always',
          '--fallback-model',
          FALLBACK_MODEL,
          '--stall-timeout-ms',
          String(STALL_TIMEOUT_MS),
        ],
      });
    });
    // Every message the agent wrote, responses and errors included, is valid ACP v1.
    after(() => closeChecked(agent, provider));

    const run = async (name) => runScenario(agent, provider, scenarios, name, await workspace());

    it('a usage frame after each stream: an empty agent_message_chunk with _meta.usage and durationMs', async () => {
      const { response, updates, requests } = await run('permission-write');
      assert.equal(response.stopReason, 'end_turn');
      const usage = updates.map((e) => e.update).filter((u) => u._meta?.usage);
      assert.equal(usage.length, requests.length, 'one per stream');
      for (const u of usage) {
        assert.equal(u.sessionUpdate, 'agent_message_chunk');
        assert.deepEqual(u.content, { type: 'text', text: '' });
        assert.equal(u._meta.usage.inputTokens, 412);
        assert.ok(u._meta.usage.outputTokens > 0);
        if (providerKind === 'openai')
          assert.equal(u._meta.usage.totalTokens, u._meta.usage.inputTokens + u._meta.usage.outputTokens);
        assert.ok(Number.isInteger(u._meta.durationMs) && u._meta.durationMs >= 0);
      }
      // The first stream's usage comes after its text and before its tool ran.
      const kinds = updates.map((e) => e.update);
      const firstUsage = kinds.indexOf(usage[0]);
      const completed = kinds.findIndex((u) => u.status === 'completed');
      assert.ok(firstUsage < completed);
    });

    it('HTTP 429 on every attempt: retried, on the fallback model too, then a RequestError 429 "Rate limit exceeded"', async () => {
      const { error, requests, updates } = await run('rate-limited');
      assert.ok(error, 'the prompt fails');
      assert.equal(error.code, 429);
      assert.equal(error.message, 'Rate limit exceeded. Try again later.');
      // The first attempt and four retries, on each model.
      assert.deepEqual(
        requests.map((r) => r.body.model),
        [...Array(5).fill('replay-primary'), ...Array(5).fill(FALLBACK_MODEL)],
      );
      assert.ok(requests.every((r) => r.status === 429));
      assert.deepEqual(
        updates.filter((e) => e.update.toolCallId),
        [],
      );
      const raw = agent.wire.find((e) => e.msg.error?.code === 429);
      assert.equal(raw.msg.error.message, 'Rate limit exceeded. Try again later.');
    });

    it('--fallback-model: after the retries on an overloaded model, the fallback model answers; the abandoned cards are discarded', async () => {
      const { sessionId, response, updates, requests } = await run('fallback-model');
      assert.equal(response.stopReason, 'end_turn');
      assert.deepEqual(
        requests.map((r) => r.body.model),
        [...Array(5).fill('replay-primary'), FALLBACK_MODEL, FALLBACK_MODEL],
      );
      // Every primary attempt's card was discarded; the fallback's card ran.
      const primary = framesOf(updates, callId('toolu_01ReadPrimary')).map(shape);
      assert.deepEqual(primary, Array(5).fill(['tool_call:pending', 'tool_call_update:failed:discarded']).flat());
      // Each says why it did not run: four retries, then the move to the fallback model.
      assert.deepEqual(discardsOf(updates, callId('toolu_01ReadPrimary')), [
        ...Array(4).fill(['retry', 'ReadFile · not run: the request is being retried']),
        ['fallback', 'ReadFile · not run: switched to another model'],
      ]);
      assert.deepEqual(framesOf(updates, callId('toolu_01ReadFallback')).map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      assert.match(agent.stderr, /falling back to replay-fallback/);
      // The session keeps the fallback model.
      const next = await agent.prompt(sessionId, 'And now?');
      assert.equal(next.stopReason, 'end_turn');
      assert.equal(provider.requests.at(-1).body.model, FALLBACK_MODEL);
    });

    it('a socket cut after a complete call was emitted is not retried as a transport error (Qwen: no replay after output); before it, it is', async () => {
      const { response, error, updates, requests } = await run('cut-after-call');
      const ids = [callId('toolu_01CutFirst'), callId('toolu_01CutSecond')];
      if (providerKind === 'anthropic') {
        // content_block_stop delivered the first call: output, so the cut ends the prompt.
        assert.ok(error, 'the prompt fails');
        assert.equal(requests.length, 1, 'no transport retry');
        for (const id of ids) {
          assert.deepEqual(framesOf(updates, id).map(shape), [
            'tool_call:pending',
            'tool_call_update:failed:discarded',
          ]);
          assert.deepEqual(discardsOf(updates, id), [['stream-error', 'ReadFile · not run: the stream failed']]);
        }
      } else {
        // OpenAI calls complete only at the finish: only preparations were out, so it is retried.
        assert.equal(response.stopReason, 'end_turn');
        assert.deepEqual(
          requests.map((r) => [r.turn, r.attempt]),
          [
            [0, 0],
            [0, 1],
            [1, 0],
          ],
        );
        for (const id of ids)
          assert.deepEqual(framesOf(updates, id).map(shape), [
            'tool_call:pending',
            'tool_call_update:failed:discarded',
            'tool_call:pending',
            'tool_call_update:in_progress',
            'tool_call_update:completed',
          ]);
      }
    });

    // The timeout only turns a missing watchdog into a failure instead of a hang.
    it(
      'a stream that stalls mid-arguments: aborted after --stall-timeout-ms, the card discarded, retried, run once',
      { timeout: 60_000 },
      async () => {
        const { cwd, response, updates, requests } = await run('stall-mid-arguments');
        assert.equal(response.stopReason, 'end_turn');
        assert.deepEqual(
          requests.map((r) => [r.turn, r.attempt]),
          [
            [0, 0],
            [0, 1],
            [1, 0],
          ],
        );
        assert.equal(requests[0].stalled, true);
        for (let i = 0; i < 100 && !requests[0].aborted; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(requests[0].aborted, true, 'the stalled request was aborted');
        assert.deepEqual(framesOf(updates, callId('toolu_01WriteStalled')).map(shape), [
          'tool_call:pending',
          'tool_call_update:failed:discarded',
          'tool_call:pending',
          'tool_call_update:in_progress',
          'tool_call_update:completed',
        ]);
        // The watchdog's limit, in the discard's words and in _meta.
        assert.deepEqual(discardsOf(updates, callId('toolu_01WriteStalled')), [
          ['idle-timeout', 'WriteFile · not run: no data for 2 s'],
        ]);
        const discard = framesOf(updates, callId('toolu_01WriteStalled'))[1];
        assert.equal(discard._meta.idleLimitMs, STALL_TIMEOUT_MS);
        assert.match(agent.stderr, new RegExp(`sent no data for ${STALL_TIMEOUT_MS} ms`));
        assert.equal(
          await fs.readFile(path.join(cwd, 'test/stalled.js'), 'utf8'),
          'export const ok = true;\n'.repeat(40),
        );
      },
    );
  });
}
