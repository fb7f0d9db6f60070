// Live progress on Qwen Code's own preparing cards is added only where its
// ToolCallEmitter is the code the hook knows (lib/qwen/acp-progress.mjs),
// and only when asked for in ACP mode (lib/qwen/progress-setting.mjs);
// otherwise `--check` says why, and Qwen's cards stay as Qwen shows them.
// Checked on the published releases of each code variant, and on a copy of
// 0.24.4 whose emitter was edited. Then the published 0.24.4 in ACP mode,
// started by the launcher over real pipes against the loopback provider, with
// a model that names its tool with 4 MiB of hostile text: with progress on,
// what the hook adds (the progress frames, ACP's `name`) stays small and
// printable; with it off, Qwen's frames are stock (no `name`, no progress).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QWEN_VARIANT_RELEASES, qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { sideAnswer } from '../devtools/qwen-side-requests.mjs';
import { startProvider } from '../packages/agent/demo/provider.mjs';
import { longFixture } from '../packages/agent/demo/scenarios.mjs';
import { emitterClassText, emitterCodeMismatch, installCardProgress } from '../lib/qwen/acp-progress.mjs';
import { progressSetting } from '../lib/qwen/progress-setting.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-progress-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The chunk of a bundle that holds the ToolCallEmitter class, and its text. */
function emitterChunk(dir) {
  for (const f of fs.readdirSync(path.join(dir, 'chunks'))) {
    const file = path.join(dir, 'chunks', f);
    const text = fs.readFileSync(file, 'utf8');
    if (emitterClassText(text)) return { file, text };
  }
  return undefined;
}

for (const version of QWEN_VARIANT_RELEASES) {
  const build = qwenBuildOrSkip(version);
  test(`Qwen Code ${version}: its ToolCallEmitter is the code the hook knows`, { skip: build.skip ?? false }, () => {
    const chunk = emitterChunk(build.dir);
    assert.ok(chunk, 'the class is in a chunk');
    assert.equal(emitterCodeMismatch(emitterClassText(chunk.text)), undefined);
  });
}

test('an emitter that is not the code the hook knows is named with what is missing', (t) => {
  const build = qwenBuildOrSkip('0.24.4');
  if (build.skip) return t.skip(build.skip);
  const text = emitterClassText(emitterChunk(build.dir).text);
  assert.match(
    emitterCodeMismatch(text.replace('preparationDiscarded: true', 'discarded: true')),
    /^ToolCallEmitter\.emitPreparationDiscarded is not the code this hook knows \(no preparationDiscarded: true\)$/,
  );
  assert.match(
    emitterCodeMismatch(text.replaceAll('params.phase === "preparing"', 'params.preparing')),
    /^ToolCallEmitter\.emitStart is not the code this hook knows/,
  );
  assert.equal(
    emitterCodeMismatch(text.replace(/\n {2}async emitResult\(/, '\n  async emitOutcome(')),
    'ToolCallEmitter.emitResult was not found',
  );
  assert.equal(emitterCodeMismatch(undefined), "Qwen's ToolCallEmitter was not found in the bundle");
});

test("Qwen Code 0.24.4's own ToolCallEmitter, wrapped: ACP's name on each tool_call, on an update only when it renames the card", async (t) => {
  const build = qwenBuildOrSkip('0.24.4');
  if (build.skip) return t.skip(build.skip);
  // The bundle's own module (the class the preload wraps), in this process only.
  const { ToolCallEmitter } = await import(pathToFileURL(emitterChunk(build.dir).file).href);
  installCardProgress(ToolCallEmitter);
  const sent = [];
  const emitter = new ToolCallEmitter({ sendUpdate: async (update) => sent.push(update) });
  const start = (callId, toolName, phase) =>
    emitter.emitStart({ callId, toolName, args: {}, status: phase ? 'pending' : 'in_progress', phase });
  await start('a', 'read_file', 'preparing');
  await start('a', 'read_file');
  await start('b', 'read_file', 'preparing');
  await start('b', 'read_many_files');
  await start('c', 'x'.repeat(1000));
  await emitter.emitResult({ callId: 'c', toolName: 'x'.repeat(1000), success: true, message: [] });
  assert.deepEqual(
    sent.map((u) => [u.sessionUpdate, u.toolCallId, u.name]),
    [
      ['tool_call', 'a', 'read_file'],
      ['tool_call_update', 'a', undefined],
      ['tool_call', 'b', 'read_file'],
      ['tool_call_update', 'b', 'read_many_files'],
      ['tool_call', 'c', `${'x'.repeat(119)}…`],
      ['tool_call_update', 'c', undefined],
    ],
  );
  // After the title, as this package's own frames have it; Qwen's _meta.toolName untouched, and
  // the tool_call's _meta.tool_name (Zed's key) beside it, bounded as `name` is.
  assert.deepEqual(Object.keys(sent[0]).slice(0, 5), ['sessionUpdate', 'toolCallId', 'status', 'title', 'name']);
  assert.equal(sent[4]._meta.toolName, 'x'.repeat(1000));
  assert.deepEqual(
    sent.map((u) => u._meta?.tool_name),
    ['read_file', undefined, 'read_file', undefined, `${'x'.repeat(119)}…`, undefined],
  );
});

test('progress is wanted only when asked for, in ACP mode', () => {
  const on = { TOOLCALL_STREAM_QWEN_PROGRESS: 'on' };
  assert.deepEqual(progressSetting(['node', 'cli.js', '--acp'], on), { wanted: true });
  assert.deepEqual(progressSetting(['node', 'cli.js', '--experimental-acp'], on), { wanted: true });
  assert.match(progressSetting(['node', 'cli.js', '-p', 'hi'], on).reason, /^not in ACP mode/);
  assert.match(progressSetting(['node', 'cli.js', '--acp'], {}).reason, /^not asked for/);
  assert.match(
    progressSetting(['node', 'cli.js', '--acp'], { TOOLCALL_STREAM_QWEN_PROGRESS: 'off' }).reason,
    /^turned off/,
  );
});

test(
  '--check on 0.24.4 with an edited emitter: progress off, saying which method changed; --no-progress: off, saying so',
  { skip: qwenBuildOrSkip('0.24.4').skip ?? process.platform === 'win32' },
  () => {
    const latest = qwenBuildOrSkip('0.24.4');
    const dir = path.join(tmp, 'edited-emitter');
    fs.mkdirSync(dir);
    for (const f of fs.readdirSync(latest.dir)) {
      if (['package.json', 'cli.js', 'cli-entry.js', 'chunks'].includes(f))
        fs.cpSync(path.join(latest.dir, f), path.join(dir, f), { recursive: true });
      else fs.symlinkSync(path.join(latest.dir, f), path.join(dir, f));
    }
    const check = (args, dirOf = dir) =>
      spawnSync(process.execPath, [launcher, '--qwen', dirOf, ...args], {
        encoding: 'utf8',
        env: { ...process.env, XDG_CACHE_HOME: path.join(tmp, 'cache'), TOOLCALL_STREAM_QWEN_PROGRESS: '' },
      });
    const line = (r) => r.stdout.split('\n').find((l) => l.startsWith('live progress'));
    assert.equal(
      line(check(['--check'])),
      'live progress on preparing cards (--acp): on (--no-progress or TOOLCALL_STREAM_QWEN_PROGRESS=off turns it off)',
    );
    assert.equal(
      line(check(['--no-progress', '--check'])),
      'live progress on preparing cards (--acp): off: turned off (TOOLCALL_STREAM_QWEN_PROGRESS=off)',
    );
    const { file, text } = emitterChunk(dir);
    fs.writeFileSync(file, text.replace('preparationDiscarded: true', 'discarded: true'));
    const r = check(['--check']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      line(r),
      'live progress on preparing cards (--acp): off: ToolCallEmitter.emitPreparationDiscarded is not the code this hook knows (no preparationDiscarded: true)',
    );
  },
);

/** A tool name of 4 MiB that tries to restyle, reorder and break a client's lines. */
const HOSTILE_NAME = `\u001b[2J\u001b]0;owned\u0007\u202egnp.exe\u2066\r\n${'w'.repeat(4 << 20)}`;
/** What a title may not show: C0 and C1 controls, bidirectional formatting characters. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE_ID = 'toolu_01HostileName';
const hostileScenario = {
  hostile: {
    prompt: 'Write the fixture table to table.js.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: HOSTILE_ID,
              name: HOSTILE_NAME,
              input: { file_path: '/nowhere/table.js', content: longFixture().slice(0, 6000) },
              // Seconds on the clock at speed 4, with keep-alives: past the 5 s after which a card says it waits.
              pauses: [{ fraction: 0.5, ms: 32_000, keepAlive: true }],
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'No such tool.' }], stop: 'end_turn' }],
    ],
  },
};

/** One prompt of the hostile scenario in Qwen 0.24.4 started by the launcher; its card's frames as sent. */
async function hostileRun(progress) {
  const build = qwenBuildOrSkip('0.24.4');
  const server = await startProvider({ speed: 4, scenarios: hostileScenario, fallback: sideAnswer });
  const qwen = await launchQwen({
    version: '0.24.4',
    provider: 'anthropic',
    providerUrl: server.url,
    command: launcher,
    env: {
      TOOLCALL_STREAM_QWEN_CLI: build.dir,
      XDG_CACHE_HOME: path.join(tmp, 'cache'),
      TOOLCALL_STREAM_QWEN_PROGRESS: progress ? 'on' : 'off',
    },
  });
  try {
    const sessionId = await qwen.newSession(fs.realpathSync(tmp));
    const response = await qwen.prompt(sessionId, hostileScenario.hostile.prompt).catch((error) => ({ error }));
    const lines = qwen.wire
      .filter((e) => e.msg.method === 'session/update' && e.msg.params.sessionId === sessionId)
      .map((e) => e.msg)
      .filter((msg) => msg.params.update.toolCallId === HOSTILE_ID);
    return { response, lines, stderr: qwen.stderr };
  } finally {
    const exit = await qwen.close();
    await server.close();
    assert.equal(exit.code, 0, `qwen exit (${exit.signal ?? ''})`);
  }
}

const lineBytes = (msg) => Buffer.byteLength(JSON.stringify(msg)) + 1;

/**
 * How Qwen ends that turn: the call fails as an unknown tool, and the next
 * request, whose history holds the 4 MiB name, is refused before it is sent
 * (Qwen's own check of the context size after compression).
 */
function assertQwenRefusedTheHistory({ response, stderr }) {
  assert.match(response.error?.data?.details ?? '', /^Context is too large to send safely/, stderr.slice(-2000));
}
const isProgress = (msg) => msg.params.update._meta?.progress !== undefined;

test(
  'the launcher in Qwen Code 0.24.4, progress on, a 4 MiB hostile tool name: what the hook adds stays small and printable',
  { skip: qwenBuildOrSkip('0.24.4').skip ?? process.platform === 'win32', timeout: 300_000 },
  async () => {
    const run = await hostileRun(true);
    assertQwenRefusedTheHistory(run);
    const { lines } = run;
    const cut = `${HOSTILE_NAME.slice(0, 119)}…`;
    const progress = lines.filter(isProgress);
    assert.ok(progress.length >= 2, `${progress.length} progress frames`);
    assert.ok(
      progress.some((msg) => msg.params.update._meta.progress.stalled === 'model'),
      'the pause with keep-alives is announced',
    );
    let total = 0;
    for (const msg of progress) {
      const bytes = lineBytes(msg);
      assert.ok(bytes < 4096, `a ${bytes}-byte progress line`);
      total += bytes;
      const { title } = msg.params.update;
      assert.doesNotMatch(title, UNPRINTABLE);
      // Qwen titles a tool it does not know by its name: the card's title is the name, bounded.
      assert.ok(title.startsWith(`[2J]0;ownedgnp.exe  ${'w'.repeat(99)}… · `), title.slice(0, 200));
    }
    assert.ok(total < 64 << 10, `${total} bytes of progress frames`);
    // ACP's name on Qwen's own tool_call: the one field the hook adds to a frame of Qwen's, cut.
    const [opened] = lines;
    assert.equal(opened.params.update.sessionUpdate, 'tool_call');
    assert.equal(opened.params.update.name, cut);
    assert.deepEqual(
      lines.filter((msg) => 'name' in msg.params.update).map((msg) => msg.params.update.sessionUpdate),
      ['tool_call'],
    );
    // Qwen's own frames carry the whole name (its title, _meta.toolName, its error text): stock.
    assert.equal(opened.params.update._meta.toolName, HOSTILE_NAME);
  },
);

test(
  'the launcher in Qwen Code 0.24.4, progress off, the same name: the frames are stock, no name and no progress',
  { skip: qwenBuildOrSkip('0.24.4').skip ?? process.platform === 'win32', timeout: 300_000 },
  async () => {
    const run = await hostileRun(false);
    assertQwenRefusedTheHistory(run);
    const { lines } = run;
    assert.ok(lines.length >= 2, 'the card opened and ended');
    assert.deepEqual(lines.filter(isProgress), []);
    assert.deepEqual(
      lines.filter((msg) => 'name' in msg.params.update),
      [],
    );
  },
);
