// Qwen Code in Zed, judged by what the user reads on a card: the published
// Qwen Code CLI (0.21.10 and 0.24.4) started by the `toolcall-stream-qwen`
// launcher with live progress on, over real stdio pipes, the official ACP SDK
// as the client's transport, Anthropic from the loopback provider; every
// session/update and permission request is fed, in wire order, into a model
// of Zed's tool-card rules (helpers/zed-card-view.mjs, each rule cited from
// Zed's acp_thread.rs). One Qwen process per release runs the demo's kinds of
// turn with Qwen's own write_file (an absolute `file_path`): a large write,
// counting up, asked about and completed; a write whose model pauses with
// keep-alives and then without a byte, each pause naming Qwen's idle limit
// where the release has one (0.24.4; 0.21.x's Anthropic generator has none);
// a stream that ends mid-arguments (Qwen retries), an error event
// mid-arguments (0.24.4 retries it, 0.21.10 fails the turn), a Stop while
// the card counts, a permission allowed and one rejected; on 0.24.4 also a
// stream that stays silent past Qwen's idle limit. The model fallback of the
// demo has no counterpart here: Qwen switches models only for its own OAuth.
//
// TOOLCALL_STREAM_ZED_VIEW_BREAK=title|status|name|progress feeds the model
// frames with that part removed (a deliberately broken build): each
// assertion here fails under at least one of them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProvider } from '../packages/agent/demo/provider.mjs';
import { designDocument, longFixture, NOTE } from '../packages/agent/demo/scenarios.mjs';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { sideAnswer } from '../devtools/qwen-side-requests.mjs';
import { ZedThread, brokenFrame } from './helpers/zed-card-view.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-zed-qwen-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * Qwen's idle limit for this run, through its own variable
 * (QWEN_STREAM_IDLE_TIMEOUT_MS, 240 s by default in both releases): longer
 * than the pauses of the `pauses` scenario, short enough for `silent` to
 * pass it.
 */
const IDLE_LIMIT_S = 9;
/** Provider pacing sped up per scenario; the pauses are 5.6 s on the clock at speed 4, past Qwen's 5 s stall time. */
const SPEED = { write: 5, pauses: 4, cancel: 5, retry: 10, error: 10, silent: 10, allow: 20, reject: 20 };
const PAUSES = [
  { fraction: 0.3, ms: 22_400, keepAlive: true },
  { fraction: 0.6, ms: 22_400, keepAlive: false },
];
const PROMPTS = {
  write: 'Write the design notes for tool-call preparing events to docs/design.md.',
  pauses: 'Write the fixture table to src/table.js.',
  cancel: 'Generate the full regression fixture file test/fixtures.js.',
  retry: 'Save a copy of the design notes to notes/retry.md.',
  error: 'Copy the design notes to notes/error.md.',
  silent: 'Write the regression fixtures to test/stalled.js.',
  allow: 'Write a short note to notes/todo.md.',
  reject: 'Write a short note to notes/rejected.md.',
};
const FILES = {
  // ~15 KB: about two seconds of arguments at its speed, several counts on the card.
  write: ['docs/design.md', () => bigDocument()],
  pauses: ['src/table.js', () => longFixture().slice(0, 8000)],
  cancel: ['test/fixtures.js', () => longFixture()],
  retry: ['notes/retry.md', () => designDocument()],
  error: ['notes/error.md', () => designDocument()],
  silent: ['test/stalled.js', () => 'export const ok = true;\n'.repeat(40)],
  allow: ['notes/todo.md', () => NOTE],
  reject: ['notes/rejected.md', () => NOTE],
};
/** A guard against a hang only, not a timed assertion. */
const GUARD = { timeout: 90_000 };
/** The large write's content. */
const bigDocument = () => `${designDocument()}\n${longFixture().slice(0, 10_000)}`;
const idOf = (name) => `toolu_01Zed${name[0].toUpperCase()}${name.slice(1)}`;

/** The provider's scenarios, each writing into its own workspace. */
function qwenScenarios(workspaces) {
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
  const scenario = (name, attempts) => ({ prompt: PROMPTS[name], turns: [attempts, done] });
  return {
    write: scenario('write', [attempt('write')]),
    pauses: scenario('pauses', [attempt('pauses', {}, { pauses: PAUSES })]),
    cancel: scenario('cancel', [attempt('cancel')]),
    // Ends halfway through the arguments, no error and no stop: Qwen retries (no finish reason).
    retry: scenario('retry', [attempt('retry', { interrupt: { block: 1, fraction: 0.5 } }), attempt('retry')]),
    error: scenario('error', [
      attempt('error', {
        interrupt: { block: 1, fraction: 0.5, error: { type: 'overloaded_error', message: 'Overloaded' } },
      }),
      attempt('error'),
    ]),
    // The connection goes silent halfway (not even a keep-alive) for longer than Qwen's idle limit.
    silent: scenario('silent', [
      attempt(
        'silent',
        {},
        { pauses: [{ fraction: 0.5, ms: (IDLE_LIMIT_S + 4) * 1000 * SPEED.silent, keepAlive: false }] },
      ),
      attempt('silent'),
    ]),
    allow: scenario('allow', [attempt('allow')]),
    reject: scenario('reject', [attempt('reject')]),
  };
}

/** A label that counts arguments: its bytes (KB as bytes), or null. */
function counted(text) {
  const m = text.match(/^WriteFile · receiving ([\d.]+) (B|KB)(?:, \d+ lines?)? \[Pending\]$/);
  return m ? Number(m[1]) * (m[2] === 'KB' ? 1024 : 1) : null;
}
/** What a card shows once Qwen wrote the file: its own title for the call, and Completed. */
const written = (name) => `Writing to ${FILES[name][0]} [Completed]`;
const notRun = (why) => `WriteFile · not run: ${why} [Failed]`;
/**
 * How a stalled card ends on each release: 0.24.4 names Qwen's idle limit;
 * 0.21.x's Anthropic generator has no idle guard (lib/qwen/idle-limit.mjs),
 * so Qwen never gives up and the card names no deadline.
 */
const STALL_END = {
  '0.21.10': /^WriteFile · (waiting for the model|no data from the provider), \d+ s \[Pending\]$/,
  '0.24.4': new RegExp(
    `^WriteFile · (waiting for the model|no data from the provider), \\d+ s \\(Qwen gives up at ${IDLE_LIMIT_S} s\\) \\[Pending\\]$`,
  ),
};

// The two releases side by side: most of each run is waiting on the provider's pauses.
describe('Qwen Code through the launcher, as Zed shows its cards', { concurrency: 2 }, () => {
  for (const version of ['0.21.10', '0.24.4']) {
    const build = qwenBuildOrSkip(version);
    const skip = build.skip ?? (process.platform === 'win32' ? 'the launcher is started as a POSIX command' : false);
    // One scenario at a time in each Qwen: the user's answer to a permission is the current scenario's.
    describe(
      `what a Zed user reads on Qwen Code ${version}'s cards, through the launcher: anthropic`,
      { skip, concurrency: 1 },
      () => {
        let server;
        let qwen;
        let workspaces;
        /** sessionId → the Zed views of it: this Zed's rules, and a Zed that reads ACP's `name`. */
        const threads = new Map();
        /** How the user answers the next permission request, by scenario. */
        const answers = { reject: 'reject_once' };
        let current;

        before(async () => {
          workspaces = {};
          for (const name of Object.keys(PROMPTS)) {
            workspaces[name] = path.join(tmp, version, name);
            fs.mkdirSync(workspaces[name], { recursive: true });
            workspaces[name] = fs.realpathSync(workspaces[name]);
          }
          server = await startProvider({
            speed: 20,
            scenarioSpeed: SPEED,
            scenarios: qwenScenarios(workspaces),
            fallback: sideAnswer,
          });
          qwen = await launchQwen({
            version,
            provider: 'anthropic',
            providerUrl: server.url,
            command: launcher,
            retryInitialDelayMs: 100,
            env: {
              TOOLCALL_STREAM_QWEN_CLI: build.dir,
              XDG_CACHE_HOME: path.join(tmp, 'cache'),
              TOOLCALL_STREAM_QWEN_PROGRESS: 'on',
              QWEN_STREAM_IDLE_TIMEOUT_MS: String(IDLE_LIMIT_S * 1000),
            },
            // Zed's authorize_tool_call first, then the answer goes back to Qwen.
            permission: (params) => {
              const kind = answers[current] ?? 'allow_once';
              for (const zed of threads.get(params.sessionId) ?? []) zed.authorize(params.toolCall.toolCallId, kind);
              return kind;
            },
          });
          qwen.events.on('message', ({ msg }) => {
            const pair = threads.get(msg.params?.sessionId);
            if (!pair) return;
            if (msg.method === 'session/update') {
              const update = brokenFrame(msg.params.update);
              if (update) for (const zed of pair) zed.sessionUpdate(update);
            } else if (msg.method === 'session/request_permission')
              for (const zed of pair)
                zed.requestPermission(brokenFrame({ sessionUpdate: 'tool_call_update', ...msg.params.toolCall }));
          });
        });
        after(async () => {
          const exit = await qwen?.close();
          await server?.close();
          if (exit) assert.equal(exit.code, 0, `qwen exit (${exit.signal ?? ''}); stderr: ${qwen.stderr.slice(-2000)}`);
        });

        /** Prompts scenario `name` in a new session; the Zed view and the outcome. */
        async function run(name, { onUpdate } = {}) {
          current = name;
          const sessionId = await qwen.newSession(workspaces[name]);
          const pair = [new ZedThread(), new ZedThread({ nameFrom: 'acp' })];
          threads.set(sessionId, pair);
          const listener = (e) => e.sessionId === sessionId && onUpdate?.(e, { sessionId, zed: pair });
          qwen.events.on('update', listener);
          const outcome = await qwen.prompt(sessionId, PROMPTS[name]).then(
            (response) => ({ response }),
            (error) => ({ error }),
          );
          qwen.events.off('update', listener);
          for (const zed of pair) zed.stopped(outcome.response?.stopReason);
          return { ...outcome, zed: pair[0], acpNamed: pair[1], shown: pair[0].history(idOf(name)) };
        }

        it(
          'a large write: the card counts the arguments up, asks, runs and completes; the name is write_file',
          GUARD,
          async () => {
            const { response, zed, acpNamed, shown } = await run('write');
            assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
            assert.equal(shown[0], 'WriteFile [Pending]');
            const counts = shown.map(counted).filter((n) => n !== null);
            assert.ok(counts.length >= 2, `counting up: ${JSON.stringify(shown)}`);
            for (let i = 1; i < counts.length; i++) assert.ok(counts[i] > counts[i - 1], 'each count is larger');
            const asked = shown.findIndex((t) => t.endsWith('[Waiting for confirmation]'));
            assert.ok(
              asked > shown.indexOf(shown.find((t) => counted(t) !== null)),
              `asked after counting: ${JSON.stringify(shown)}`,
            );
            assert.equal(shown.at(-1), written('write'));
            assert.equal(zed.cardsOf(idOf('write')).length, 1, 'one card');
            // Qwen names the tool in `_meta.toolName`, which Zed does not read: the launcher adds the
            // `_meta.tool_name` Zed reads, and ACP's `name` for a client that reads the standard field.
            assert.equal(zed.cardsOf(idOf('write'))[0].toolName, 'write_file', "Zed's _meta.tool_name");
            assert.equal(acpNamed.cardsOf(idOf('write'))[0].toolName, 'write_file', "ACP's name");
            assert.equal(fs.readFileSync(path.join(workspaces.write, FILES.write[0]), 'utf8'), bigDocument());
          },
        );

        it(
          'both pauses: the card says how long, why, and when Qwen gives up (where it does); then counts on and completes',
          GUARD,
          async () => {
            const { response, shown } = await run('pauses');
            assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
            const model = shown.findIndex((t) => t.startsWith('WriteFile · waiting for the model, '));
            const silent = shown.findIndex((t) => t.startsWith('WriteFile · no data from the provider, '));
            assert.ok(
              model > 0 && silent > model,
              `the pause with keep-alives, then the silent one: ${JSON.stringify(shown)}`,
            );
            for (const t of shown.filter((s) => / · (waiting for the model|no data from the provider), /.test(s)))
              assert.match(t, STALL_END[version]);
            assert.ok(
              shown.slice(silent).some((t) => counted(t) !== null),
              'counting again after the pauses',
            );
            assert.equal(shown.at(-1), written('pauses'));
          },
        );

        it(
          'a stream that ends mid-arguments: the card says the request is being retried; the retry completes it',
          GUARD,
          async () => {
            const { response, shown } = await run('retry');
            assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
            assert.ok(shown.includes(notRun('the request is being retried')), JSON.stringify(shown));
            assert.equal(shown.at(-1), written('retry'));
          },
        );

        it(
          'an error event mid-arguments: retried (0.24.4) or the turn fails (0.21.10), and the card says which',
          GUARD,
          async () => {
            const { response, error, shown } = await run('error');
            if (version === '0.21.10') {
              assert.ok(error, 'the turn fails');
              assert.equal(shown.at(-1), notRun('the stream failed'));
            } else {
              assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
              assert.ok(shown.includes(notRun('the request is being retried')), JSON.stringify(shown));
              assert.equal(shown.at(-1), written('error'));
            }
          },
        );

        it('Stop while the card counts: Canceled at once, then the reason it did not run', GUARD, async () => {
          let stopped = false;
          const { response, shown } = await run('cancel', {
            onUpdate(e, { sessionId, zed }) {
              if (stopped || !e.update._meta?.progress) return;
              stopped = true;
              for (const z of zed) z.cancel(); // Zed's Stop button: AcpThread::cancel, then session/cancel.
              qwen.cancel(sessionId);
            },
          });
          assert.equal(response?.stopReason, 'cancelled');
          assert.ok(counted(shown.at(-3) ?? '') !== null, `counting when Stop was pressed: ${JSON.stringify(shown)}`);
          assert.match(shown.at(-2), /^WriteFile · receiving .* \[Canceled\]$/);
          assert.equal(shown.at(-1), notRun('cancelled'));
        });

        for (const [name, rest] of [
          ['allow', ['[In Progress]', '[Completed]']],
          ['reject', ['[Rejected]', '[Failed]']],
        ])
          it(
            `a permission, ${name === 'allow' ? 'allowed' : 'rejected'}: the card waits for the user, then shows the answer`,
            GUARD,
            async () => {
              const { response, shown } = await run(name);
              assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
              const asked = shown.findIndex((t) => t.endsWith('[Waiting for confirmation]'));
              assert.ok(asked > 0, JSON.stringify(shown));
              assert.deepEqual(
                shown.slice(asked + 1).map((t) => t.slice(t.lastIndexOf('['))),
                rest,
                JSON.stringify(shown),
              );
              assert.equal(fs.existsSync(path.join(workspaces[name], FILES[name][0])), name === 'allow');
            },
          );

        it(
          "a stream silent past Qwen's idle limit: the card names the limit, then says the call did not run",
          { ...GUARD, skip: version === '0.24.4' ? false : '0.21.x has no idle guard on Anthropic: Qwen waits' },
          async () => {
            const { response, shown } = await run('silent');
            assert.ok(
              shown.some((t) => t.startsWith('WriteFile · no data from the provider, ') && STALL_END[version].test(t)),
              JSON.stringify(shown),
            );
            assert.equal(shown.at(-1), notRun(`no data for ${IDLE_LIMIT_S} s`));
            // Qwen abandons the stream and ends the turn without running the call.
            assert.equal(response?.stopReason, 'end_turn', JSON.stringify(shown));
          },
        );
      },
    );
  }
});
