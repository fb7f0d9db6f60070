// End to end, judged by what a Zed user reads: toolcall-stream-agent over real
// stdio pipes, the official ACP SDK as the client's transport, the real
// Anthropic SDK inside the agent against the loopback provider, and every
// session/update and permission request fed, in wire order, into a model of
// Zed's tool-card rules (__test__/helpers/zed-card-view.mjs, each rule cited
// from Zed's acp_thread.rs). Every scenario of the demo runs; the tests
// assert the card's label and status word at each step: the large write
// counting up, both stalls naming the agent's idle limit, a retry, a model
// fallback, a cut stream and a Stop in the middle of a card each saying why
// the call did not run, a permission allowed and rejected, and completions.
// The tool name is checked as this Zed reads it (`_meta.tool_name`, at
// creation) and as a client reading ACP's standard `name` would.
//
// TOOLCALL_STREAM_ZED_VIEW_BREAK=title|status|name|progress feeds the model
// frames with that part removed (a deliberately broken agent): each
// assertion here fails under at least one of them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent } from '../demo/harness.mjs';
import { scenarios, FALLBACK_MODEL } from '../demo/scenarios.mjs';
import { workspaces, closeChecked } from './helpers/e2e.mjs';
import { ZedThread, brokenFrame } from '../../../__test__/helpers/zed-card-view.mjs';

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-zed-view-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

/** Shorter than the 2.6 s pauses of progress-pauses, so each is announced. */
const PROGRESS_STALL_MS = 1200;
/** The agent's idle limit: longer than those pauses, short enough for the stalled scenario to give up. */
const STALL_TIMEOUT_MS = 4000;
const GIVES_UP = ` gives up at ${STALL_TIMEOUT_MS / 1000} s)`;

/** A label that counts arguments: its bytes (KB as bytes), or null. */
function counted(text) {
  const m = text.match(/^WriteFile · receiving ([\d.]+) (B|KB)(?:, \d+ lines?)? \[Pending\]$/);
  return m ? Number(m[1]) * (m[2] === 'KB' ? 1024 : 1) : null;
}

/** A discarded card: the tool's title, why it did not run, and Failed (Zed has no status for a call never run). */
const notRun = (title, why) => `${title} · not run: ${why} [Failed]`;

/**
 * Routes one agent's traffic into a ZedThread per session (and a second one
 * that reads ACP's `name`), and answers permission requests as the user would:
 * Zed's `authorize_tool_call` first, then the reply on the wire.
 */
function zedClient(agent) {
  const threads = new Map();
  agent.events.on('message', ({ msg }) => {
    const pair = threads.get(msg.params?.sessionId);
    if (!pair) return;
    if (msg.method === 'session/update') {
      const update = brokenFrame(msg.params.update);
      if (update) for (const zed of pair) zed.sessionUpdate(update);
    } else if (msg.method === 'session/request_permission') {
      const toolCall = brokenFrame({ sessionUpdate: 'tool_call_update', ...msg.params.toolCall });
      for (const zed of pair) zed.requestPermission(toolCall);
    }
  });
  return {
    /** A session in a fresh workspace; prompts `name`; the Zed view (meta rule), the one reading `name`, the outcome. */
    async run(name, { onUpdate } = {}) {
      const sessionId = await agent.newSession(await workspace());
      const pair = [new ZedThread(), new ZedThread({ nameFrom: 'acp' })];
      threads.set(sessionId, pair);
      const listener = (e) => e.sessionId === sessionId && onUpdate?.(e, { sessionId, zed: pair });
      agent.events.on('update', listener);
      const outcome = await agent.prompt(sessionId, scenarios[name].prompt).then(
        (response) => ({ response }),
        (error) => ({ error }),
      );
      agent.events.off('update', listener);
      for (const zed of pair) zed.stopped(outcome.response?.stopReason);
      return { ...outcome, zed: pair[0], acpNamed: pair[1], sessionId };
    },
    /** The user's answer to a permission request: Zed records it on the card, then the agent gets it. */
    answer(kind) {
      return (params) => {
        const pair = threads.get(params.sessionId) ?? [];
        for (const zed of pair) zed.authorize(params.toolCall.toolCallId, kind);
        const option = params.options.find((o) => o.kind === kind);
        return { outcome: { outcome: 'selected', optionId: option.optionId } };
      };
    },
  };
}

describe('what a Zed user reads on the agent’s cards: anthropic', () => {
  let provider;
  let agent;
  let asking;
  let client;
  let askingClient;
  let answer = 'allow_once';

  before(async () => {
    provider = await startProvider({
      speed: 20,
      scenarioSpeed: { 'large-write': 4, 'cancel-mid-arguments': 4, 'progress-pauses': 1, 'pause-mid-arguments': 2.5 },
    });
    [agent, asking] = await Promise.all([
      launchAgent({
        provider: 'anthropic',
        providerUrl: provider.url,
        retryDelayMs: 5,
        extraArgs: [
          '--approve=always',
          '--progress-stall-ms',
          String(PROGRESS_STALL_MS),
          '--stall-timeout-ms',
          String(STALL_TIMEOUT_MS),
          '--model',
          'replay-primary',
          '--fallback-model',
          FALLBACK_MODEL,
        ],
      }),
      launchAgent({
        provider: 'anthropic',
        providerUrl: provider.url,
        retryDelayMs: 5,
        permission: (params) => askingClient.answer(answer)(params),
      }),
    ]);
    client = zedClient(agent);
    askingClient = zedClient(asking);
  });
  after(async () => {
    await closeChecked(asking);
    await closeChecked(agent, provider);
  });

  it('large-write: the card counts the arguments up, then runs and completes; the name is write_file', async () => {
    const { response, zed, acpNamed } = await client.run('large-write');
    assert.equal(response.stopReason, 'end_turn');
    const shown = zed.history('toolu_01WriteDesignNotes');
    assert.equal(shown[0], 'WriteFile [Pending]');
    const counts = shown.map(counted).filter((n) => n !== null);
    assert.ok(counts.length >= 2, `counting up: ${JSON.stringify(shown)}`);
    for (let i = 1; i < counts.length; i++) assert.ok(counts[i] > counts[i - 1], 'each count is larger');
    assert.deepEqual(shown.slice(-2), [
      'WriteFile: docs/design.md [In Progress]',
      'WriteFile: docs/design.md [Completed]',
    ]);
    assert.equal(zed.cardsOf('toolu_01WriteDesignNotes').length, 1, 'one card');
    assert.equal(zed.cardsOf('toolu_01WriteDesignNotes')[0].toolName, 'write_file', "Zed's _meta.tool_name");
    assert.equal(acpNamed.cardsOf('toolu_01WriteDesignNotes')[0].toolName, 'write_file', "ACP's name");
  });

  it('progress-pauses: both stalls say how long, why, and when the agent gives up; then it counts on and completes', async () => {
    const { response, zed } = await client.run('progress-pauses');
    assert.equal(response.stopReason, 'end_turn');
    const shown = zed.history('toolu_01WriteTable');
    const model = shown.findIndex((t) => t.startsWith('WriteFile · waiting for the model, '));
    const silent = shown.findIndex((t) => t.startsWith('WriteFile · no data from the provider, '));
    assert.ok(model > 0 && silent > model, `the pause with keep-alives, then the silent one: ${JSON.stringify(shown)}`);
    for (const t of shown.filter((s) => / · (waiting for the model|no data from the provider), /.test(s)))
      assert.match(
        t,
        /^WriteFile · (waiting for the model|no data from the provider), \d+ s \([^()]+ gives up at 4 s\) \[Pending\]$/,
      );
    assert.ok(
      shown.slice(silent).some((t) => counted(t) !== null),
      'counting again after the pauses',
    );
    assert.equal(shown.at(-1), 'WriteFile: src/table.js [Completed]');
  });

  it('pause-mid-arguments: the same, at the demo’s own pacing', async () => {
    const { response, zed } = await client.run('pause-mid-arguments');
    assert.equal(response.stopReason, 'end_turn');
    const shown = zed.history('toolu_01WritePaused');
    assert.ok(
      shown.some((t) => t.startsWith('WriteFile · waiting for the model, ') && t.includes(GIVES_UP)),
      JSON.stringify(shown),
    );
    assert.ok(
      shown.some((t) => t.startsWith('WriteFile · no data from the provider, ') && t.includes(GIVES_UP)),
      JSON.stringify(shown),
    );
    assert.equal(shown.at(-1), 'WriteFile: src/tokens.js [Completed]');
  });

  it('stall-mid-arguments: the card that waited past the limit says so, and the retry completes on the same card', async () => {
    const { response, zed } = await client.run('stall-mid-arguments');
    assert.equal(response.stopReason, 'end_turn');
    const shown = zed.history('toolu_01WriteStalled');
    assert.ok(
      shown.some((t) => t.startsWith('WriteFile · waiting for the model, ') && t.includes(GIVES_UP)),
      JSON.stringify(shown),
    );
    assert.ok(shown.includes(notRun('WriteFile', `no data for ${STALL_TIMEOUT_MS / 1000} s`)), JSON.stringify(shown));
    // Zed's upsert_tool_call: the retry's tool_call for the same id takes over the card.
    assert.equal(zed.cardsOf('toolu_01WriteStalled').length, 1);
    assert.equal(shown.at(-1), 'WriteFile: test/stalled.js [Completed]');
  });

  it('overloaded-retry: the cut attempt’s cards say the request is being retried; the retry completes them', async () => {
    const { response, zed } = await client.run('overloaded-retry');
    assert.equal(response.stopReason, 'end_turn');
    for (const [id, title, done] of [
      ['toolu_01ReadPackageJson', 'ReadFile', 'ReadFile: package.json [Completed]'],
      ['toolu_01ListSrc', 'ListFiles', 'ListFiles: src [Completed]'],
    ]) {
      const shown = zed.history(id);
      assert.ok(shown.includes(notRun(title, 'the request is being retried')), JSON.stringify(shown));
      assert.equal(shown.at(-1), done);
    }
  });

  it('fallback-model: the primary model’s card says the call moved to another model; the fallback’s completes', async () => {
    const { response, zed } = await client.run('fallback-model');
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(zed.read('toolu_01ReadPrimary'), notRun('ReadFile', 'switched to another model'));
    assert.equal(zed.read('toolu_01ReadFallback'), 'ReadFile: README.md [Completed]');
  });

  it('cut-after-call: the socket cut mid-arguments; each card says the stream failed', async () => {
    const { error, zed } = await client.run('cut-after-call');
    // Anthropic: a call was already complete, so no retry: the prompt fails.
    assert.equal(error?.code, -32603);
    assert.equal(zed.read('toolu_01CutFirst'), notRun('ReadFile', 'the stream failed'));
    assert.equal(zed.read('toolu_01CutSecond'), notRun('ReadFile', 'the stream failed'));
  });

  it('cancel-mid-arguments: Stop while the card counts: Canceled at once, then the reason it did not run', async () => {
    let stopped = false;
    const { response, zed } = await client.run('cancel-mid-arguments', {
      onUpdate(e, { sessionId, zed: pair }) {
        if (stopped || !e.update._meta?.progress) return;
        stopped = true;
        for (const z of pair) z.cancel(); // Zed's Stop button: AcpThread::cancel, then session/cancel.
        agent.cancel(sessionId);
      },
    });
    assert.equal(response.stopReason, 'cancelled');
    const shown = zed.history('toolu_01WriteFixtures');
    assert.ok(counted(shown.at(-3) ?? '') !== null, `counting when Stop was pressed: ${JSON.stringify(shown)}`);
    assert.match(shown.at(-2), /^WriteFile · receiving .* \[Canceled\]$/);
    assert.equal(shown.at(-1), notRun('WriteFile', 'cancelled'));
  });

  for (const [kind, rest] of [
    ['allow_once', ['WriteFile: notes/todo.md [In Progress]', 'WriteFile: notes/todo.md [Completed]']],
    ['reject_once', ['WriteFile: notes/todo.md [Rejected]', 'WriteFile: notes/todo.md [Failed]']],
  ])
    it(`permission-write, ${kind}: the card waits for the user, then shows the answer`, async () => {
      answer = kind;
      const { response, zed } = await askingClient.run('permission-write');
      assert.equal(response.stopReason, 'end_turn');
      assert.deepEqual(zed.history('toolu_01WriteNote'), [
        'WriteFile [Pending]',
        'WriteFile: notes/todo.md [Waiting for confirmation]',
        ...rest,
      ]);
    });

  it('outside-cwd: each refused read fails with its reason in the card’s content', async () => {
    const { response, zed } = await client.run('outside-cwd');
    assert.equal(response.stopReason, 'end_turn');
    for (const id of ['toolu_01ReadEtc', 'toolu_01ReadParent']) {
      assert.equal(zed.read(id), 'ReadFile [Failed]');
      assert.ok(zed.cardsOf(id)[0].content > 0, 'the reason is in the content');
    }
  });

  it('the other scenarios: every card ends Completed under its own title, none is "Tool call not found"', async () => {
    const expected = {
      'todo-plan': { toolu_01ListSrcPlan: 'ListFiles: src [Completed]' },
      'reused-id': { toolu_01Same: 'ReadFile: README.md [Completed]' },
      'http-529': { toolu_01ReadReadme: 'ReadFile: README.md [Completed]' },
      'two-writes': {
        toolu_01WriteA: 'WriteFile: notes/a.md [Completed]',
        toolu_01WriteB: 'WriteFile: notes/b.md [Completed]',
        toolu_01ReadReadmeToo: 'ReadFile: README.md [Completed]',
      },
      'rate-limited': {},
    };
    for (const [name, cards] of Object.entries(expected)) {
      const { zed } = await client.run(name);
      for (const [id, text] of Object.entries(cards)) assert.equal(zed.read(id), text, `${name} ${id}`);
      for (const card of zed.entries) {
        assert.notEqual(card.label.shown, 'Tool call not found', `${name}: an update for a card Zed never saw`);
        assert.equal(card.status, 'completed', `${name}: ${card.id} ${card.label.shown}`);
      }
      assert.equal(zed.entries.length, name === 'reused-id' ? 2 : Object.keys(cards).length, name);
    }
  });
});
