#!/usr/bin/env node
// `npm run demo [-- --provider openai] [-- --speed N]`
//
// No network, no key: an embedded loopback provider replays recorded,
// realistically paced streams; bin/agent.js runs as a child process over real
// stdio pipes with the real provider SDK; a scripted ACP client (the SDK's
// client() app) prompts it and prints what an editor would see, as a timeline
// and a summary table. Scenarios 1–4 run with --approve=always; 5–6 in the
// default mode, where the agent asks before writing and the scripted user
// allows, then rejects.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startProvider } from './provider.mjs';
import { launchAgent } from './harness.mjs';
import { scenarios, workspaceFiles } from './scenarios.mjs';
import { sessionNotificationErrors } from './schema.mjs';

const { values } = parseArgs({
  options: {
    provider: { type: 'string', default: 'anthropic' },
    speed: { type: 'string', default: '1' },
    'cancel-after-ms': { type: 'string', default: '1500' },
    keep: { type: 'boolean', default: false },
  },
});
if (!['anthropic', 'openai'].includes(values.provider)) {
  console.error(`--provider must be anthropic or openai, not ${values.provider}`);
  process.exit(2);
}
const speed = Math.max(0.1, Number(values.speed) || 1);
const cancelAfterMs = Number(values['cancel-after-ms']) / speed;

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (s) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const c = {
  dim: paint('2'),
  bold: paint('1'),
  green: paint('32'),
  red: paint('31'),
  yellow: paint('33'),
  cyan: paint('36'),
  magenta: paint('35'),
};
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const clip = (s, n = 72) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

async function makeWorkspace() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-demo-'));
  for (const [file, body] of Object.entries(workspaceFiles)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), body);
  }
  return dir;
}

/**
 * Runs one scenario in a fresh session and prints its timeline as it happens.
 * Returns the measurements for the summary table.
 */
async function runScenario({ agent, provider, cwd, name, short, title, cancel }) {
  const sessionId = await agent.newSession(cwd);
  const scenario = scenarios[name];
  console.log(`\n${c.bold(title)}`);
  console.log(`  ${c.dim('user ▸')} ${scenario.prompt}`);

  const t0 = performance.now();
  const at = (t) => c.dim(`+${((t - t0) / 1000).toFixed(2).padStart(5)}s`);
  const line = (t, tag, text) => console.log(`  ${at(t)}  ${tag.padEnd(tty ? 20 : 11)} ${text}`);
  const m = {
    name,
    short,
    firstCard: null,
    completeCall: null,
    inProgress: null,
    discarded: 0,
    /** discardReason → how many cards it discarded. */
    discardReasons: new Map(),
    reprepared: 0,
    stop: null,
    asked: 0,
    frames: 0,
    invalid: [],
    progressFrames: 0,
    /** The longest time a preparing card showed no change, before its call or its discard. */
    longestStill: null,
  };
  const seenCards = new Set();
  /** callId → when the card last changed, and the last progress line printed. */
  const lastChange = new Map();
  const lastPrinted = new Map();
  const settle = (id, t) => {
    const since = lastChange.get(id);
    if (since === undefined) return;
    m.longestStill = Math.max(m.longestStill ?? 0, t - since);
    lastChange.delete(id);
  };
  let textRun = null; // consecutive message/thought chunks, printed as one line
  const flush = () => {
    if (!textRun) return;
    line(
      textRun.at,
      textRun.thought ? c.magenta('thought') : c.cyan('message'),
      clip(textRun.text.replace(/\s+/g, ' ').trim()),
    );
    textRun = null;
  };

  let cancelTimer;
  const onUpdate = ({ at: t, sessionId: sid, update }) => {
    if (sid !== sessionId) return;
    m.frames++;
    const errors = sessionNotificationErrors({ sessionId: sid, update });
    if (errors) m.invalid.push(errors);
    const kind = update.sessionUpdate;
    if (update._meta?.usage) {
      flush();
      const u = update._meta.usage;
      line(
        t,
        c.dim('usage'),
        c.dim(`${u.inputTokens} in / ${u.outputTokens} out tokens, stream ${update._meta.durationMs} ms`),
      );
      return;
    }
    if (kind === 'agent_message_chunk' || kind === 'agent_thought_chunk') {
      const thought = kind === 'agent_thought_chunk';
      if (textRun && textRun.thought !== thought) flush();
      textRun ??= { at: t, thought, text: '' };
      textRun.text += update.content?.text ?? '';
      return;
    }
    flush();
    if (kind === 'plan') {
      line(t, c.cyan('plan'), update.entries.map((e) => `[${e.status}] ${e.content}`).join('; '));
      return;
    }
    if (kind !== 'tool_call' && kind !== 'tool_call_update') return;
    const meta = update._meta ?? {};
    const id = update.toolCallId;
    if (kind === 'tool_call' && update.status === 'pending' && meta.phase === 'preparing') {
      const again = seenCards.has(id);
      if (again) m.reprepared++;
      seenCards.add(id);
      lastChange.set(id, t);
      m.firstCard ??= t - t0;
      line(
        t,
        c.green('card ◌'),
        `${id}  ${update.title}  ${c.bold('pending')} (preparing, rawInput {})${again ? c.yellow('  ← prepared again on the retry') : ''}`,
      );
      if (cancel && !cancelTimer) {
        cancelTimer = setTimeout(() => {
          line(performance.now(), c.yellow('client'), `session/cancel  (the arguments are still streaming)`);
          agent.cancel(sessionId);
        }, cancelAfterMs);
      }
    } else if (meta.progress) {
      // A live progress frame: the card's title counts up, or says why it waits.
      m.progressFrames++;
      settle(id, t);
      lastChange.set(id, t);
      const stall = meta.progress.stalled;
      const last = lastPrinted.get(id);
      // Printed once a second, and whenever the card starts or stops waiting.
      if (last === undefined || last.stall !== stall || t - last.at >= 1000 / speed) {
        lastPrinted.set(id, { at: t, stall });
        line(
          t,
          stall ? c.yellow('card ⋯') : c.green('card ⋯'),
          `${id}  ${stall ? c.yellow(update.title) : update.title}`,
        );
      }
    } else if (meta.preparationDiscarded) {
      settle(id, t);
      m.discarded++;
      // The cause, as the card's title says it to an editor that reads no _meta.
      const cause = meta.discardReason ?? 'not said';
      m.discardReasons.set(cause, (m.discardReasons.get(cause) ?? 0) + 1);
      line(t, c.yellow('card ✕'), `${id}  ${update.title} (failed + preparationDiscarded, ${cause})`);
    } else if (update.status === 'in_progress') {
      settle(id, t);
      m.inProgress ??= t - t0;
      const size = JSON.stringify(update.rawInput ?? {}).length;
      line(
        t,
        c.green('card ▶'),
        `${id}  ${update.title}  ${c.bold('in_progress')}  rawInput ${size > 200 ? kb(size) : JSON.stringify(update.rawInput)}`,
      );
    } else if (update.status === 'completed') {
      const diff = (update.content ?? []).find((x) => x.type === 'diff');
      line(
        t,
        c.green('card ✔'),
        `${id}  ${c.bold('completed')}${diff ? `  diff ${path.relative(cwd, diff.path)} (${kb(Buffer.byteLength(diff.newText))})` : ''}`,
      );
    } else if (update.status === 'failed') {
      const msg = update.content?.[0]?.content?.text ?? '';
      line(t, c.red('card ✖'), `${id}  ${c.bold('failed')}  ${clip(msg, 90)}`);
    } else if (kind === 'tool_call') {
      m.firstCard ??= t - t0;
      line(t, c.green('card'), `${id}  ${update.title}  ${update.status}`);
    }
  };

  // Provider-side view: what the provider has sent while the editor already shows the card.
  const lastProgress = new Map();
  const onFrame = ({ record, note, at: t }) => {
    if (!isOurs(record)) return;
    if (note.error) {
      flush();
      line(t, c.red('provider'), `event: error ${note.error} — the stream is cut mid-arguments`);
    } else if (note.pause) {
      flush();
      line(
        t,
        c.dim('provider'),
        c.dim(
          `the model stops writing for ${(note.pause.ms / 1000).toFixed(1)} s: ${note.pause.keepAlive ? 'keep-alives only' : 'not a byte on the connection'}`,
        ),
      );
    } else if (note.argsComplete) {
      m.completeCall ??= t - t0;
      if (note.argBytes > 1000) {
        flush();
        line(
          t,
          c.dim('provider'),
          c.dim(
            `${note.tool} arguments complete (${kb(note.argBytes)}) — only now could a card appear without preparation`,
          ),
        );
      }
    } else if (note.argSent !== undefined && note.argBytes > 1000) {
      const last = lastProgress.get(note.id);
      if (last === undefined || t - last >= 1000 / speed) {
        lastProgress.set(note.id, t);
        flush();
        const progress =
          last === undefined
            ? `first argument bytes (${kb(note.argBytes)} to come)`
            : `${kb(note.argSent)} / ${kb(note.argBytes)}`;
        line(t, c.dim('provider'), c.dim(`${note.tool} arguments streaming… ${progress}`));
      }
    }
  };
  const ourRequests = new Set();
  const isOurs = (record) => ourRequests.has(record);
  const onRequest = (record) => {
    if (record.scenario !== name) return;
    ourRequests.add(record);
    if (record.attempt > 0) {
      m.completeCall = null; // measured on the attempt that succeeds
      flush();
      line(
        performance.now(),
        c.dim('provider'),
        c.dim(`request ${record.attempt + 1} for the same turn (the agent's retry)`),
      );
    }
  };

  // Permission requests (not session/update: a request the client answers).
  const onMessage = ({ at: t, msg }) => {
    if (msg.method !== 'session/request_permission' || msg.params.sessionId !== sessionId) return;
    settle(msg.params.toolCall?.toolCallId, t);
    flush();
    m.asked++;
    // Without preparation, the request is where the card would first appear.
    m.inProgress ??= t - t0;
    const tc = msg.params.toolCall;
    const diff = (tc.content ?? []).find((x) => x.type === 'diff');
    line(
      t,
      c.yellow('permission ?'),
      `${tc.toolCallId}  ${tc.title}  (same card; ${diff ? `diff ${path.relative(cwd, diff.path)}, ${Buffer.byteLength(diff.newText)} bytes` : 'no diff'})  options: ${msg.params.options.map((o) => o.name).join(' / ')}`,
    );
  };

  // The agent's own diagnostics (stderr), e.g. its retry decision.
  const onStderr = (d) => {
    for (const l of d.split('\n').filter(Boolean)) {
      flush();
      line(performance.now(), c.dim('agent'), c.dim(l.replace(/^\[toolcall-stream-agent\]\s*/, '')));
    }
  };
  agent.events.off('stderr', printStderr);
  agent.events.on('stderr', onStderr);
  agent.events.on('update', onUpdate);
  agent.events.on('message', onMessage);
  provider.events.on('frame', onFrame);
  provider.events.on('request', onRequest);
  try {
    const response = await agent.prompt(sessionId, scenario.prompt);
    m.stop = response.stopReason;
    flush();
    line(performance.now(), c.bold('stop'), response.stopReason);
  } finally {
    clearTimeout(cancelTimer);
    agent.events.off('update', onUpdate);
    agent.events.off('message', onMessage);
    agent.events.off('stderr', onStderr);
    agent.events.on('stderr', printStderr);
    provider.events.off('frame', onFrame);
    provider.events.off('request', onRequest);
  }
  return m;
}

/**
 * A scenario's discarded cards with why (their `_meta.discardReason`, what
 * each card's title said) and how many were prepared again:
 * `2 (retry 2; re-prepared 2)`.
 */
function discardedCell(r) {
  const notes = [...r.discardReasons].map(([cause, n]) => `${cause} ${n}`);
  if (r.reprepared) notes.push(`re-prepared ${r.reprepared}`);
  return notes.length === 0 ? String(r.discarded) : `${r.discarded} (${notes.join('; ')})`;
}

function table(rows) {
  const head = [
    'scenario',
    'card (preparing)',
    'complete call',
    'card without preparation',
    'earlier by',
    'longest still',
    'discarded',
    'asked',
    'stop',
  ];
  const body = rows.map((r) => [
    r.short,
    r.firstCard === null ? '—' : `+${secs(r.firstCard)}`,
    r.completeCall === null ? 'never' : `+${secs(r.completeCall)}`,
    r.inProgress === null ? 'never (no call ran)' : `+${secs(r.inProgress)}`,
    r.firstCard !== null && r.inProgress !== null ? secs(r.inProgress - r.firstCard) : '—',
    r.longestStill === null ? '—' : `${secs(r.longestStill)}`,
    discardedCell(r),
    String(r.asked),
    r.stop,
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => `  ${cells.map((x, i) => x.padEnd(width[i])).join('  │  ')}`;
  console.log(c.bold(fmt(head)));
  console.log(`  ${width.map((w) => '─'.repeat(w)).join('──┼──')}`);
  for (const b of body) console.log(fmt(b));
}

async function main() {
  const started = performance.now();
  const provider = await startProvider({ speed });
  const model = values.provider === 'openai' ? 'gpt-4.1' : 'claude-sonnet-4-5';
  // Scenarios 1–4 are about cards: this agent never asks (--approve=always).
  const agent = await launchAgent({
    provider: values.provider,
    providerUrl: provider.url,
    model,
    retryDelayMs: Math.round(500 / speed),
    extraArgs: ['--approve=always'],
  });
  agent.events.on('stderr', printStderr);
  // Scenarios 5–6: the default mode, where a write asks first; the scripted
  // user answers what the scenario says.
  let nextAnswer = 'allow_once';
  const asking = await launchAgent({
    provider: values.provider,
    providerUrl: provider.url,
    model,
    retryDelayMs: Math.round(500 / speed),
    permission: (params) => {
      const option = params.options.find((o) => o.kind === nextAnswer);
      console.log(`  ${c.dim('       ')}  ${c.yellow('user'.padEnd(tty ? 20 : 11))} ${option.name}`);
      return { outcome: { outcome: 'selected', optionId: option.optionId } };
    },
  });
  asking.events.on('stderr', printStderr);
  const cwd = await makeWorkspace();
  const rejectCwd = await makeWorkspace();
  console.log(
    c.bold(
      `toolcall-stream demo — ${values.provider === 'openai' ? 'OpenAI-compatible chat completions' : 'Anthropic Messages'} stream`,
    ),
  );
  console.log(
    c.dim(
      `  provider  recorded streams replayed by ${provider.url} (loopback, no key, no network), real ${values.provider === 'openai' ? 'openai' : '@anthropic-ai/sdk'} client in the agent`,
    ),
  );
  console.log(
    c.dim(
      `  agent     ${path.relative(process.cwd(), agentPath())} over stdio (ACP ${agent.init.protocolVersion}, @agentclientprotocol/sdk), workspace ${cwd}`,
    ),
  );
  console.log(
    c.dim(
      `  legend    card ◌ preparing (id + name known, no arguments yet)   ⋯ live progress (counts only)   ▶ in_progress (complete arguments)   ✔/✖ result   ✕ discarded   permission ? the agent asks (default mode)`,
    ),
  );

  const results = [];
  try {
    results.push(
      await runScenario({
        agent,
        provider,
        cwd,
        name: 'large-write',
        short: 'large write_file',
        title: '1. A large write_file: the card appears while its arguments stream, and counts them up',
      }),
    );
    results.push(
      await runScenario({
        agent,
        provider,
        cwd,
        name: 'pause-mid-arguments',
        short: 'model pauses twice',
        title: '2. The model stops writing mid-arguments: the card says it waits, and for what',
      }),
    );
    results.push(
      await runScenario({
        agent,
        provider,
        cwd,
        name: 'overloaded-retry',
        short: 'overloaded + retry',
        title: '3. Overloaded mid-arguments: cards discarded, then prepared again on the retry',
      }),
    );
    results.push(
      await runScenario({
        agent,
        provider,
        cwd,
        name: 'cancel-mid-arguments',
        short: 'cancel mid-arguments',
        title: '4. session/cancel in the middle of the arguments',
        cancel: true,
      }),
    );
    nextAnswer = 'allow_once';
    results.push(
      await runScenario({
        agent: asking,
        provider,
        cwd,
        name: 'permission-write',
        short: 'ask, allowed',
        title: '5. Default mode: the agent asks before writing (the request is the same card), the user allows',
      }),
    );
    nextAnswer = 'reject_once';
    results.push(
      await runScenario({
        agent: asking,
        provider,
        cwd: rejectCwd,
        name: 'permission-write',
        short: 'ask, rejected',
        title: '6. Default mode: the user rejects the write; the card fails, the file is untouched, the turn ends',
      }),
    );
  } finally {
    await agent.close();
    await asking.close();
    await provider.close();
  }

  console.log(
    `\n${c.bold('Summary')}  ${c.dim('(times from the prompt; "card without preparation" is when the card would first appear without this package: execution start, after the complete call; "longest still": the longest a preparing card showed no change)')}`,
  );
  table(results);
  const frames = results.reduce((n, r) => n + r.frames, 0);
  const invalid = results.flatMap((r) => r.invalid);
  const written = await fs
    .stat(path.join(cwd, 'docs/design.md'))
    .then((s) => s.size)
    .catch(() => 0);
  const notWritten = await fs
    .stat(path.join(cwd, 'test/fixtures.js'))
    .then(() => false)
    .catch(() => true);
  console.log(
    `\n  ${invalid.length === 0 ? c.green('✔') : c.red('✖')} ${frames} session/update frames, ${invalid.length} invalid against the ACP JSON schema v1${invalid.length ? `: ${invalid[0]}` : ''}`,
  );
  console.log(
    `  ${written > 0 ? c.green('✔') : c.red('✖')} docs/design.md written (${kb(written)}); ${notWritten ? c.green('✔') : c.red('✖')} the cancelled test/fixtures.js was never written`,
  );
  const allowedNote = await fs
    .stat(path.join(cwd, 'notes/todo.md'))
    .then(() => true)
    .catch(() => false);
  const rejectedNote = await fs
    .stat(path.join(rejectCwd, 'notes/todo.md'))
    .then(() => true)
    .catch(() => false);
  const permissionOk = allowedNote && !rejectedNote;
  console.log(
    `  ${permissionOk ? c.green('✔') : c.red('✖')} the allowed note was written, the rejected one was not; ${results.filter((r) => r.asked > 0).length} scenarios asked, ${results.filter((r) => r.asked === 0).length} ran with --approve=always`,
  );
  if (values.keep) console.log(c.dim(`  workspaces kept at ${cwd} and ${rejectCwd}`));
  else {
    await fs.rm(cwd, { recursive: true, force: true });
    await fs.rm(rejectCwd, { recursive: true, force: true });
  }
  console.log(c.dim(`  total ${secs(performance.now() - started)}`));
  if (invalid.length > 0 || written === 0 || !notWritten || !permissionOk) process.exitCode = 1;
}

function printStderr(d) {
  process.stderr.write(c.dim(d));
}

function agentPath() {
  return new URL('../bin/agent.js', import.meta.url).pathname;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
