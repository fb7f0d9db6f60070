// What `toolcall-stream-qwen` takes from the user's environment and prints
// for the user's shell: TOOLCALL_STREAM_QWEN_PROGRESS in its usual spellings
// (an unknown value named once, the default kept); `npm root -g` run outside
// the project folder and, on Windows, without a shell; and `--check`'s
// commands quoted for the shell they are shown for, run through a real sh
// from folders whose names hold spaces, quotes and `$`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { progressSwitch, progressSetting, launcherProgress } from '../lib/qwen/progress-setting.mjs';
import { npmRootCommand } from '../lib/qwen/find-qwen.mjs';
import { checkReport } from '../lib/qwen/check.mjs';
import { commandLine, posixWord, powerShellWord } from '../lib/qwen/shell-words.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const preloadUrl = pathToFileURL(path.join(root, 'lib', 'qwen', 'preload.mjs')).href;
const latest = qwenBuildOrSkip('0.24.4');
const posix = process.platform !== 'win32';
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-launcher-env-')));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const home = path.join(tmp, 'home');
fs.mkdirSync(home);

const ownLines = (stderr) => stderr.split('\n').filter((l) => l.startsWith('toolcall-stream'));

/** Runs `args` under node in `cwd` with a scratch HOME and cache, only node's folder on PATH, and `env`. */
function run(args, { env = {}, cwd = tmp } = {}) {
  return spawnSync(process.execPath, args, {
    cwd,
    env: {
      HOME: home,
      XDG_CACHE_HOME: path.join(tmp, 'cache'),
      PATH: path.dirname(process.execPath),
      npm_config_update_notifier: 'false',
      QWEN_CODE_NO_RELAUNCH: '',
      ...env,
    },
    input: '',
    encoding: 'utf8',
  });
}

const UNKNOWN =
  /^TOOLCALL_STREAM_QWEN_PROGRESS="maybe" is not on or off \(on, true, 1, yes, enabled; off, false, 0, no, disabled\)/;

test('TOOLCALL_STREAM_QWEN_PROGRESS: the usual spellings in any case; anything else named, keeping the default', () => {
  const as = (value) => progressSwitch({ TOOLCALL_STREAM_QWEN_PROGRESS: value });
  for (const value of ['on', 'ON', 'true', 'True', '1', 'yes', 'YES', 'enabled', 'Enabled', ' on '])
    assert.equal(as(value), true, value);
  for (const value of ['off', 'OFF', 'false', 'FALSE', '0', 'no', 'No', 'disabled', 'DISABLED'])
    assert.equal(as(value), false, value);
  for (const value of [undefined, '', '  ']) assert.equal(as(value), undefined, JSON.stringify(value));
  for (const value of ['maybe', '2', 'onn', 'o n'])
    assert.ok(as(value).unknown.startsWith(`TOOLCALL_STREAM_QWEN_PROGRESS=${JSON.stringify(value)} is not on or off`));

  const acp = ['node', 'cli.js', '--acp'];
  assert.deepEqual(progressSetting(acp, { TOOLCALL_STREAM_QWEN_PROGRESS: 'Yes' }), { wanted: true });
  assert.deepEqual(progressSetting(acp, { TOOLCALL_STREAM_QWEN_PROGRESS: 'FALSE' }), {
    wanted: false,
    reason: 'turned off (TOOLCALL_STREAM_QWEN_PROGRESS=FALSE)',
  });
  const unknown = progressSetting(acp, { TOOLCALL_STREAM_QWEN_PROGRESS: 'maybe' });
  assert.deepEqual([unknown.wanted, unknown.unknown], [false, true]);
  assert.match(unknown.reason, UNKNOWN);
  assert.match(unknown.reason, /: left off, the default$/);

  // The launcher: on unless --no-progress or a spelling of off; an unknown value keeps it on, with a line.
  assert.deepEqual(launcherProgress(true, {}), { value: 'on', line: undefined });
  assert.deepEqual(launcherProgress(true, { TOOLCALL_STREAM_QWEN_PROGRESS: 'Disabled' }), { value: 'off' });
  assert.deepEqual(launcherProgress(false, { TOOLCALL_STREAM_QWEN_PROGRESS: 'maybe' }), { value: 'off' });
  const kept = launcherProgress(true, { TOOLCALL_STREAM_QWEN_PROGRESS: 'maybe' });
  assert.equal(kept.value, 'on');
  assert.match(kept.line, UNKNOWN);
  assert.match(kept.line, /: live progress stays on, the default$/);
});

test(
  'an unknown TOOLCALL_STREAM_QWEN_PROGRESS through the launcher: one line naming it, live progress on; a spelling of off turns it off',
  { skip: latest.skip, timeout: 120_000 },
  () => {
    const check = run([launcher, '--qwen', latest.dir, '--check'], { env: { TOOLCALL_STREAM_QWEN_PROGRESS: 'maybe' } });
    assert.equal(check.status, 0, check.stderr);
    assert.equal(ownLines(check.stderr).length, 1, check.stderr);
    assert.match(check.stderr, /^toolcall-stream-qwen: TOOLCALL_STREAM_QWEN_PROGRESS="maybe" is not on or off/);
    assert.match(check.stdout, /^live progress on preparing cards \(--acp\): on /m);

    const off = run([launcher, '--qwen', latest.dir, '--check'], {
      env: { TOOLCALL_STREAM_QWEN_PROGRESS: 'Disabled' },
    });
    assert.equal(off.stderr, '');
    assert.match(off.stdout, /^live progress on preparing cards \(--acp\): off: turned off/m);

    // The real Qwen in ACP mode: the line once, though cli.js runs twice; progress on in each.
    const report = path.join(tmp, 'unknown-launcher.ndjson');
    const r = run([launcher, '--qwen', latest.dir, '--acp'], {
      env: { TOOLCALL_STREAM_QWEN_PROGRESS: 'maybe', TOOLCALL_STREAM_QWEN_REPORT: report },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(ownLines(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /^toolcall-stream-qwen: TOOLCALL_STREAM_QWEN_PROGRESS="maybe"/m);
    for (const line of fs.readFileSync(report, 'utf8').trim().split('\n'))
      assert.deepEqual(JSON.parse(line).progress, { on: true });
  },
);

test(
  'an unknown TOOLCALL_STREAM_QWEN_PROGRESS with the bare preload: named in its one line, progress left off, Qwen served',
  { skip: latest.skip, timeout: 120_000 },
  () => {
    const report = path.join(tmp, 'unknown-preload.ndjson');
    const r = run([path.join(latest.dir, 'cli-entry.js'), '--acp'], {
      env: {
        NODE_OPTIONS: `--import=${preloadUrl}`,
        TOOLCALL_STREAM_QWEN_PROGRESS: 'maybe',
        TOOLCALL_STREAM_QWEN_REPORT: report,
      },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(ownLines(r.stderr).length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^toolcall-stream\/qwen: live progress off: TOOLCALL_STREAM_QWEN_PROGRESS="maybe" is not on or off .*: left off, the default$/m,
    );
    for (const line of fs.readFileSync(report, 'utf8').trim().split('\n')) {
      const { providers, progress } = JSON.parse(line);
      assert.deepEqual([providers.anthropic.served, providers.openai.served, progress.on], [true, true, false]);
    }
  },
);

test('npm root -g runs in the Node folder, never the working directory; on Windows npm own CLI with no shell', () => {
  for (const platform of ['linux', 'darwin', 'win32']) {
    const execPath = path.join(tmp, `node-${platform}`, platform === 'win32' ? 'node.exe' : 'node');
    const plain = npmRootCommand({ platform, execPath, env: {} });
    assert.equal(plain.options.cwd, path.dirname(execPath), platform);
    assert.notEqual(plain.options.cwd, process.cwd());
    if (platform !== 'win32') {
      assert.deepEqual([plain.file, plain.args, plain.options.shell], ['npm', ['root', '-g'], false]);
      continue;
    }
    // No npm beside node.exe: npm.cmd through cmd.exe, whose own folder search finds Node's.
    assert.deepEqual([plain.file, plain.options.shell], ['npm.cmd', true]);
    // The Node installer's layout: npm's CLI beside node.exe, run with that node, no shell.
    const npmCli = path.join(path.dirname(execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js');
    fs.mkdirSync(path.dirname(npmCli), { recursive: true });
    fs.writeFileSync(npmCli, '');
    const cli = npmRootCommand({ platform, execPath, env: {} });
    assert.deepEqual(
      [cli.file, cli.args, cli.options.shell, cli.options.cwd],
      [execPath, [npmCli, 'root', '-g'], false, path.dirname(execPath)],
    );
  }
});

test(
  'the launcher started in a project folder runs npm root -g in the Node folder',
  { skip: posix ? false : 'a POSIX shell script stands for npm' },
  () => {
    // An npm that records where it runs; the real npm says nothing of it.
    const bin = path.join(tmp, 'recording-bin');
    fs.mkdirSync(bin);
    const where = path.join(tmp, 'npm-ran-in');
    fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\npwd -P > ${posixWord(where)}\nexit 1\n`, { mode: 0o755 });
    const project = path.join(tmp, 'npm-project');
    fs.mkdirSync(project);
    const r = run([launcher, '--check'], {
      cwd: project,
      env: { PATH: [bin, path.dirname(process.execPath)].join(path.delimiter) },
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /npm root -g failed/);
    assert.equal(fs.readFileSync(where, 'utf8').trim(), fs.realpathSync(path.dirname(process.execPath)));
  },
);

test('shell words: POSIX single quotes, PowerShell single quotes, bare only where nothing is special', () => {
  assert.equal(posixWord('/usr/lib/node_modules/a-b_c.d/x@1,2:3=4%5+6'), '/usr/lib/node_modules/a-b_c.d/x@1,2:3=4%5+6');
  assert.equal(posixWord(`it's "a" $HOME \`x\` \\ *`), `'it'\\''s "a" $HOME \`x\` \\ *'`);
  assert.equal(posixWord(''), "''");
  assert.equal(powerShellWord(`C:\\it's $env:x "a" \u2019b\u2018`), `'C:\\it''s $env:x "a" \u2019\u2019b\u2018\u2018'`);
  assert.equal(
    commandLine(['node', '--import=file:///C:/a%20b/p.mjs', "C:\\o'b\\cli-entry.js", 'serve'], 'win32'),
    "node '--import=file:///C:/a%20b/p.mjs' 'C:\\o''b\\cli-entry.js' 'serve'",
  );
  assert.equal(commandLine(['node', '/a b/c.js', 'serve'], 'linux'), "node '/a b/c.js' serve");
  // On Windows the by-hand start is shown for PowerShell.
  const preload = new URL("file:///C:/Users/o'brien/toolcall-stream/lib/qwen/preload.mjs");
  const { lines } = checkReport({ missing: 'not here' }, { preload, platform: 'win32' });
  assert.equal(
    lines[1],
    "  by hand, from any folder (PowerShell): $env:NODE_OPTIONS='--import=file:///C:/Users/o''brien/toolcall-stream/lib/qwen/preload.mjs'; qwen",
  );
});

/** A folder name a shell would split, unquote or expand. */
const AWKWARD = `it's "a" $HOME \`id\` dir`;

test(
  "--check's commands, pasted into sh from folders named with spaces, quotes and $, start Qwen with the preload; without the native binary the check still runs",
  { skip: latest.skip ?? (posix ? false : 'sh'), timeout: 60_000 },
  () => {
    const base = path.join(tmp, AWKWARD);
    // This package, installed in such a folder (its dependencies linked).
    const own = path.join(base, 'toolcall-stream');
    fs.mkdirSync(own, { recursive: true });
    fs.copyFileSync(path.join(root, 'package.json'), path.join(own, 'package.json'));
    for (const d of ['lib', 'bin']) fs.cpSync(path.join(root, d), path.join(own, d), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(own, 'node_modules'));
    // Qwen's real cli-entry.js beside a cli.js that says whether the preload loaded in it.
    const qwen = path.join(base, 'qwen code');
    fs.mkdirSync(qwen);
    fs.writeFileSync(
      path.join(qwen, 'package.json'),
      JSON.stringify({
        name: '@qwen-code/qwen-code',
        version: '0.24.4',
        type: 'module',
        bin: { qwen: 'cli-entry.js' },
      }),
    );
    fs.copyFileSync(path.join(latest.dir, 'cli-entry.js'), path.join(qwen, 'cli-entry.js'));
    fs.writeFileSync(
      path.join(qwen, 'cli.js'),
      "process.stdout.write(JSON.stringify({ preloaded: globalThis[Symbol.for('toolcall-stream.qwen.preload')] === true, args: process.argv.slice(2) }) + '\\n');\n",
    );
    const entry = path.join(qwen, 'cli-entry.js');
    const preload = pathToFileURL(path.join(own, 'lib', 'qwen', 'preload.mjs')).href;
    assert.match(preload, /[$']/, 'the URL keeps characters a shell reads');

    const c = run([path.join(own, 'bin', 'toolcall-stream-qwen.js'), '--qwen', qwen, '--check']);
    assert.equal(c.status, 0, c.stderr);
    // The copy has no native binary beside it: the check says so rather than failing.
    assert.match(c.stdout, /^native binary: does not load: /m);
    const shown = (prefix) => {
      const line = c.stdout.split('\n').find((l) => l.startsWith(prefix));
      assert.ok(line, `${prefix} in ${c.stdout}`);
      return line.slice(prefix.length);
    };
    const sh = (script, env = {}) =>
      spawnSync('sh', ['-c', script], {
        cwd: tmp,
        env: { HOME: home, PATH: path.dirname(process.execPath), XDG_CACHE_HOME: path.join(tmp, 'cache'), ...env },
        encoding: 'utf8',
      });

    // By hand: `NODE_OPTIONS=… qwen`, with Qwen's entry standing for the `qwen` on PATH.
    const byHand = shown('  by hand, from any folder: ');
    assert.match(byHand, / qwen$/);
    const started = sh(`${byHand.slice(0, -' qwen'.length)} node "$QWEN_ENTRY" --acp`, { QWEN_ENTRY: entry });
    assert.equal(started.status, 0, started.stderr);
    assert.deepEqual(JSON.parse(started.stdout), { preloaded: true, args: ['--acp'] });

    // Serve by hand: the words sh makes of it.
    const serve = shown('  serve by hand (it removes NODE_OPTIONS): ');
    assert.match(serve, /^node /);
    const words = sh(`printf '%s\\0' ${serve.slice('node '.length)}`);
    assert.equal(words.status, 0, words.stderr);
    assert.deepEqual(words.stdout.split('\0').slice(0, -1), [`--import=${preload}`, entry, 'serve']);
  },
);
