// Inside the published Qwen Code, started by the launcher in ACP mode over
// real pipes against the loopback provider, driven by the official ACP
// client: with live progress on, a discarded preparation says in its title
// why it did not run (lib/qwen/discard-causes.mjs), and a stalled card names
// the time after which Qwen gives up on the stream, read with Qwen's own
// resolveStreamIdleTimeoutMs (lib/qwen/idle-limit.mjs), which 0.24.4
// exports and 0.21.10 does not (there no deadline is shown). The idle limit
// is made short with Qwen's own QWEN_STREAM_IDLE_TIMEOUT_MS, so the test is
// quick. With progress off, the discarded frame is Qwen's own.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { sideAnswer } from '../devtools/qwen-side-requests.mjs';
import { assertValidUpdate } from './acp-helpers.mjs';
import { startProvider } from '../packages/agent/demo/provider.mjs';
import { longFixture } from '../packages/agent/demo/scenarios.mjs';
import { openaiCallId } from '../packages/agent/demo/sse-body.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-discard-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Qwen's idle limit in these runs: past the 5 s after which a card says it waits, so the stall shows first. */
const IDLE_LIMIT_MS = 8000;
const ID = 'toolu_01QwenDiscard';

/** The model writes a file; `attempt` adds what happens to the first attempt. */
function scenarios(workspace) {
  const call = (extra = {}) => ({
    type: 'tool_use',
    id: ID,
    name: 'write_file',
    input: { file_path: path.join(workspace, 'notes.js'), content: longFixture().slice(0, 6000) },
    ...extra,
  });
  const writing = (extra = {}, block = {}) => ({
    blocks: [{ type: 'text', text: "I'll write notes.js." }, call(block)],
    stop: 'tool_use',
    ...extra,
  });
  const done = [{ blocks: [{ type: 'text', text: 'Written.' }], stop: 'end_turn' }];
  return {
    // Attempt 1 ends halfway through the arguments: Qwen retries (no finish reason).
    retry: {
      prompt: 'Write notes.js (retry).',
      turns: [[writing({ interrupt: { block: 1, fraction: 0.5 } }), writing()], done],
    },
    cancel: { prompt: 'Write notes.js (cancel).', turns: [[writing()], done] },
    // Attempt 1 goes silent halfway through the arguments, longer than Qwen's idle limit.
    idle: {
      prompt: 'Write notes.js (idle).',
      turns: [
        [writing({}, { pauses: [{ fraction: 0.5, ms: IDLE_LIMIT_MS + 6000, keepAlive: false }] }), writing()],
        done,
      ],
    },
  };
}

/** Runs `names` in Qwen `version` through the launcher; each scenario's card frames as the client got them. */
async function runQwen(version, names, { progress = true, provider = 'anthropic' } = {}) {
  const build = qwenBuildOrSkip(version);
  const workspace = fs.mkdtempSync(path.join(tmp, `${version}-`));
  const all = scenarios(fs.realpathSync(workspace));
  const server = await startProvider({ speed: 1, scenarios: all, fallback: sideAnswer });
  const qwen = await launchQwen({
    version,
    provider,
    providerUrl: server.url,
    command: launcher,
    approvalMode: 'yolo',
    retryInitialDelayMs: 100,
    env: {
      TOOLCALL_STREAM_QWEN_CLI: build.dir,
      XDG_CACHE_HOME: path.join(tmp, 'cache'),
      TOOLCALL_STREAM_QWEN_PROGRESS: progress ? 'on' : 'off',
      QWEN_STREAM_IDLE_TIMEOUT_MS: String(IDLE_LIMIT_MS),
    },
  });
  const id = provider === 'openai' ? openaiCallId(ID) : ID;
  const out = {};
  try {
    for (const name of names) {
      const sessionId = await qwen.newSession(fs.realpathSync(workspace));
      const onUpdate = (e) => {
        if (name === 'cancel' && e.sessionId === sessionId && e.update.toolCallId === id && e.update._meta?.progress)
          qwen.cancel(sessionId);
      };
      qwen.events.on('update', onUpdate);
      let response;
      try {
        response = await qwen.prompt(sessionId, all[name].prompt).catch((error) => ({ error }));
      } finally {
        qwen.events.off('update', onUpdate);
      }
      const card = qwen
        .updates(sessionId)
        .map((e) => e.update)
        .filter((u) => u.toolCallId === id);
      for (const u of card) assertValidUpdate(u);
      out[name] = { response, card, discards: card.filter((u) => u._meta?.preparationDiscarded) };
    }
  } finally {
    const exit = await qwen.close();
    await server.close();
    assert.equal(exit.code, 0, `qwen exit (${exit.signal ?? ''}): ${qwen.stderr.slice(-2000)}`);
  }
  return out;
}

const skipOf = (version) => qwenBuildOrSkip(version).skip ?? (process.platform === 'win32' ? 'POSIX only' : false);

for (const provider of ['anthropic', 'openai'])
  test(
    `Qwen Code 0.24.4 through the launcher, progress on, ${provider}: a retry, a cancel and the idle limit each say why the card did not run; a stall names the limit`,
    { skip: skipOf('0.24.4'), timeout: 300_000 },
    async () => {
      const runs = await runQwen('0.24.4', ['retry', 'cancel', 'idle'], { provider });

      const retry = runs.retry;
      assert.equal(retry.response.stopReason, 'end_turn', JSON.stringify(retry.response));
      assert.deepEqual(
        retry.discards.map((u) => [u.status, u.title, u._meta.discardReason]),
        [['failed', 'WriteFile · not run: the request is being retried', 'retry']],
      );
      // The rest of Qwen's frame is its own: no content, the preparing markers, its tool name.
      const [discarded] = retry.discards;
      assert.deepEqual(discarded.content, []);
      assert.deepEqual(Object.keys(discarded).slice(0, 4), ['sessionUpdate', 'toolCallId', 'status', 'title']);
      assert.deepEqual(Object.keys(discarded._meta).slice(0, 4), [
        'toolName',
        'phase',
        'preparationDiscarded',
        'discardReason',
      ]);
      assert.equal(discarded._meta.toolName, 'write_file');

      const cancel = runs.cancel;
      assert.equal(cancel.response.stopReason, 'cancelled', JSON.stringify(cancel.response));
      assert.deepEqual(
        cancel.discards.map((u) => [u.title, u._meta.discardReason]),
        [['WriteFile · not run: cancelled', 'cancel']],
      );
      assert.equal(cancel.card.at(-1), cancel.discards[0], 'the discard is the last frame of the card');

      const idle = runs.idle;
      assert.equal(idle.response.stopReason, 'end_turn', JSON.stringify(idle.response));
      const stalls = idle.card.filter((u) => u._meta?.progress?.stalled);
      assert.ok(stalls.length >= 2, `${stalls.length} stall frames`);
      for (const f of stalls) {
        assert.match(f.title, /^WriteFile · no data from the provider, \d+ s \(Qwen gives up at 8 s\)$/);
        assert.equal(f._meta.progress.idleLimitMs, IDLE_LIMIT_MS);
        assert.ok(f._meta.progress.idleMs < IDLE_LIMIT_MS);
      }
      assert.deepEqual(
        idle.discards.map((u) => [u.title, u._meta.discardReason, u._meta.idleLimitMs]),
        [['WriteFile · not run: no data for 8 s', 'idle-timeout', IDLE_LIMIT_MS]],
      );
      // Nothing ran: the card's last frame is its discard.
      assert.equal(idle.card.at(-1), idle.discards[0]);
    },
  );

test(
  'Qwen Code 0.21.10 through the launcher, progress on: a retry and a cancel say why; no idle limit to name, so no deadline',
  { skip: skipOf('0.21.10'), timeout: 300_000 },
  async () => {
    const runs = await runQwen('0.21.10', ['retry', 'cancel', 'idle']);
    assert.deepEqual(
      runs.retry.discards.map((u) => [u.title, u._meta.discardReason]),
      [['WriteFile · not run: the request is being retried', 'retry']],
    );
    assert.deepEqual(
      runs.cancel.discards.map((u) => [u.title, u._meta.discardReason]),
      [['WriteFile · not run: cancelled', 'cancel']],
    );
    // 0.21.10 keeps resolveStreamIdleTimeoutMs to itself, and its Anthropic generator has no idle guard:
    // the silence is waited out, and no card claims a deadline.
    const { card, response } = runs.idle;
    assert.equal(response.stopReason, 'end_turn', JSON.stringify(response));
    const stalls = card.filter((u) => u._meta?.progress?.stalled);
    assert.ok(stalls.length >= 2, `${stalls.length} stall frames`);
    for (const f of stalls) {
      assert.match(f.title, /^WriteFile · no data from the provider, \d+ s$/);
      assert.equal('idleLimitMs' in f._meta.progress, false);
    }
    assert.deepEqual(runs.idle.discards, []);
  },
);

test(
  "Qwen Code 0.24.4 through the launcher, progress off: the discarded frame is Qwen's own, no title and no cause",
  { skip: skipOf('0.24.4'), timeout: 300_000 },
  async () => {
    const { retry } = await runQwen('0.24.4', ['retry'], { progress: false });
    assert.equal(retry.discards.length, 1);
    const [discarded] = retry.discards;
    assert.deepEqual(Object.keys(discarded), ['sessionUpdate', 'toolCallId', 'status', 'content', '_meta']);
    assert.deepEqual(discarded._meta, {
      toolName: 'write_file',
      phase: 'preparing',
      preparationDiscarded: true,
      provenance: 'builtin',
    });
  },
);
