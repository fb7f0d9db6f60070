// End to end: streams that end without an answer. An Anthropic stream that
// ends empty (HTTP 200, message_start and nothing else: no content, no stop
// reason) is asked again without streaming, and that answer is converted
// with convertAnthropicResponse and used, as Qwen Code's
// AnthropicContentGenerator.processStreamWithEmptyFallback does; a failing
// non-streaming answer is the attempt's error. A finish without text
// (NO_RESPONSE_TEXT), and a finish without visible text after a tool result
// (NO_TOOL_RESULT_PROGRESS), are retried as Qwen's GeminiChat retries its
// InvalidStreamError. bin/agent.js over real stdio pipes with the real
// provider SDKs against the loopback provider; every frame the agent wrote
// is validated against the ACP schema v1.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent } from '../demo/harness.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { workspaces, framesOf, shape, closeChecked, runScenario } from './helpers/e2e.mjs';

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-empty-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

const EMPTY = { blocks: [], omitStop: true };
const readReadme = { type: 'tool_use', id: 'toolu_01ReadAfterEmpty', name: 'read_file', input: { path: 'README.md' } };
const text = (t, stop = 'end_turn') => ({ blocks: [{ type: 'text', text: t }], stop });
const overloaded = { type: 'overloaded_error', message: 'Overloaded' };

const scenarios = {
  'empty-then-call': {
    // The stream ends empty; the non-streaming answer is a call; the next turn streams.
    prompt: 'Read README.md (the gateway drops the stream).',
    turns: [[EMPTY, { blocks: [readReadme], stop: 'tool_use' }], [text('README.md says hello.')]],
  },
  'empty-then-overloaded': {
    // The non-streaming answer is a 529: retried like any overload, from the stream.
    prompt: 'Say hello (the gateway drops the stream, then is overloaded).',
    turns: [[EMPTY, { http: { status: 529, error: overloaded } }, text('Hello after the overload.')]],
  },
  'finish-without-text': {
    // A finish with no text and no call: NO_RESPONSE_TEXT, retried.
    prompt: 'Say hello (the first answer is empty).',
    turns: [[{ blocks: [], stop: 'end_turn' }, text('Hello.')]],
  },
  'silent-after-tool': {
    // After the tool result, a finish with no visible text: NO_TOOL_RESULT_PROGRESS, retried.
    prompt: 'Read README.md and summarise it (the first summary is empty).',
    turns: [
      [{ blocks: [{ ...readReadme, id: 'toolu_01ReadSilent' }], stop: 'tool_use' }],
      [{ blocks: [], stop: 'end_turn' }, text('It says hello.')],
    ],
  },
  'always-silent-after-tool': {
    // Silent after the tool result on every attempt: after the retries, accepted (Qwen 0.24.4, #9026).
    prompt: 'Read README.md and say nothing.',
    turns: [
      [{ blocks: [{ ...readReadme, id: 'toolu_01ReadQuiet' }], stop: 'tool_use' }],
      [{ blocks: [], stop: 'end_turn' }],
    ],
  },
};

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (id) => (providerKind === 'openai' ? openaiCallId(id) : id);

  describe(`streams without an answer: ${providerKind}`, () => {
    let provider;
    let agent;

    before(async () => {
      provider = await startProvider({ speed: 50, scenarios });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 5,
        extraArgs: ['--approve=always'],
      });
    });
    // Every message the agent wrote, responses and errors included, is valid ACP v1.
    after(() => closeChecked(agent, provider));

    /** A scenario's outcome, plus everything the agent said in its message chunks. */
    async function run(name) {
      const result = await runScenario(agent, provider, scenarios, name, await workspace());
      const said = result.updates
        .map((e) => e.update)
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.content.text)
        .join('');
      return { ...result, said };
    }

    if (providerKind === 'anthropic') {
      it('an empty stream is asked again without streaming, and that answer is used (a call that runs)', async () => {
        const { response, requests, updates, said } = await run('empty-then-call');
        assert.equal(response?.stopReason, 'end_turn');
        assert.deepEqual(
          requests.map((r) => [r.turn, r.body.stream ?? 'no stream key']),
          [
            [0, true],
            [0, 'no stream key'],
            [1, true],
          ],
        );
        // The same request, only without `stream` (Qwen sends the same anthropicRequest).
        const { stream, ...streamed } = requests[0].body;
        assert.deepEqual(requests[1].body, streamed);
        // No preparation on the non-streaming path: the card opens running, with the call, and ends.
        assert.deepEqual(framesOf(updates, 'toolu_01ReadAfterEmpty').map(shape), [
          'tool_call:in_progress',
          'tool_call_update:completed',
        ]);
        // The tool's result went to the model.
        assert.ok(JSON.stringify(requests[2].body.messages).includes('Hello.'));
        assert.equal(said, 'README.md says hello.');
        // Nothing was retried: the fallback is part of the attempt.
        assert.equal(updates.filter((u) => u._meta?.preparationDiscarded).length, 0);
      });

      it("the non-streaming answer's error is the attempt's error: a 529 is retried", async () => {
        const { response, requests, said } = await run('empty-then-overloaded');
        assert.equal(response?.stopReason, 'end_turn');
        assert.deepEqual(
          requests.map((r) => [r.attempt, r.body.stream ?? 'no stream key', r.status]),
          [
            [0, true, 200],
            [1, 'no stream key', 529],
            [2, true, 200],
          ],
        );
        assert.equal(said, 'Hello after the overload.');
      });
    }

    it('a finish without text is retried (NO_RESPONSE_TEXT)', async () => {
      const { response, requests, said } = await run('finish-without-text');
      assert.equal(response?.stopReason, 'end_turn');
      assert.deepEqual(
        requests.map((r) => [r.turn, r.attempt]),
        [
          [0, 0],
          [0, 1],
        ],
      );
      assert.equal(said, 'Hello.');
    });

    it('a finish without visible text after a tool result is retried (NO_TOOL_RESULT_PROGRESS)', async () => {
      const { response, requests, updates, said } = await run('silent-after-tool');
      assert.equal(response?.stopReason, 'end_turn');
      assert.deepEqual(
        requests.map((r) => [r.turn, r.attempt]),
        [
          [0, 0],
          [1, 0],
          [1, 1],
        ],
      );
      assert.equal(framesOf(updates, callId('toolu_01ReadSilent')).at(-1).status, 'completed');
      assert.equal(said, 'It says hello.');
    });

    it('silent after a tool result on every attempt: accepted after the retries (Qwen 0.24.4)', async () => {
      const { response, requests, said } = await run('always-silent-after-tool');
      assert.equal(response?.stopReason, 'end_turn');
      // The tool turn, then the first attempt and four retries.
      assert.deepEqual(
        requests.map((r) => r.turn),
        [0, 1, 1, 1, 1, 1],
      );
      assert.equal(said, '');
    });
  });
}
