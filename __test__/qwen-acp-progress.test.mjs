// Live progress on Qwen Code's own preparing cards is added only where its
// ToolCallEmitter is the code the hook knows (lib/qwen/acp-progress.mjs),
// and only when asked for in ACP mode (lib/qwen/progress-setting.mjs);
// otherwise `--check` says why, and Qwen's cards stay as Qwen shows them.
// Checked on the published releases of each code variant, and on a copy of
// 0.24.4 whose emitter was edited.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QWEN_VARIANT_RELEASES, qwenBuildOrSkip } from './helpers/qwen-builds.mjs';
import { emitterClassText, emitterCodeMismatch } from '../lib/qwen/acp-progress.mjs';
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

test('an emitter that is not the code the hook knows is named with what is missing', () => {
  const build = qwenBuildOrSkip('0.24.4');
  if (build.skip) return;
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
