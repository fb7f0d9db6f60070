// Qwen Code's OpenAI Responses generator in ACP mode, through the
// `toolcall-stream-qwen` launcher as Zed spawns it (the launcher with `--acp`
// as its one argument), over real stdio pipes with the official ACP SDK,
// against the loopback provider speaking the Responses API
// (packages/agent/demo/provider.mjs; Qwen is set to the `openai-responses`
// auth type as devtools/qwen-acp.mjs describes). Stock Qwen shows no
// preparing card for this generator; with live progress on, the preload asks
// the native converter for preparations, so a card opens at the call's
// `response.output_item.added` — before its arguments are done: the provider
// holds the stream open after a third of them — counts the arguments up,
// and ends `in_progress`, then `completed`; a stream that ends mid-arguments
// (Qwen retries) and a Stop discard the card with their cause. With progress
// off, the frames are stock Qwen's, and there is no preparing card.
// Read through Zed's rules (helpers/zed-card-view.mjs), in 0.23.3 and 0.24.4.
import { describe, it, before, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProvider } from '../packages/agent/demo/provider.mjs';
import { designDocument, longFixture } from '../packages/agent/demo/scenarios.mjs';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { sideAnswer } from '../devtools/qwen-side-requests.mjs';
import { ZedThread } from './helpers/zed-card-view.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-responses-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** How long the provider holds the stream after a third of the arguments (at speed 1: `HOLD_MS / SPEED`). */
const HOLD_MS = 12_000;
const SPEED = 4;
const PROMPTS = {
  write: 'Write the design notes for tool-call preparing events to docs/design.md.',
  retry: 'Save a copy of the design notes to notes/retry.md.',
  cancel: 'Generate the full regression fixture file test/fixtures.js.',
};
const FILES = {
  write: ['docs/design.md', () => designDocument()],
  retry: ['notes/retry.md', () => designDocument()],
  cancel: ['test/fixtures.js', () => longFixture()],
};
const GUARD = { timeout: 90_000 };
const idOf = (name) => `toolu_01Resp${name[0].toUpperCase()}${name.slice(1)}`;
const callIdOf = (name) => idOf(name).replace(/^toolu_01/, 'call_');

function scenarios(workspaces) {
  const call = (name, extra = {}) => ({
    type: 'tool_use',
    id: idOf(name),
    name: 'write_file',
    input: { file_path: path.join(workspaces[name], FILES[name][0]), content: FILES[name][1]() },
    ...extra,
  });
  const attempt = (name, extra = {}, block = {}) => ({
    blocks: [{ type: 'text', text: `I'll write ${FILES[name][0]}.` }, call(name, block)],
    stop: 'tool_use',
    ...extra,
  });
  const done = [{ blocks: [{ type: 'text', text: 'Done.' }], stop: 'end_turn' }];
  return {
    // Held open with keep-alives after a third of the arguments.
    write: {
      prompt: PROMPTS.write,
      turns: [[attempt('write', {}, { pauses: [{ fraction: 0.33, ms: HOLD_MS, keepAlive: true }] })], done],
    },
    // Ends halfway through the arguments, no error: Qwen retries (no finish reason).
    retry: {
      prompt: PROMPTS.retry,
      turns: [[attempt('retry', { interrupt: { block: 1, fraction: 0.5 } }), attempt('retry')], done],
    },
    cancel: { prompt: PROMPTS.cancel, turns: [[attempt('cancel')], done] },
  };
}

/** A label that counts arguments: its bytes (KB as bytes), or null. */
function counted(text) {
  const m = text.match(/^WriteFile · receiving ([\d.]+) (B|KB)(?:, \d+ lines?)? \[Pending\]$/);
  return m ? Number(m[1]) * (m[2] === 'KB' ? 1024 : 1) : null;
}
const written = (name) => `Writing to ${FILES[name][0]} [Completed]`;
const notRun = (why) => `WriteFile · not run: ${why} [Failed]`;

/** The name of a run's folders: one length for both, so the requests that name them are as long. */
const runName = (stock) => (stock ? 'stock' : 'addon');

/** A Qwen in ACP mode on the Responses provider, with its workspaces and the Zed view of each session. */
async function startQwen(version, { dir, progress, stock }) {
  const threads = new Map();
  const workspaces = {};
  for (const name of Object.keys(PROMPTS)) {
    workspaces[name] = path.join(tmp, `${version}-${progress}-${runName(stock)}`, name);
    fs.mkdirSync(workspaces[name], { recursive: true });
    workspaces[name] = fs.realpathSync(workspaces[name]);
  }
  const server = await startProvider({
    speed: SPEED,
    scenarios: scenarios(workspaces),
    fallback: sideAnswer,
    splitFrames: true,
  });
  const report = path.join(tmp, `${version}-${progress}-${runName(stock)}.ndjson`);
  const qwen = await launchQwen({
    version,
    provider: 'openai-responses',
    providerUrl: server.url,
    ...(stock ? {} : { command: launcher }),
    retryInitialDelayMs: 100,
    env: stock
      ? {}
      : {
          TOOLCALL_STREAM_QWEN_CLI: dir,
          XDG_CACHE_HOME: path.join(tmp, 'cache'),
          TOOLCALL_STREAM_QWEN_PROGRESS: progress ? 'on' : 'off',
          TOOLCALL_STREAM_QWEN_REPORT: report,
        },
    // Zed's authorize_tool_call first, then the answer goes back to Qwen.
    permission: (params) => {
      threads.get(params.sessionId)?.authorize(params.toolCall.toolCallId, 'allow_once');
      return 'allow_once';
    },
  });
  qwen.events.on('message', ({ msg }) => {
    const zed = threads.get(msg.params?.sessionId);
    if (!zed) return;
    if (msg.method === 'session/update') zed.sessionUpdate(msg.params.update);
    else if (msg.method === 'session/request_permission')
      zed.requestPermission({ sessionUpdate: 'tool_call_update', ...msg.params.toolCall });
  });
  /** Prompts scenario `name` in a new session: the outcome, the Zed view, the card's labels, the session's updates. */
  async function run(name, { onUpdate } = {}) {
    const sessionId = await qwen.newSession(workspaces[name]);
    const zed = new ZedThread();
    threads.set(sessionId, zed);
    const listener = (e) => e.sessionId === sessionId && onUpdate?.(e, { sessionId, zed });
    qwen.events.on('update', listener);
    const outcome = await qwen.prompt(sessionId, PROMPTS[name]).then(
      (response) => ({ response }),
      (error) => ({ error }),
    );
    qwen.events.off('update', listener);
    zed.stopped(outcome.response?.stopReason);
    return { ...outcome, zed, shown: zed.history(callIdOf(name)), updates: qwen.updates(sessionId) };
  }
  const reportLines = () =>
    fs.existsSync(report)
      ? fs
          .readFileSync(report, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [];
  return {
    qwen,
    server,
    run,
    reportLines,
    close: async () => {
      const exit = await qwen.close();
      await server.close();
      return exit;
    },
  };
}

describe('Qwen Code on the OpenAI Responses API, through the launcher as Zed spawns it', { concurrency: 1 }, () => {
  for (const version of ['0.23.3', '0.24.4']) {
    const build = qwenBuildOrSkip(version);
    const skip = build.skip ?? (process.platform === 'win32' ? 'the launcher is started as a POSIX command' : false);

    describe(`Qwen Code ${version}, live progress on`, { skip, concurrency: 1 }, () => {
      let q;
      let ran = 0;
      before(async () => {
        q = await startQwen(version, { dir: build.dir, progress: true });
      });
      beforeEach(() => ran++);
      after(async () => {
        const exit = await q?.close();
        if (exit) assert.equal(exit.code, 0, `qwen exit (${exit.signal ?? ''}); stderr: ${q.qwen.stderr.slice(-2000)}`);
        if (ran === 0) return;
        // Every stream went through the native converter.
        const lines = q.reportLines();
        assert.ok(lines.length >= 1, 'a report line');
        for (const line of lines) assert.equal(line.providers.openaiResponses.served, true, JSON.stringify(line));
        assert.ok(lines.reduce((n, l) => n + l.streams.openaiResponses.bytes, 0) >= ran, JSON.stringify(lines));
      });

      it(
        'the card opens at output_item.added while the stream is held, counts up, runs and completes',
        GUARD,
        async () => {
          // When the provider went quiet and when it sent the call's last arguments, on this process's clock.
          const marks = {};
          const onFrame = ({ note, at }) => {
            if (note?.id !== callIdOf('write')) return;
            if (note.pause) marks.held ??= at;
            if (note.argsComplete) marks.complete ??= at;
          };
          q.server.events.on('frame', onFrame);
          let opened;
          const { response, shown, zed } = await q.run('write', {
            onUpdate(e) {
              if (e.update.sessionUpdate === 'tool_call' && e.update.toolCallId === callIdOf('write')) opened ??= e.at;
            },
          });
          q.server.events.off('frame', onFrame);
          assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
          assert.equal(shown[0], 'WriteFile [Pending]');
          assert.ok(
            opened !== undefined && marks.held !== undefined && marks.complete !== undefined,
            JSON.stringify(marks),
          );
          assert.ok(opened < marks.complete, 'the card opened before the arguments were done');
          const counts = shown.map(counted).filter((n) => n !== null);
          assert.ok(counts.length >= 2, `counting up: ${JSON.stringify(shown)}`);
          // Up, never down (a count shown again after the hold repeats the last one).
          for (let i = 1; i < counts.length; i++) assert.ok(counts[i] >= counts[i - 1], `never down: ${counts}`);
          assert.ok(counts.at(-1) > counts[0], `counting up: ${counts}`);
          const ends = shown.slice(shown.findIndex((t) => t.endsWith('[Waiting for confirmation]')));
          assert.deepEqual(
            ends.map((t) => t.slice(t.lastIndexOf('['))),
            ['[Waiting for confirmation]', '[In Progress]', '[Completed]'],
            JSON.stringify(shown),
          );
          assert.equal(shown.at(-1), written('write'));
          assert.equal(zed.cardsOf(callIdOf('write')).length, 1, 'one card');
        },
      );

      it(
        'a stream that ends mid-arguments: the card says the request is being retried; the retry completes it',
        GUARD,
        async () => {
          const { response, shown } = await q.run('retry');
          assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
          assert.ok(shown.includes(notRun('the request is being retried')), JSON.stringify(shown));
          assert.equal(shown.at(-1), written('retry'));
        },
      );

      it('Stop while the card counts: the card is discarded as cancelled', GUARD, async () => {
        let stopped = false;
        const { response, shown, updates } = await q.run('cancel', {
          onUpdate(e, { sessionId, zed }) {
            if (stopped || !e.update._meta?.progress) return;
            stopped = true;
            zed.cancel();
            q.qwen.cancel(sessionId);
          },
        });
        assert.equal(response?.stopReason, 'cancelled');
        assert.equal(shown.at(-1), notRun('cancelled'), JSON.stringify(shown));
        const discard = updates.find((u) => u.update._meta?.preparationDiscarded === true);
        assert.equal(discard?.update.status, 'failed');
        assert.equal(discard?.update._meta.discardReason, 'cancel');
      });
    });

    describe(`Qwen Code ${version}, live progress off: the frames are stock Qwen's`, { skip, concurrency: 1 }, () => {
      it('the same turn, stock and through the launcher: equal frames, no preparing card', GUARD, async () => {
        const frames = {};
        for (const stock of [true, false]) {
          const q = await startQwen(version, { dir: build.dir, progress: false, stock });
          try {
            const { response, updates } = await q.run('write');
            assert.equal(response?.stopReason, 'end_turn');
            // The turn's frames: Qwen sends its command list when the session starts, in a race with the turn.
            frames[stock ? 'stock' : 'launcher'] = updates
              .filter(({ update }) => update.sessionUpdate !== 'available_commands_update')
              .map(({ update }) => normalised(update));
            if (!stock) for (const line of q.reportLines()) assert.equal(line.providers.openaiResponses.served, true);
          } finally {
            await q.close();
          }
        }
        assert.deepEqual(frames.launcher, frames.stock);
        // The call ran, and no frame of it was a preparing card's (Qwen's emitStart marks those `_meta.phase`).
        const call = frames.stock.filter((u) => u.toolCallId === callIdOf('write'));
        assert.equal(call.at(-1)?.status, 'completed', JSON.stringify(call));
        assert.ok(!call.some((u) => u._meta?.phase === 'preparing'), JSON.stringify(call));
        assert.ok(!frames.stock.some((u) => u._meta?.progress), 'no progress frame');
      });
    });
  }
});

/** An update without what differs between two runs of one turn: the workspace folder and times. */
function normalised(update) {
  return JSON.parse(
    JSON.stringify(update)
      .replaceAll(tmp, '<tmp>')
      .replace(/-(stock|addon)\//g, '-<run>/')
      .replace(/"(timestamp|startTime|endTime|durationMs)":\d+/g, '"$1":0'),
  );
}
