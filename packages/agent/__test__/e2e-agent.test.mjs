// End to end: the real @anthropic-ai/sdk / openai clients inside bin/agent.js
// (a child process over real stdio pipes) against the loopback provider
// replaying recorded streams, driven by a real ACP client (the SDK's client()
// app). Every session/update is checked against the ACP JSON schema v1 and the
// card invariants (docs/behaviour.md §5.5, §6.2–§6.6), and each scenario's lifecycle is
// asserted frame by frame.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent, AGENT_PATH } from '../demo/harness.mjs';
import { scenarios, designDocument } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { sessionNotificationErrors } from '../demo/schema.mjs';
import { workspaces, assertCardInvariants, framesOf, shape, assertWireValid } from './helpers/e2e.mjs';

// The recorded pacing, 20× faster; the large write at 4× so that its ~0.9 s
// of arguments leave a clear margin for the card-before-arguments check.
const SPEED = 20;
const SCENARIO_SPEED = { 'large-write': 4 };

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));

const workspace = workspaces(tmpRoot);

describe('agent command line', () => {
  const runAgent = (args, env) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [AGENT_PATH, ...args], {
        env: { ...process.env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('refuses to start without the provider key, saying which variable is missing', async () => {
    const anthropic = await runAgent(['--provider', 'anthropic']);
    assert.equal(anthropic.code, 1);
    assert.match(anthropic.stderr, /ANTHROPIC_API_KEY is not set/);
    assert.equal(anthropic.stdout, '', 'stdout carries ACP only');
    const openai = await runAgent(['--provider', 'openai']);
    assert.match(openai.stderr, /OPENAI_API_KEY is not set/);
  });

  it('rejects an unknown --approve value, and lists the options in --help', async () => {
    const bad = await runAgent(['--provider', 'anthropic', '--approve', 'sometimes'], { ANTHROPIC_API_KEY: 'k' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--approve must be ask or always, not sometimes/);
    const help = await runAgent(['--help']);
    assert.equal(help.code, 0);
    for (const flag of ['--approve', '--fallback-model', '--stall-timeout-ms'])
      assert.ok(help.stdout.includes(flag), flag);
  });

  it('rejects an unknown provider', async () => {
    const { code, stderr } = await runAgent(['--provider', 'gemini'], { ANTHROPIC_API_KEY: 'k' });
    assert.equal(code, 1);
    assert.match(stderr, /--provider must be anthropic or openai/);
  });
});

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`e2e over stdio: ${providerKind}`, () => {
    let provider;
    let agent;

    before(async () => {
      provider = await startProvider({ speed: SPEED, scenarioSpeed: SCENARIO_SPEED });
      // These scenarios are about cards, not approval: nothing asks (e2e-permission covers asking).
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always'],
      });
    });
    after(async () => {
      const exit = await agent?.close();
      await provider?.close();
      assert.equal(exit?.code, 0, `agent exit code (stderr: ${agent?.stderr})`);
    });

    /** Runs a scenario prompt in a new session; returns everything observed. */
    async function run(name, { cwd, onUpdate } = {}) {
      cwd ??= await workspace();
      const sessionId = await agent.newSession(cwd);
      const listener = (e) => e.sessionId === sessionId && onUpdate?.(e, sessionId);
      agent.events.on('update', listener);
      let response;
      try {
        response = await agent.prompt(sessionId, scenarios[name].prompt);
      } finally {
        agent.events.off('update', listener);
      }
      const updates = agent.updates(sessionId);
      for (const e of updates) {
        const errors = sessionNotificationErrors({ sessionId: e.sessionId, update: e.update });
        assert.equal(errors, null, `invalid session/update ${JSON.stringify(e.update).slice(0, 300)}`);
      }
      assertCardInvariants(updates);
      return {
        cwd,
        sessionId,
        response,
        updates,
        // cwd as it appears inside JSON: a Windows path's backslashes are escaped there.
        requests: provider.requests.filter(
          (r) => r.scenario === name && JSON.stringify(r.body).includes(JSON.stringify(cwd).slice(1, -1)),
        ),
      };
    }

    it('initialize answers with the protocol version and agent info', () => {
      assert.equal(agent.init.protocolVersion, 1);
      assert.equal(agent.init.agentInfo.name, 'toolcall-stream-agent');
    });

    it('a large write_file: card pending at tool start, in_progress with the full arguments, then completed', async () => {
      const id = callId('toolu_01WriteDesignNotes');
      let argsComplete;
      const onFrame = ({ note, at }) => note.argsComplete && note.id === id && (argsComplete ??= at);
      provider.events.on('frame', onFrame);
      let result;
      try {
        result = await run('large-write');
      } finally {
        provider.events.off('frame', onFrame);
      }
      const { cwd, response, updates, requests } = result;
      assert.equal(response.stopReason, 'end_turn');

      const frames = framesOf(updates, id);
      assert.deepEqual(frames.map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      const [preparing, started, finished] = frames;
      assert.deepEqual(preparing.rawInput, {});
      assert.equal(preparing.title, 'WriteFile');
      assert.equal(preparing.kind, 'edit');
      assert.equal(preparing._meta.phase, 'preparing');
      assert.equal(preparing._meta.toolName, 'write_file');
      assert.deepEqual(started.rawInput, { path: 'docs/design.md', content: designDocument() });
      assert.equal(started.title, 'WriteFile: docs/design.md');
      assert.deepEqual(
        started.locations.map((l) => l.path),
        [path.join(cwd, 'docs/design.md')],
      );
      assert.equal(started._meta.phase, undefined);
      assert.deepEqual(finished.content, [
        // A new file: oldText "" (Qwen Code's write_file diff, `originalContent ?? ""`).
        { type: 'diff', path: path.join(cwd, 'docs/design.md'), oldText: '', newText: designDocument() },
      ]);

      // The point of it all: the card was on screen before the arguments finished streaming.
      const cardAt = updates.find((e) => e.update === preparing).at;
      assert.ok(argsComplete, 'the provider sent the complete call');
      assert.ok(
        cardAt < argsComplete,
        `card at ${cardAt.toFixed(1)} ms, arguments complete at ${argsComplete.toFixed(1)} ms`,
      );

      // Thought and text frames came through, thought first.
      const kinds = updates.map((e) => e.update.sessionUpdate);
      assert.ok(
        kinds.indexOf('agent_thought_chunk') >= 0 &&
          kinds.indexOf('agent_thought_chunk') < kinds.indexOf('agent_message_chunk'),
      );

      assert.equal(await fs.readFile(path.join(cwd, 'docs/design.md'), 'utf8'), designDocument());

      // The model got the call back with its result, in the provider's own format.
      assert.equal(requests.length, 2);
      const followUp = requests[1].body.messages;
      if (providerKind === 'anthropic') {
        const assistant = followUp.at(-2);
        assert.equal(assistant.role, 'assistant');
        assert.deepEqual(assistant.content.at(-1), {
          type: 'tool_use',
          id,
          name: 'write_file',
          input: { path: 'docs/design.md', content: designDocument() },
        });
        const [toolResult] = followUp.at(-1).content;
        assert.equal(toolResult.type, 'tool_result');
        assert.equal(toolResult.tool_use_id, id);
        assert.match(toolResult.content, /^Wrote \d+ bytes to docs\/design\.md\.$/);
      } else {
        const assistant = followUp.at(-2);
        assert.equal(assistant.role, 'assistant');
        assert.equal(assistant.tool_calls[0].id, id);
        assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), {
          path: 'docs/design.md',
          content: designDocument(),
        });
        assert.equal(followUp.at(-1).role, 'tool');
        assert.equal(followUp.at(-1).tool_call_id, id);
        assert.match(followUp.at(-1).content, /^Wrote \d+ bytes/);
      }
    });

    it('an overloaded_error mid-arguments: cards discarded (preparationDiscarded), prepared again on the retry, each call run once', async () => {
      const { response, updates, requests } = await run('overloaded-retry');
      assert.equal(response.stopReason, 'end_turn');
      assert.deepEqual(
        requests.map((r) => [r.turn, r.attempt]),
        [
          [0, 0],
          [0, 1],
          [1, 0],
        ],
      );
      for (const id of [callId('toolu_01ReadPackageJson'), callId('toolu_01ListSrc')]) {
        const frames = framesOf(updates, id);
        assert.deepEqual(frames.map(shape), [
          'tool_call:pending',
          'tool_call_update:failed:discarded',
          'tool_call:pending',
          'tool_call_update:in_progress',
          'tool_call_update:completed',
        ]);
        const discarded = frames[1];
        assert.deepEqual(discarded.content, []);
        assert.equal(discarded._meta.phase, 'preparing');
        assert.equal(discarded._meta.preparationDiscarded, true);
        assert.equal(discarded.rawInput, undefined);
      }
      // Both discards precede the first card of the retry.
      const tools = updates.map((e) => e.update).filter((u) => u.toolCallId && !u._meta?.progress);
      assert.deepEqual(tools.slice(0, 4).map(shape), [
        'tool_call:pending',
        'tool_call:pending',
        'tool_call_update:failed:discarded',
        'tool_call_update:failed:discarded',
      ]);
      // The abandoned attempt's calls were not executed in addition: one result per call reached the model.
      const last = requests[2].body.messages;
      if (providerKind === 'anthropic')
        assert.equal(last.at(-1).content.filter((b) => b.type === 'tool_result').length, 2);
      else assert.equal(last.filter((m) => m.role === 'tool').length, 2);
    });

    it('HTTP 529 before the stream: retried, one card, no discard', async () => {
      const { response, updates, requests } = await run('http-529');
      assert.equal(response.stopReason, 'end_turn');
      assert.deepEqual(
        requests.map((r) => r.status),
        [529, 200, 200],
      );
      assert.deepEqual(framesOf(updates, callId('toolu_01ReadReadme')).map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
    });

    it('session/cancel in the middle of the arguments: card discarded, HTTP request aborted, stopReason cancelled, session still usable', async () => {
      const id = callId('toolu_01WriteFixtures');
      const cwd = await workspace();
      const { response, updates, sessionId, requests } = await run('cancel-mid-arguments', {
        cwd,
        onUpdate: (e, sid) => {
          if (e.update.sessionUpdate === 'tool_call' && e.update.toolCallId === id) agent.cancel(sid);
        },
      });
      assert.equal(response.stopReason, 'cancelled');
      assert.deepEqual(framesOf(updates, id).map(shape), ['tool_call:pending', 'tool_call_update:failed:discarded']);
      assert.equal(requests.length, 1, 'no follow-up model request after the cancel');
      for (let i = 0; i < 100 && !requests[0].aborted; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(requests[0].aborted, true, 'the provider saw the request aborted mid-stream');
      assert.equal(requests[0].completed, false);
      await assert.rejects(fs.stat(path.join(cwd, 'test/fixtures.js')), { code: 'ENOENT' });

      // The same session takes another prompt, with a history the provider accepts.
      const next = await agent.prompt(sessionId, scenarios['http-529'].prompt);
      assert.equal(next.stopReason, 'end_turn');
      assertCardInvariants(agent.updates(sessionId));
    });

    it('paths outside the cwd: failed cards with a clear message and no start frame (an early failure), is_error results to the model', async () => {
      const { cwd, response, updates, requests } = await run('outside-cwd');
      assert.equal(response.stopReason, 'end_turn');
      for (const [raw, p] of [
        ['toolu_01ReadEtc', '/etc/hostname'],
        ['toolu_01ReadParent', '../secret.txt'],
      ]) {
        const frames = framesOf(updates, callId(raw));
        // Qwen's tool.build() refuses the path before the call starts: no in_progress frame.
        assert.deepEqual(frames.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
        const failed = frames.at(-1);
        assert.equal(
          failed._meta.preparationDiscarded,
          undefined,
          'a refused call is a tool failure, not a discarded preparation',
        );
        const text = failed.content[0].content.text;
        assert.ok(text.includes(`"${p}" is outside the session's working directory (${cwd})`), text);
      }
      const followUp = requests[1].body.messages;
      if (providerKind === 'anthropic') {
        const results = followUp.at(-1).content;
        assert.deepEqual(
          results.map((r) => r.is_error),
          [true, true],
        );
        assert.ok(!results.some((r) => r.content.includes('do not read')));
      } else {
        const results = followUp.filter((m) => m.role === 'tool');
        assert.equal(results.length, 2);
        assert.ok(results.every((r) => r.content.startsWith('Refused:')));
      }
    });

    it('todo_write: a plan update and no card; the next call still gets its card', async () => {
      const { response, updates, requests } = await run('todo-plan');
      assert.equal(response.stopReason, 'end_turn');
      assert.deepEqual(framesOf(updates, callId('toolu_01TodoWrite')), [], 'todo_write never gets a card');
      const plans = updates.map((e) => e.update).filter((u) => u.sessionUpdate === 'plan');
      assert.deepEqual(plans, [
        {
          sessionUpdate: 'plan',
          entries: [
            { content: 'Read the current sources', priority: 'medium', status: 'in_progress' },
            { content: 'Extract the parser into its own module', priority: 'medium', status: 'pending' },
            { content: 'Update the tests', priority: 'medium', status: 'pending' },
          ],
        },
      ]);
      assert.deepEqual(framesOf(updates, callId('toolu_01ListSrcPlan')).map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      const followUp = JSON.stringify(requests[1].body.messages);
      assert.ok(followUp.includes('Todo list updated (3 items).'));
    });

    it('a provider id reused in a later turn gets its own card (__qwen_dup_2), consistently in history', async () => {
      const id = callId('toolu_01Same');
      const dup = `${id}__qwen_dup_2`;
      const { response, updates, requests } = await run('reused-id');
      assert.equal(response.stopReason, 'end_turn');
      for (const [cardId, file] of [
        [id, 'README.md'],
        [dup, 'package.json'],
      ]) {
        const frames = framesOf(updates, cardId);
        assert.deepEqual(frames.map(shape), [
          'tool_call:pending',
          'tool_call_update:in_progress',
          'tool_call_update:completed',
        ]);
        assert.deepEqual(frames[1].rawInput, { path: file });
      }
      const history = requests[2].body.messages;
      const callIds =
        providerKind === 'anthropic'
          ? history
              .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
              .filter((b) => b.type === 'tool_use')
              .map((b) => b.id)
          : history.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
      const resultIds =
        providerKind === 'anthropic'
          ? history
              .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
              .filter((b) => b.type === 'tool_result')
              .map((b) => b.tool_use_id)
          : history.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
      assert.deepEqual(callIds, [id, dup]);
      assert.deepEqual(resultIds, [id, dup]);
    });

    it('every message on the wire (updates, responses) validates against the ACP schema v1', () => {
      assertWireValid(agent);
      const all = agent.wire.filter((e) => e.msg.method === 'session/update');
      assert.ok(all.length > 50, `saw ${all.length} session/update notifications`);
      for (const e of all)
        assert.equal(sessionNotificationErrors(e.msg.params), null, JSON.stringify(e.msg.params).slice(0, 300));
      assert.ok(
        !agent.wire.some((e) => e.msg.error),
        `no JSON-RPC error responses: ${JSON.stringify(agent.wire.find((e) => e.msg.error)?.msg)}`,
      );
    });
  });
}
