// The end-to-end suite for the published Qwen Code CLI in ACP mode against the
// loopback provider, defined once and run by e2e-qwen-host.test.mjs for stock
// Qwen and, with other Node options (a preload), by any test that calls
// `describeQwenHost` with them.
//
// Per release × provider, one Qwen process and four sessions, each in its own
// workspace: a large `write_file` (Qwen's tool: `file_path`, `content`), a
// `session/cancel` while that call's arguments stream, a stream the provider
// cuts off mid-arguments (which Qwen retries), and a provider error event
// mid-arguments (which Qwen retries, except 0.21.2 on Anthropic).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProvider } from '../../packages/agent/demo/provider.mjs';
import { designDocument, longFixture } from '../../packages/agent/demo/scenarios.mjs';
import { openaiCallId } from '../../packages/agent/demo/sse-body.mjs';
import { sessionNotificationErrors } from '../../packages/agent/demo/schema.mjs';
import { CardClient } from '../acp-helpers.mjs';
import { QWEN_VARIANT_RELEASES, qwenBuildOrSkip } from '../../devtools/qwen-builds.mjs';
import { launchQwen } from '../../devtools/qwen-acp.mjs';
import { sideAnswer, sideRequestKind } from '../../devtools/qwen-side-requests.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

// Recorded pacing (1.4 KB/s of arguments) sped up per scenario: the large write
// streams its ~15 KB of arguments for ~2 s, a wide margin for the
// card-before-arguments check on a loaded machine; the cancelled one would
// stream ~45 KB for ~6 s if nobody cancelled it.
const SPEED = 20;
const SCENARIO_SPEED = { write: 5, cancel: 5, retry: 10, error: 10, progress: 4 };

/**
 * The pauses of the `progress` scenario, in replay time at its speed (4):
 * 5.6 s each on the clock, past the 5 s after which a card says it waits.
 */
const PROGRESS_PAUSES = [
  { fraction: 0.3, ms: 22_400, keepAlive: true },
  { fraction: 0.6, ms: 22_400, keepAlive: false },
];

const PROMPTS = {
  write: 'Write the design notes for tool-call preparing events to docs/design.md.',
  cancel: 'Generate the full regression fixture file test/fixtures.js.',
  retry: 'Save a copy of the design notes to notes/retry.md.',
  error: 'Copy the design notes to notes/error.md.',
  progress: 'Write the fixture table to src/table.js.',
};
const IDS = {
  write: 'toolu_01QwenWriteDesign',
  cancel: 'toolu_01QwenWriteFixtures',
  retry: 'toolu_01QwenWriteRetry',
  error: 'toolu_01QwenWriteAfterError',
  progress: 'toolu_01QwenWritePaused',
};
const FILES = {
  write: 'docs/design.md',
  cancel: 'test/fixtures.js',
  retry: 'notes/retry.md',
  error: 'notes/error.md',
  progress: 'src/table.js',
};
const contentOf = {
  write: () => designDocument() + '\n' + longFixture().slice(0, 10_000),
  cancel: () => longFixture(),
  retry: () => designDocument(),
  error: () => designDocument(),
  progress: () => longFixture().slice(0, 8000),
};

/**
 * The error event each provider sends mid-stream: Anthropic's `overloaded_error`
 * event, and an OpenAI-compatible error chunk with a 429 code.
 */
const MID_STREAM_ERROR = {
  anthropic: { type: 'overloaded_error', message: 'Overloaded' },
  openai: { type: 'rate_limit_exceeded', message: 'Rate limit reached', code: 429 },
};

/**
 * Whether Qwen retries that error (read from the bundles, confirmed by running
 * them): GeminiChat retries an error as a rate limit when its code or status is
 * 429/503 (`isRateLimitError`), which the OpenAI error chunk's `code` gives in
 * both releases. Anthropic's error event has no code: 0.24.4 also treats an
 * `overloaded_error` / `rate_limit_error` type as a rate limit; 0.21.2 does
 * not, so the prompt fails.
 */
export const RETRIES_MID_STREAM_ERROR = {
  '0.21.2': { anthropic: false, openai: true },
  '0.21.10': { anthropic: false, openai: true },
  '0.23.3': { anthropic: true, openai: true },
  '0.24.4': { anthropic: true, openai: true },
};

/** The scenarios for one set of workspaces: Qwen's write_file takes an absolute file_path. */
function qwenScenarios(workspaces, providerKind) {
  const call = (name) => ({
    type: 'tool_use',
    id: IDS[name],
    name: 'write_file',
    input: { file_path: path.join(workspaces[name], FILES[name]), content: contentOf[name]() },
  });
  const done = (text) => [{ blocks: [{ type: 'text', text }], stop: 'end_turn' }];
  const writing = (name, extra = {}) => ({
    blocks: [{ type: 'text', text: `I'll write ${FILES[name]}.` }, call(name)],
    stop: 'tool_use',
    ...extra,
  });
  return {
    write: { prompt: PROMPTS.write, turns: [[writing('write')], done('Done: docs/design.md holds the notes.')] },
    cancel: { prompt: PROMPTS.cancel, turns: [[writing('cancel')], done('Fixtures written.')] },
    progress: {
      prompt: PROMPTS.progress,
      // The model stops writing twice: with keep-alives, then without a byte.
      turns: [
        [
          {
            ...writing('progress'),
            blocks: [writing('progress').blocks[0], { ...call('progress'), pauses: PROGRESS_PAUSES }],
          },
        ],
        done('Written.'),
      ],
    },
    retry: {
      prompt: PROMPTS.retry,
      // Attempt 1 ends halfway through the call's arguments (no error event, no
      // stop): Qwen sees no finish reason and retries (InvalidStreamError
      // NO_FINISH_REASON, 2 s backoff in both releases, both providers).
      turns: [
        [writing('retry', { interrupt: { block: 1, fraction: 0.5 } }), writing('retry')],
        done('Saved notes/retry.md.'),
      ],
    },
    error: {
      prompt: PROMPTS.error,
      turns: [
        [
          writing('error', { interrupt: { block: 1, fraction: 0.5, error: MID_STREAM_ERROR[providerKind] } }),
          writing('error'),
        ],
        done('Copied to notes/error.md.'),
      ],
    },
  };
}

const shape = (u) => `${u.sessionUpdate}:${u.status}${u._meta?.preparationDiscarded ? ':discarded' : ''}`;
/** A card's lifecycle frames: its tool frames without the live progress ones (checked apart). */
const toolFrames = (updates, id) =>
  updates.filter(
    (e) =>
      (e.update.sessionUpdate === 'tool_call' || e.update.sessionUpdate === 'tool_call_update') &&
      e.update.toolCallId === id &&
      !e.update._meta?.progress,
  );
const progressFrames = (updates, id) =>
  updates.filter(
    (e) => e.update.sessionUpdate === 'tool_call_update' && e.update.toolCallId === id && e.update._meta?.progress,
  );

/**
 * How often the conversation Qwen sent back holds the call `id` and its result
 * (Anthropic tool_use / tool_result blocks, OpenAI assistant tool_calls / tool messages).
 */
function callsInHistory(messages, id) {
  let calls = 0;
  let results = 0;
  for (const m of messages) {
    if (m.role === 'tool' && m.tool_call_id === id) results++;
    for (const c of m.tool_calls ?? []) if (c.id === id) calls++;
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b.type === 'tool_use' && b.id === id) calls++;
      if (b.type === 'tool_result' && b.tool_use_id === id) results++;
    }
  }
  return { calls, results };
}

const turnEnded = (response, stopReason) =>
  assert.equal(response.stopReason, stopReason, `session/prompt: ${JSON.stringify(response.error ?? response)}`);

/** Waits (no deadline of its own: the test's timeout is the limit) until `predicate()` holds. */
async function until(predicate) {
  while (!predicate()) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Defines the suite for every release × provider.
 * @param {object} [options]
 * @param {string} [options.label]         shown in the test names (default 'stock')
 * @param {string} [options.nodeOptions]   NODE_OPTIONS for Qwen; bare specifiers resolve from the repository root (Qwen's cwd)
 * @param {string[]} [options.execArgv]    Node flags placed before cli.js
 * @param {string} [options.command]       start Qwen through this executable (see launchQwen)
 * @param {Function} [options.cwd]         ({version, provider}) => Qwen's working directory (default: the repository root)
 * @param {string[]} [options.scenarios]   which of 'write', 'cancel', 'retry', 'error', 'progress' run; the others
 *   are skipped (default: the first four)
 * @param {boolean} [options.progress]     whether Qwen's preparing cards get live progress frames (default: not one)
 * @param {boolean} [options.objects]      the preload converts SDK objects (Qwen's telemetry records): the
 *   keep-alives the SDKs drop are not seen, so both pauses read as the model waiting
 * @param {object|Function} [options.env]  extra environment, or ({version, provider}) => environment
 * @param {Function} [options.settings]   ({version, provider}) => settings deep-merged into Qwen's settings file
 * @param {string[]} [options.versions]
 * @param {string[]} [options.providers]
 * @param {Function} [options.extend]      called inside each describe with a context
 *   ({version, provider, qwen, server, results}: getters) to add tests; they run after the four here.
 */
export function describeQwenHost({
  label = 'stock',
  nodeOptions,
  execArgv,
  command,
  cwd,
  env,
  scenarios: chosenScenarios = ['write', 'cancel', 'retry', 'error'],
  progress: withProgress = false,
  objects = false,
  versions = QWEN_VARIANT_RELEASES,
  providers = ['anthropic', 'openai'],
  extend,
  settings,
} = {}) {
  for (const version of versions) {
    const build = qwenBuildOrSkip(version);
    if (build.skip) process.stderr.write(`e2e-qwen-host: skipping ${version}: ${build.skip}\n`);
    for (const providerKind of providers) {
      describe(`qwen ${version} --acp (${label}): ${providerKind}`, { skip: build.skip ?? false }, () => {
        const idOf = (name) => (providerKind === 'openai' ? openaiCallId(IDS[name]) : IDS[name]);
        let root;
        let workspaces;
        let scenarios;
        let server;
        let qwen;
        const results = {};

        before(async () => {
          root = fs.mkdtempSync(path.join(os.tmpdir(), `qwen-host-${version}-${providerKind}-`));
          workspaces = {};
          for (const name of Object.keys(PROMPTS)) {
            const ws = path.join(root, name);
            fs.mkdirSync(ws, { recursive: true });
            fs.writeFileSync(path.join(ws, 'README.md'), '# sample-app\n\nHello.\n');
            workspaces[name] = fs.realpathSync(ws);
          }
          scenarios = qwenScenarios(workspaces, providerKind);
          server = await startProvider({
            speed: SPEED,
            scenarioSpeed: SCENARIO_SPEED,
            scenarios,
            fallback: sideAnswer,
          });
          qwen = await launchQwen({
            version,
            provider: providerKind,
            providerUrl: server.url,
            cwd: cwd ? cwd({ version, provider: providerKind }) : REPO,
            nodeOptions,
            execArgv,
            command,
            env: typeof env === 'function' ? env({ version, provider: providerKind }) : env,
            settings: settings?.({ version, provider: providerKind }),
            // Rate-limit retries back off 60 s × 2^n by default.
            retryInitialDelayMs: 100,
          });
        });

        after(async () => {
          const exit = await qwen?.close();
          await server?.close();
          if (root) fs.rmSync(root, { recursive: true, force: true });
          const side = (server?.requests ?? []).filter((r) => r.scenario === null);
          if (side.length > 0) {
            const kinds = {};
            for (const r of side) {
              const text = JSON.stringify(r.body.messages?.at(-1) ?? '');
              kinds[sideRequestKind(text)] = (kinds[sideRequestKind(text)] ?? 0) + 1;
            }
            process.stderr.write(`e2e-qwen-host: ${version} ${providerKind} side requests ${JSON.stringify(kinds)}\n`);
          }
          if (exit) assert.equal(exit.code, 0, `qwen exit (${exit.signal ?? ''}); stderr: ${qwen.stderr.slice(-2000)}`);
          if (qwen) assert.deepEqual(qwen.outbound, [], 'Qwen tried to reach the network');
        });

        /** Runs one scenario in a new session; validates every update; returns what was observed. */
        async function run(name, { onUpdate } = {}) {
          const cwd = workspaces[name];
          const sessionId = await qwen.newSession(cwd);
          const listener = (e) => e.sessionId === sessionId && onUpdate?.(e, sessionId);
          qwen.events.on('update', listener);
          let response;
          try {
            response = await qwen.prompt(sessionId, PROMPTS[name]);
          } catch (error) {
            response = { error };
          } finally {
            qwen.events.off('update', listener);
          }
          const updates = qwen.updates(sessionId);
          const input = scenarios[name].turns[0][0].blocks[1].input;
          const cards = new CardClient((id) => (id === idOf(name) ? input : undefined));
          for (const e of updates) {
            const errors = sessionNotificationErrors({ sessionId: e.sessionId, update: e.update });
            assert.equal(errors, null, `invalid session/update ${JSON.stringify(e.update).slice(0, 300)}`);
            cards.receive(e.update);
          }
          cards.assertOneTerminalPerOpen();
          const requests = server.requests.filter((r) => r.scenario === name);
          const permissions = qwen.permissions.filter((p) => p.params.sessionId === sessionId);
          results[name] = { cwd, sessionId, response, updates, requests, permissions, input };
          return results[name];
        }

        /** Provider frame times for one call id: when its arguments completed, per request. */
        function watchFrames(id) {
          const complete = [];
          const onFrame = ({ record, note, at }) =>
            note.id === id && note.argsComplete && complete.push({ record, at });
          server.events.on('frame', onFrame);
          return { complete, stop: () => server.events.off('frame', onFrame) };
        }

        /** Whether scenario `name` runs; else skips test `t`, saying why. */
        const chosen = (name, t) => chosenScenarios.includes(name) || void t.skip('not one of the scenarios chosen');

        it('a large write_file: the preparing card arrives before the arguments end, then completes; the file is written', async (t) => {
          if (!chosen('write', t)) return;
          const id = idOf('write');
          const frames = watchFrames(id);
          let result;
          try {
            result = await run('write');
          } finally {
            frames.stop();
          }
          const { response, updates, requests, permissions, input } = result;
          turnEnded(response, 'end_turn');

          const cardFrames = toolFrames(updates, id);
          // Edits ask for permission (approval mode 'default'): Qwen sends no
          // in_progress frame for a call that showed a permission dialog.
          assert.deepEqual(
            cardFrames.map((e) => shape(e.update)),
            ['tool_call:pending', 'tool_call_update:completed'],
          );
          const [preparing, finished] = cardFrames;
          assertProgressFrames(updates, id, input);
          assert.deepEqual(preparing.update.rawInput, {});
          assert.deepEqual(preparing.update.content, []);
          assert.equal(preparing.update.kind, 'edit');
          assert.equal(preparing.update.title, 'WriteFile');
          assert.equal(preparing.update._meta.phase, 'preparing');
          assert.equal(preparing.update._meta.toolName, 'write_file');

          // The point of it all: the card was on screen while the provider was still sending the arguments.
          assert.equal(frames.complete.length, 1, 'the provider sent the complete call once');
          const argsCompleteAt = frames.complete[0].at;
          assert.ok(
            preparing.at < argsCompleteAt,
            `card at ${preparing.at.toFixed(1)} ms, arguments complete at ${argsCompleteAt.toFixed(1)} ms`,
          );

          // Nothing ran early: the permission request (with the complete arguments) came after the arguments.
          assert.equal(permissions.length, 1);
          assert.equal(permissions[0].params.toolCall.toolCallId, id);
          assert.deepEqual(permissions[0].params.toolCall.rawInput, input);
          assert.ok(permissions[0].at > argsCompleteAt, 'permission asked only after the arguments completed');

          const diff = finished.update.content.find((c) => c.type === 'diff');
          assert.ok(diff, `a diff in ${JSON.stringify(finished.update.content).slice(0, 200)}`);
          assert.equal(diff.newText, input.content);
          assert.equal(fs.readFileSync(input.file_path, 'utf8'), input.content);

          assert.deepEqual(
            requests.map((r) => [r.turn, r.attempt]),
            [
              [0, 0],
              [1, 0],
            ],
          );
          assert.deepEqual(callsInHistory(requests[1].body.messages, id), { calls: 1, results: 1 });
        });

        /**
         * The live progress rules on one card's frames: only while it prepares, no
         * status, arguments or content, Qwen's title with what happens now, ACP's
         * name on the card's tool_call (and nowhere without progress), counts
         * that never decrease and never pass the complete arguments, and no
         * piece of an argument value anywhere.
         */
        function assertProgressFrames(updates, id, input) {
          const all = updates.filter((e) => e.update.toolCallId === id).map((e) => e.update);
          const progress = progressFrames(updates, id).map((e) => e.update);
          // ACP's name: added to the card's tool_call with live progress, stock Qwen sends none.
          const named = all.filter((u) => 'name' in u).map((u) => [u.sessionUpdate, u.name]);
          // Zed's key for the name (it reads no other), which Qwen does not send.
          const zedNamed = all.filter((u) => u._meta && 'tool_name' in u._meta).map((u) => u._meta.tool_name);
          if (!withProgress) {
            assert.deepEqual(progress, [], 'no progress frame without live progress');
            assert.deepEqual(named, [], "no ACP name without live progress: Qwen's frames are stock");
            assert.deepEqual(zedNamed, [], "no _meta.tool_name without live progress: Qwen's frames are stock");
            return null;
          }
          assert.deepEqual(named, [['tool_call', 'write_file']]);
          assert.deepEqual(zedNamed, ['write_file']);
          const lifecycle = all.filter((u) => !u._meta?.progress);
          const after = all.indexOf(lifecycle[0]);
          const before = lifecycle.length > 1 ? all.indexOf(lifecycle[1]) : all.length;
          const complete = Buffer.byteLength(JSON.stringify(input));
          const pieces = input.content.match(/export const case\d+/g).slice(0, 20);
          let last = { argumentBytes: 0, argumentLines: 0 };
          for (const frame of progress) {
            const at = all.indexOf(frame);
            assert.ok(at > after && at < before, 'only between the preparing frame and the next');
            assert.deepEqual(Object.keys(frame), ['sessionUpdate', 'toolCallId', 'title', '_meta']);
            assert.match(frame.title, /^WriteFile · (receiving|waiting for the model|no data from the provider)/);
            const p = frame._meta.progress;
            // Only what changes: the card keeps the name and provenance its tool_call gave it.
            assert.deepEqual(Object.keys(frame._meta), ['phase', 'progress']);
            assert.equal(frame._meta.phase, 'preparing');
            assert.ok(p.argumentBytes >= last.argumentBytes && p.argumentLines >= last.argumentLines);
            assert.ok(p.argumentBytes <= complete);
            const text = JSON.stringify(frame);
            for (const piece of pieces) assert.ok(!text.includes(piece), `a progress frame shows "${piece}"`);
            assert.ok(!text.includes(input.file_path), 'a progress frame shows the path');
            last = p;
          }
          return progress;
        }

        it('live progress: the card counts the arguments up and says why it waits, or stays as it opened', async (t) => {
          if (!chosen('progress', t)) return;
          const id = idOf('progress');
          const { response, updates, input } = await run('progress');
          turnEnded(response, 'end_turn');
          assert.deepEqual(
            toolFrames(updates, id).map((e) => shape(e.update)),
            ['tool_call:pending', 'tool_call_update:completed'],
          );
          const progress = assertProgressFrames(updates, id, input);
          if (!progress) return;
          assert.ok(progress.length >= 4, `${progress.length} progress frames`);
          const receiving = progress.filter((f) => f._meta.progress.stalled === undefined);
          assert.ok(receiving.length >= 2 && receiving.at(-1)._meta.progress.argumentLines > 0);
          const model = progress.findIndex((f) => f._meta.progress.stalled === 'model');
          const connection = progress.findIndex((f) => f._meta.progress.stalled === 'connection');
          assert.ok(model >= 0, 'the pause with keep-alives: waiting for the model');
          // A release that exports resolveStreamIdleTimeoutMs (0.23 on) has its limit named, 240 s by default.
          const deadline = version.startsWith('0.21.') ? '' : ' \\(Qwen gives up at 240 s\\)';
          assert.match(progress[model].title, new RegExp(`^WriteFile · waiting for the model, \\d+ s${deadline}$`));
          if (objects) {
            assert.equal(connection, -1, 'fed SDK objects, a silent connection cannot be told from a quiet model');
            const stalls = progress.filter(
              (f, i) => f._meta.progress.stalled && progress[i - 1]?._meta.progress.stalled === undefined,
            );
            assert.equal(stalls.length, 2, 'each pause announced');
          } else {
            assert.ok(connection > model, 'the silent pause: no data from the provider');
            assert.match(
              progress[connection].title,
              new RegExp(`^WriteFile · no data from the provider, \\d+ s${deadline}$`),
            );
          }
        });

        it('session/cancel while the arguments stream: the card ends failed and discarded, the turn is cancelled, nothing is written', async (t) => {
          if (!chosen('cancel', t)) return;
          const id = idOf('cancel');
          const frames = watchFrames(id);
          let cancelledAt;
          let result;
          try {
            result = await run('cancel', {
              onUpdate: ({ at, update }, sessionId) => {
                if (update.sessionUpdate === 'tool_call' && update.toolCallId === id && cancelledAt === undefined) {
                  cancelledAt = at;
                  qwen.cancel(sessionId);
                }
              },
            });
          } finally {
            frames.stop();
          }
          const { response, updates, requests, permissions, input } = result;
          assert.ok(cancelledAt, 'the preparing card arrived, and the client cancelled then');
          turnEnded(response, 'cancelled');

          const cardFrames = toolFrames(updates, id);
          assert.deepEqual(
            cardFrames.map((e) => shape(e.update)),
            ['tool_call:pending', 'tool_call_update:failed:discarded'],
          );
          const discarded = cardFrames[1].update;
          assertProgressFrames(updates, id, input);
          assert.equal(
            updates.filter((e) => e.update.toolCallId === id).at(-1).update,
            discarded,
            'the discard is the last frame of the card',
          );
          assert.deepEqual(discarded.content, []);
          assert.equal(discarded._meta.phase, 'preparing');
          assert.equal(discarded._meta.toolName, 'write_file');

          // Qwen abandoned the provider request before the arguments ended.
          assert.equal(requests.length, 1);
          await until(() => requests[0].aborted || requests[0].completed);
          assert.equal(requests[0].aborted, true, 'the HTTP request was aborted');
          assert.deepEqual(frames.complete, [], 'the provider never sent the end of the arguments');

          assert.deepEqual(permissions, []);
          assert.equal(fs.existsSync(input.file_path), false, 'no file written');
        });

        it('a stream cut off mid-arguments is retried: the abandoned card is discarded, the call runs once', async (t) => {
          if (!chosen('retry', t)) return;
          const id = idOf('retry');
          const retryRequestAt = [];
          const onRequest = (record) =>
            record.scenario === 'retry' && record.attempt === 1 && retryRequestAt.push(performance.now());
          server.events.on('request', onRequest);
          let result;
          try {
            result = await run('retry');
          } finally {
            server.events.off('request', onRequest);
          }
          const { response, updates, requests, permissions, input } = result;
          turnEnded(response, 'end_turn');

          assert.deepEqual(
            requests.map((r) => [r.turn, r.attempt]),
            [
              [0, 0],
              [0, 1],
              [1, 0],
            ],
            'turn 0 twice (the retry), then the tool result',
          );

          const cardFrames = toolFrames(updates, id);
          assert.deepEqual(
            cardFrames.map((e) => shape(e.update)),
            [
              'tool_call:pending',
              'tool_call_update:failed:discarded',
              'tool_call:pending',
              'tool_call_update:completed',
            ],
          );
          assert.equal(retryRequestAt.length, 1);
          assert.ok(cardFrames[1].at < retryRequestAt[0], 'the abandoned card was discarded before the retry went out');

          // Run once: one permission request, one tool result, the complete content on disk.
          assert.equal(permissions.length, 1);
          assert.deepEqual(permissions[0].params.toolCall.rawInput, input);
          // The abandoned attempt left nothing behind in the history Qwen sends next.
          assert.deepEqual(callsInHistory(requests[2].body.messages, id), { calls: 1, results: 1 });
          assert.equal(updates.filter((e) => e.update.toolCallId === id && e.update.status === 'completed').length, 1);
          assert.equal(fs.readFileSync(input.file_path, 'utf8'), input.content);
        });

        const retried = RETRIES_MID_STREAM_ERROR[version]?.[providerKind] ?? true;
        it(`a provider error event mid-arguments (${MID_STREAM_ERROR[providerKind].type}): ${retried ? 'retried; the abandoned card is discarded, the call runs once' : 'not retried; the card is discarded and the prompt fails'}`, async (t) => {
          if (!chosen('error', t)) return;
          const id = idOf('error');
          const { response, updates, requests, permissions, input } = await run('error');
          const cardFrames = toolFrames(updates, id);
          if (!retried) {
            assert.ok(response.error, `session/prompt fails, not ${JSON.stringify(response)}`);
            assert.equal(response.error.data?.error?.type, MID_STREAM_ERROR[providerKind].type);
            assert.deepEqual(
              cardFrames.map((e) => shape(e.update)),
              ['tool_call:pending', 'tool_call_update:failed:discarded'],
            );
            assert.deepEqual(
              requests.map((r) => [r.turn, r.attempt]),
              [[0, 0]],
            );
            assert.deepEqual(permissions, []);
            assert.equal(fs.existsSync(input.file_path), false, 'no file written');
            return;
          }
          turnEnded(response, 'end_turn');
          assert.deepEqual(
            requests.map((r) => [r.turn, r.attempt]),
            [
              [0, 0],
              [0, 1],
              [1, 0],
            ],
          );
          assert.deepEqual(
            cardFrames.map((e) => shape(e.update)),
            [
              'tool_call:pending',
              'tool_call_update:failed:discarded',
              'tool_call:pending',
              'tool_call_update:completed',
            ],
          );
          assert.equal(permissions.length, 1);
          assert.deepEqual(permissions[0].params.toolCall.rawInput, input);
          assert.deepEqual(callsInHistory(requests[2].body.messages, id), { calls: 1, results: 1 });
          assert.equal(fs.readFileSync(input.file_path, 'utf8'), input.content);
        });

        extend?.({
          version,
          provider: providerKind,
          get qwen() {
            return qwen;
          },
          get server() {
            return server;
          },
          results,
        });
      });
    }
  }
}
