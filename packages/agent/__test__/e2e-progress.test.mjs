// End to end: live progress on preparing cards, as an editor receives it.
// bin/agent.js over real stdio pipes, the official ACP SDK client, the real
// provider SDKs against the loopback provider, whose write_file arguments
// stream over several seconds with two pauses: one with keep-alives on the
// connection, one without a byte. The card counts up while bytes arrive,
// says it waits for the model during the first pause and for the provider
// during the second, never shows a byte of the arguments, and gets no frame
// before its card, after its start, or after a discard or cancel.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent } from '../demo/harness.mjs';
import { scenarios } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { workspaces, framesOf, progressOf, shape, closeChecked, runScenario } from './helpers/e2e.mjs';

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-progress-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

/** Shorter than the scenario's 2.6 s pauses, so each is announced. */
const STALL_MS = 1200;

/** Pieces of the argument values that must never appear in a progress frame. */
const SECRETS = ['value-1', 'export const', 'src/table.js', 'expected'];

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`live progress on preparing cards: ${providerKind}`, () => {
    let provider;
    let agent;

    before(async () => {
      provider = await startProvider({ speed: 1 });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 5,
        extraArgs: ['--approve=always', '--progress-stall-ms', String(STALL_MS)],
      });
    });
    after(() => closeChecked(agent, provider));

    it('the card counts the arguments up, says why it waits, and shows none of them', async () => {
      const id = callId('toolu_01WriteTable');
      const { response, updates } = await runScenario(agent, provider, scenarios, 'progress-pauses', await workspace());
      assert.equal(response.stopReason, 'end_turn');
      const lifecycle = framesOf(updates, id);
      assert.deepEqual(lifecycle.map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      // ACP's name on the card's tool_call, beside the _meta keys Zed and Qwen read; the start keeps it.
      assert.deepEqual(
        [lifecycle[0].name, lifecycle[0]._meta.toolName, lifecycle[0]._meta.tool_name],
        ['write_file', 'write_file', 'write_file'],
      );
      assert.equal('name' in lifecycle[1], false);
      const all = updates.map((e) => e.update).filter((u) => u.toolCallId === id);
      const progress = progressOf(updates, id);
      assert.ok(progress.length >= 6, `progress frames: ${progress.length}`);
      // Only between the preparing frame and the start.
      const first = all.indexOf(progress[0]);
      const last = all.indexOf(progress.at(-1));
      assert.ok(first > all.indexOf(lifecycle[0]), 'none before the card');
      assert.ok(last < all.indexOf(lifecycle[1]), 'none after the start');

      const complete = Buffer.byteLength(JSON.stringify(scenarios['progress-pauses'].turns[0][0].blocks[0].input));
      let previous = { argumentBytes: 0, argumentLines: 0 };
      for (const frame of progress) {
        const text = JSON.stringify(frame);
        for (const secret of SECRETS) assert.ok(!text.includes(secret), `a progress frame shows "${secret}"`);
        assert.deepEqual(Object.keys(frame), ['sessionUpdate', 'toolCallId', 'title', '_meta']);
        // Only what changes: the card keeps the name its tool_call gave it.
        assert.deepEqual(Object.keys(frame._meta), ['phase', 'progress']);
        const { phase, progress: p } = frame._meta;
        assert.equal(phase, 'preparing');
        assert.ok(p.argumentBytes >= previous.argumentBytes && p.argumentLines >= previous.argumentLines);
        assert.ok(p.argumentBytes <= complete, 'never more than the complete arguments');
        assert.ok(p.elapsedMs >= 0 && p.idleMs >= 0);
        previous = p;
        if (p.stalled === undefined) assert.match(frame.title, /^WriteFile · receiving [\d.]+ (B|KB)(, \d+ lines?)?$/);
      }
      assert.ok(previous.argumentLines > 0, 'the line breaks of the content are counted');
      // The two pauses, each announced once the stall time passed, in words too.
      const stalls = progress.filter((f) => f._meta.progress.stalled);
      const model = stalls.filter((f) => f._meta.progress.stalled === 'model');
      const connection = stalls.filter((f) => f._meta.progress.stalled === 'connection');
      assert.ok(model.length >= 1, 'the pause with keep-alives is the model waiting');
      assert.ok(connection.length >= 1, 'the silent pause is the connection');
      assert.ok(all.indexOf(model[0]) < all.indexOf(connection[0]));
      // Each names when the agent gives up: its stall watchdog, 240 s by default (--stall-timeout-ms).
      for (const f of model)
        assert.match(f.title, /^WriteFile · waiting for the model, \d+ s \(the agent gives up at 240 s\)$/);
      for (const f of connection)
        assert.match(f.title, /^WriteFile · no data from the provider, \d+ s \(the agent gives up at 240 s\)$/);
      for (const f of stalls) {
        assert.ok(f._meta.progress.idleMs >= STALL_MS);
        assert.equal(f._meta.progress.idleLimitMs, 240_000);
      }
      // After each pause the count goes on.
      const after = progress.slice(progress.indexOf(connection.at(-1)) + 1);
      assert.ok(after.some((f) => f._meta.progress.stalled === undefined));
    });

    it('session/cancel while the card counts: its discard is the last frame it gets', async () => {
      const id = callId('toolu_01WriteFixtures');
      const sessionId = await agent.newSession(await workspace());
      let cancelled = false;
      const onUpdate = (e) => {
        if (e.sessionId !== sessionId || cancelled) return;
        if (e.update.toolCallId === id && e.update._meta?.progress) {
          cancelled = true;
          agent.cancel(sessionId);
        }
      };
      agent.events.on('update', onUpdate);
      let response;
      try {
        response = await agent.prompt(sessionId, scenarios['cancel-mid-arguments'].prompt);
      } finally {
        agent.events.off('update', onUpdate);
      }
      assert.equal(response.stopReason, 'cancelled');
      // Longer than a progress interval: a frame still due would have come by now.
      await new Promise((r) => setTimeout(r, 600));
      const card = agent
        .updates(sessionId)
        .map((e) => e.update)
        .filter((u) => u.toolCallId === id);
      assert.ok(
        card.some((u) => u._meta?.progress),
        'the card counted before the cancel',
      );
      assert.equal(card.at(-1)._meta?.preparationDiscarded, true, 'the discard is the last frame');
      assert.equal(card.filter((u) => u._meta?.preparationDiscarded).length, 1);
      // It says why, in the title an editor shows and in _meta.
      assert.equal(card.at(-1).title, 'WriteFile · not run: cancelled');
      assert.equal(card.at(-1)._meta.discardReason, 'cancel');
      assert.equal(card.at(-1).status, 'failed');
    });

    it('a retry in the middle of the arguments: each card of the abandoned attempt ends with its discard', async () => {
      const { response, updates } = await runScenario(
        agent,
        provider,
        scenarios,
        'overloaded-retry',
        await workspace(),
      );
      assert.equal(response.stopReason, 'end_turn');
      for (const raw of ['toolu_01ReadPackageJson', 'toolu_01ListSrc']) {
        const card = updates.map((e) => e.update).filter((u) => u.toolCallId === callId(raw));
        const discard = card.findIndex((u) => u._meta?.preparationDiscarded);
        assert.ok(discard > 0, `${raw} was discarded`);
        assert.match(card[discard].title, / · not run: the request is being retried$/);
        assert.equal(card[discard]._meta.discardReason, 'retry');
        assert.equal(
          card[discard + 1]?.sessionUpdate,
          'tool_call',
          'the next frame is the retry opening the card again',
        );
      }
    });
  });
}

/** A C0 or C1 control, or a bidirectional formatting character: what no title shows. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A tool name of 4 MiB that tries to restyle, reorder and break a client's lines. */
const HOSTILE_NAME = `\u001b[2J\u001b]0;owned\u0007\u202egnp.exe\u2066\r\n${'w'.repeat(4 << 20)}`;
const hostileScenario = {
  'hostile-name': {
    prompt: 'Write the notes to notes.md.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: 'toolu_01HostileName',
              name: HOSTILE_NAME,
              input: { path: 'notes.md', content: 'a line of notes\n'.repeat(300) },
              pauses: [{ fraction: 0.5, ms: 8000, keepAlive: true }],
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'That tool does not exist.' }], stop: 'end_turn' }],
    ],
  },
};

for (const providerKind of ['anthropic', 'openai']) {
  describe(`a 4 MiB hostile tool name with keep-alives: ${providerKind}`, () => {
    let provider;
    let agent;
    before(async () => {
      provider = await startProvider({ speed: 4, scenarios: hostileScenario });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 5,
        extraArgs: ['--approve=always', '--progress-stall-ms', String(STALL_MS)],
      });
    });
    after(() => closeChecked(agent, provider));

    it('every line to the client stays small, titles printable, the name cut; the card fails as an unknown tool', async () => {
      const id = providerKind === 'openai' ? openaiCallId('toolu_01HostileName') : 'toolu_01HostileName';
      const { response, sessionId, updates } = await runScenario(
        agent,
        provider,
        hostileScenario,
        'hostile-name',
        await workspace(),
      );
      assert.equal(response.stopReason, 'end_turn');
      const cut = `${HOSTILE_NAME.slice(0, 119)}…`;
      let total = 0;
      for (const { msg } of agent.wire) {
        if (msg.params?.sessionId !== sessionId) continue;
        const bytes = Buffer.byteLength(JSON.stringify(msg)) + 1;
        assert.ok(bytes < 4096, `a ${bytes}-byte ${msg.method} line: ${JSON.stringify(msg).slice(0, 200)}`);
        total += bytes;
        const update = msg.params.update ?? msg.params.toolCall;
        if (update?.title !== undefined) assert.doesNotMatch(update.title, UNPRINTABLE);
        for (const name of [update?.name, update?._meta?.toolName, update?._meta?.tool_name]) {
          if (name !== undefined) assert.equal(name, cut);
        }
      }
      assert.ok(total < 256 << 10, `${total} bytes to the client`);
      const lifecycle = framesOf(updates, id);
      assert.deepEqual(lifecycle.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.equal(lifecycle[0].name, cut);
      assert.equal(lifecycle[0].title, `[2J]0;ownedgnp.exe  ${'w'.repeat(99)}…`);
      assert.equal(
        lifecycle[1].content[0].content.text,
        `Tool "[2J]0;ownedgnp.exe${'w'.repeat(94)}…" not found in registry.`,
      );
      const progress = progressOf(updates, id);
      assert.ok(
        progress.some((f) => f._meta.progress.stalled === 'model'),
        'the pause with keep-alives is announced',
      );
    });
  });
}

describe('--no-progress', () => {
  let provider;
  let agent;
  before(async () => {
    provider = await startProvider({ speed: 4 });
    agent = await launchAgent({
      provider: 'anthropic',
      providerUrl: provider.url,
      retryDelayMs: 5,
      extraArgs: ['--approve=always', '--no-progress'],
    });
  });
  after(() => closeChecked(agent, provider));

  it('keeps the card as it opened until its call starts', async () => {
    const { response, updates } = await runScenario(agent, provider, scenarios, 'large-write', await workspace());
    assert.equal(response.stopReason, 'end_turn');
    const tool = updates.map((e) => e.update).filter((u) => u.toolCallId === 'toolu_01WriteDesignNotes');
    assert.deepEqual(tool.map(shape), [
      'tool_call:pending',
      'tool_call_update:in_progress',
      'tool_call_update:completed',
    ]);
  });
});
