// `toolcall-stream-qwen` in real processes: where it finds Qwen Code (--qwen,
// then TOOLCALL_STREAM_QWEN_CLI, then the `qwen` on PATH, then `npm root -g`);
// that Qwen's arguments, stdin, stdout, exit code and signals come through as
// with the user's own `qwen`; that the preload acts in the cli.js process
// only and says its line once; `--check` on a served release, a changed one,
// one without the seam, and none; bad input as one clear line.
//
// Qwen's entry is the real cli-entry.js of a published release; its cli.js is
// a stand-in (in a package named @qwen-code/qwen-code, so the preload acts on
// it) that reports what it was given, where that is what is under test.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { cmdShimTarget } from '../lib/qwen/find-qwen.mjs';
import { withPreload, parseLauncherArgs } from '../lib/qwen/launcher.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-launcher-')));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const posix = process.platform !== 'win32';
const latest = qwenBuildOrSkip('0.24.4');

// The stand-in cli.js: prints what it got as one JSON line, then exits with
// STANDIN_EXIT, kills itself with STANDIN_SIGNAL, or (STANDIN_WAIT) says
// "ready" and waits for stdin to end. STANDIN_RELAUNCH runs itself once more
// in a child first, as Qwen's cli.js does to get more memory.
const STANDIN_CLI = `
import { spawnSync } from 'node:child_process';
if (process.env.STANDIN_RELAUNCH && !process.env.STANDIN_CHILD) {
  const r = spawnSync(process.execPath, process.argv.slice(1), { stdio: 'inherit', env: { ...process.env, STANDIN_CHILD: '1' } });
  process.exit(r.status ?? 1);
}
if (process.env.STANDIN_WAIT) {
  process.stdout.write(JSON.stringify({ pid: process.pid }) + '\\n');
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => process.exit(0));
} else {
  let stdin = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => (stdin += d));
  process.stdin.on('end', () => {
    process.stdout.write(JSON.stringify({
      self: process.argv[1],
      args: process.argv.slice(2),
      stdin,
      cwd: process.cwd(),
      gc: typeof globalThis.gc === 'function',
      preloaded: globalThis[Symbol.for('toolcall-stream.qwen.preload')] === true,
    }) + '\\n');
    if (process.env.STANDIN_SIGNAL) process.kill(process.pid, process.env.STANDIN_SIGNAL);
    else process.exit(Number(process.env.STANDIN_EXIT ?? 0));
  });
}
`;

const HOOK_EXPORTS = '// an older Qwen\nexport { AnthropicContentGenerator };\nclass AnthropicContentGenerator {}\n';

/** A package named @qwen-code/qwen-code: the real cli-entry.js of 0.24.4 (unless `entry` is false), the stand-in cli.js. */
function standIn(name, { version = '0.15.4', entry = true, packageName = '@qwen-code/qwen-code' } = {}) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, 'chunks'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: packageName,
      version,
      type: 'module',
      ...(entry ? { bin: { qwen: 'cli-entry.js' } } : { bin: { qwen: 'cli.js' } }),
    }),
  );
  fs.writeFileSync(path.join(dir, 'cli.js'), STANDIN_CLI);
  fs.writeFileSync(path.join(dir, 'chunks', 'chunk-OLD.js'), HOOK_EXPORTS);
  if (entry) fs.copyFileSync(path.join(latest.dir, 'cli-entry.js'), path.join(dir, 'cli-entry.js'));
  return dir;
}

/** A bin folder holding only node and npm, so a machine's own `qwen` never counts. */
function toolsOnly() {
  const dir = path.join(tmp, 'tools');
  if (fs.existsSync(dir)) return dir;
  fs.mkdirSync(dir);
  fs.symlinkSync(process.execPath, path.join(dir, 'node'));
  const npmCli = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((d) => path.join(d, 'npm'))
    .find((f) => fs.existsSync(f));
  if (npmCli) fs.symlinkSync(fs.realpathSync(npmCli), path.join(dir, 'npm'));
  return dir;
}

const home = path.join(tmp, 'home');
fs.mkdirSync(home);

/** The environment of a start: a scratch HOME and cache, only node and npm on PATH, no npm global root. */
function startEnv(extra = {}) {
  const env = {
    HOME: home,
    USERPROFILE: home,
    XDG_CACHE_HOME: path.join(tmp, 'cache'),
    PATH: toolsOnly(),
    npm_config_prefix: path.join(tmp, 'empty-prefix'),
    npm_config_update_notifier: 'false',
    QWEN_CODE_NO_RELAUNCH: '',
    ...extra,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/** Runs the launcher to its end in `cwd`. */
function launch(args, { env = {}, input = '', cwd = tmp } = {}) {
  return spawnSync(process.execPath, [launcher, ...args], { cwd, env: startEnv(env), input, encoding: 'utf8' });
}

const ownLines = (stderr) => stderr.split('\n').filter((l) => l.startsWith('toolcall-stream'));

test('the launcher options: --qwen and --no-progress are taken out (before --), --check / doctor lead; NODE_OPTIONS keeps what the user has', () => {
  assert.deepEqual(parseLauncherArgs(['--qwen', '/q', '--acp', '--', '--qwen', 'x']), {
    qwen: '/q',
    check: false,
    progress: true,
    qwenArgs: ['--acp', '--', '--qwen', 'x'],
  });
  assert.deepEqual(parseLauncherArgs(['--qwen=/q', 'doctor']), {
    qwen: '/q',
    check: true,
    progress: true,
    qwenArgs: [],
  });
  assert.deepEqual(parseLauncherArgs(['-p', '--check']), {
    qwen: undefined,
    check: false,
    progress: true,
    qwenArgs: ['-p', '--check'],
  });
  assert.deepEqual(parseLauncherArgs(['--no-progress', '--acp', '--', '--no-progress']), {
    qwen: undefined,
    check: false,
    progress: false,
    qwenArgs: ['--acp', '--', '--no-progress'],
  });
  const url = pathToFileURL(path.join(tmp, 'a dir', 'preload.mjs')).href;
  assert.doesNotMatch(url, /\s/, 'a file URL has no spaces to quote');
  assert.equal(withPreload(undefined, url), `--import=${url}`);
  assert.equal(
    withPreload('--max-old-space-size=4096 "--title=a b"', url),
    `--max-old-space-size=4096 "--title=a b" --import=${url}`,
  );
  assert.equal(withPreload(`--import=${url}`, url), `--import=${url}`, 'not given twice');
});

test('an npm .cmd shim leads to its target (Windows)', () => {
  const shim = path.join(tmp, 'qwen.cmd');
  fs.writeFileSync(
    shim,
    '@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\nIF EXIST "%dp0%\\node.exe" (\r\n  SET "_prog=%dp0%\\node.exe"\r\n) ELSE (\r\n  SET "_prog=node"\r\n)\r\n\r\nendLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\@qwen-code\\qwen-code\\cli-entry.js" %*\r\n',
  );
  assert.equal(cmdShimTarget(shim), path.join(tmp, 'node_modules', '@qwen-code', 'qwen-code', 'cli-entry.js'));
});

test(
  'finding Qwen: --qwen, then TOOLCALL_STREAM_QWEN_CLI, then the qwen on PATH, then npm root -g',
  { skip: latest.skip ?? !posix },
  () => {
    const byFlag = standIn('by-flag', { version: '1.0.1' });
    const byEnv = standIn('by-env', { version: '1.0.2' });
    const byPath = standIn('by-path', { version: '1.0.3' });
    const pathBin = path.join(tmp, 'path-bin');
    fs.mkdirSync(pathBin);
    fs.symlinkSync(path.join(byPath, 'cli-entry.js'), path.join(pathBin, 'qwen'));
    const prefix = path.join(tmp, 'npm-prefix');
    const globalRoot = path.join(prefix, 'lib', 'node_modules');
    fs.mkdirSync(path.join(globalRoot, '@qwen-code'), { recursive: true });
    fs.cpSync(standIn('by-npm', { version: '1.0.4' }), path.join(globalRoot, '@qwen-code', 'qwen-code'), {
      recursive: true,
    });

    const check = (args, env) => {
      const r = launch([...args, '--check'], { env });
      const found = /^Qwen Code (\S+) in (.*)\n\s+found through (.*)$/m.exec(r.stdout);
      return {
        status: r.status,
        found: found && { version: found[1], dir: found[2], how: found[3] },
        stdout: r.stdout,
      };
    };
    const all = {
      TOOLCALL_STREAM_QWEN_CLI: path.join(byEnv, 'cli.js'),
      PATH: [pathBin, toolsOnly()].join(path.delimiter),
      npm_config_prefix: prefix,
    };
    assert.deepEqual(check(['--qwen', byFlag], all).found, { version: '1.0.1', dir: byFlag, how: `--qwen ${byFlag}` });
    assert.deepEqual(check([], all).found, {
      version: '1.0.2',
      dir: byEnv,
      how: `TOOLCALL_STREAM_QWEN_CLI ${path.join(byEnv, 'cli.js')}`,
    });
    assert.deepEqual(check([], { ...all, TOOLCALL_STREAM_QWEN_CLI: undefined }).found, {
      version: '1.0.3',
      dir: byPath,
      how: `PATH: ${path.join(pathBin, 'qwen')}`,
    });
    assert.deepEqual(check([], { npm_config_prefix: prefix }).found, {
      version: '1.0.4',
      dir: path.join(globalRoot, '@qwen-code', 'qwen-code'),
      how: `npm root -g: ${globalRoot}`,
    });
    const none = check([], {});
    assert.equal(none.found, null);
    assert.equal(none.status, 1);
    assert.match(
      none.stdout,
      /Qwen Code not found: no --qwen, no TOOLCALL_STREAM_QWEN_CLI, no qwen on PATH, not in .*empty-prefix.*@qwen-code\/qwen-code\./,
    );

    // And it runs what it found, from any working directory.
    const project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    const r = launch(['--version-free'], { env: { ...all, TOOLCALL_STREAM_QWEN_CLI: undefined }, cwd: project });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).args, ['--version-free']);
    assert.equal(JSON.parse(r.stdout).cwd, project);
  },
);

test(
  'arguments, stdin, stdout and the exit code pass through; the preload acts in the cli.js process only, and says its line once',
  { skip: latest.skip },
  () => {
    const dir = standIn('pass-through');
    const report = path.join(tmp, 'pass-through.ndjson');
    const args = ['--acp', 'two words', '', '--model', 'x', '--', '--qwen', 'not-the-launcher'];
    const r = launch(['--qwen', dir, ...args], {
      env: { STANDIN_EXIT: '7', TOOLCALL_STREAM_QWEN_REPORT: report },
      input: 'hello from the editor\n',
    });
    assert.equal(r.status, 7, r.stderr);
    const got = JSON.parse(r.stdout);
    assert.deepEqual(got.args, args);
    assert.equal(got.stdin, 'hello from the editor\n');
    assert.equal(got.gc, true, "Qwen's own entry ran cli.js (with --expose-gc)");
    assert.equal(got.preloaded, true, 'the preload loaded in the cli.js process');
    // The stand-in has no seam: the preload says so, once, and the report has
    // one line: the launcher's own process (cli-entry.js) did not act.
    assert.deepEqual(ownLines(r.stderr).length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^toolcall-stream\/qwen: Qwen Code 0\.15\.4 runs stock: this release has no tool-call preparing seam/m,
    );
    assert.equal(fs.readFileSync(report, 'utf8').trim().split('\n').length, 1);

    // Qwen's cli.js relaunches itself with more memory: two processes act, one line is said.
    const twice = path.join(tmp, 'relaunch.ndjson');
    const relaunched = launch(['--qwen', dir, '--acp'], {
      env: { STANDIN_RELAUNCH: '1', TOOLCALL_STREAM_QWEN_REPORT: twice },
    });
    assert.equal(relaunched.status, 0, relaunched.stderr);
    assert.equal(fs.readFileSync(twice, 'utf8').trim().split('\n').length, 2);
    assert.equal(ownLines(relaunched.stderr).length, 1, relaunched.stderr);

    // A release whose bin is cli.js itself: run in the launcher's process, the preload loaded there.
    const plain = standIn('no-entry', { entry: false });
    const p = launch(['--qwen', plain, '-p', 'hi'], { env: { STANDIN_EXIT: '3' } });
    assert.equal(p.status, 3, p.stderr);
    assert.deepEqual(JSON.parse(p.stdout).args, ['-p', 'hi']);
    assert.equal(JSON.parse(p.stdout).preloaded, true);
    assert.equal(ownLines(p.stderr).length, 1, p.stderr);
  },
);

test("cli.js's death by a signal is the launcher's, as with the user's qwen", { skip: latest.skip ?? !posix }, () => {
  const dir = standIn('signal-self');
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    const r = launch(['--qwen', dir], { env: { STANDIN_SIGNAL: signal, TOOLCALL_STREAM_QWEN: 'off' } });
    assert.deepEqual([r.status, r.signal], [null, signal], r.stderr);
  }
});

/** Starts `args` under node, waits for the stand-in's "ready" line, sends `signal` to the started process. */
async function signalled(args, signal, env) {
  const child = spawn(process.execPath, args, { env: startEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  const exit = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
  let out = '';
  child.stdout.setEncoding('utf8');
  const ready = await new Promise((resolve) =>
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    }),
  );
  child.kill(signal);
  const result = await exit;
  child.stdin.end();
  try {
    process.kill(ready.pid); // the stand-in, were it left behind
  } catch {
    // Already gone.
  }
  return result;
}

test(
  "SIGINT, SIGTERM and SIGHUP to the launcher end it as they end the user's qwen (its own cli-entry.js)",
  { skip: latest.skip ?? !posix },
  async () => {
    const dir = standIn('signal-launcher');
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      const env = { STANDIN_WAIT: '1' };
      const stock = await signalled([path.join(dir, 'cli-entry.js')], signal, env);
      const through = await signalled([launcher, '--qwen', dir], signal, env);
      assert.deepEqual(through, stock, signal);
      assert.equal(through.signal, signal);
    }
  },
);

test(
  "--check on a served release: where, how, the version, each provider's profile, the binary",
  { skip: latest.skip ?? !posix },
  () => {
    const pathBin = path.join(tmp, 'served-bin');
    fs.mkdirSync(pathBin);
    fs.symlinkSync(path.join(latest.dir, 'cli-entry.js'), path.join(pathBin, 'qwen'));
    const r = launch(['doctor'], { env: { PATH: [pathBin, toolsOnly()].join(path.delimiter) } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /^toolcall-stream \S+, preload .*preload\.mjs$/);
    assert.match(lines[1], /^  by hand, from any folder: NODE_OPTIONS=--import=file:\/\/\S+\/preload\.mjs qwen$/);
    assert.deepEqual(lines.slice(2), [
      `Qwen Code 0.24.4 in ${fs.realpathSync(latest.dir)}`,
      `  found through PATH: ${path.join(pathBin, 'qwen')}`,
      '  runs cli-entry.js, which starts cli.js with the preload',
      "  served: every cli.js process (interactive, -p, --acp), and each session of serve and its web shell (a cli.js --acp it starts with the launcher's Node flags)",
      "  stock, inside cli-entry.js, sending no model requests: serve's own process, qwen mcp, --help, --version",
      `  serve by hand (it removes NODE_OPTIONS): node --import=${lines[1].split('--import=')[1].split(' ')[0]} ${path.join(fs.realpathSync(latest.dir), 'cli-entry.js')} serve`,
      'Anthropic: served, profile qwen-0.24',
      'OpenAI-compatible: served, profile qwen-0.24',
      'OpenAI Responses: served, profile qwen-0.24',
      'live progress on preparing cards (--acp): on (--no-progress or TOOLCALL_STREAM_QWEN_PROGRESS=off turns it off)',
      'native binary: loads',
      `decision cache: ${path.join(tmp, 'cache', 'toolcall-stream')}`,
    ]);
    const off = launch(['--qwen', latest.dir, '--check'], { env: { TOOLCALL_STREAM_QWEN: 'off' } });
    assert.match(off.stdout, /^Anthropic: runs stock: turned off \(TOOLCALL_STREAM_QWEN=off\)/m);
    // Only the WebAssembly build: still served, and --check says on what.
    const wasi = launch(['--qwen', latest.dir, '--check'], { env: { TOOLCALL_STREAM_FORCE_WASI: '1' } });
    assert.equal(wasi.status, 0, wasi.stderr);
    assert.match(wasi.stdout, /^Anthropic: served, profile qwen-0\.24$/m);
    assert.match(wasi.stdout, /^WebAssembly build: loads, no native binary in use; Qwen is served on it/m);
    assert.doesNotMatch(wasi.stdout, /^native binary:/m);
  },
);

/**
 * 0.24.4 with two replaced functions changed (what a future release might
 * do): the Anthropic usage and the Responses conversion; its own
 * package.json, entries and chunks, the rest linked to the published
 * release, so Qwen runs from it.
 */
function changedRelease() {
  const dir = path.join(tmp, 'changed');
  fs.mkdirSync(dir);
  for (const f of fs.readdirSync(latest.dir)) {
    if (['package.json', 'cli.js', 'cli-entry.js', 'chunks'].includes(f))
      fs.cpSync(path.join(latest.dir, f), path.join(dir, f), { recursive: true });
    else fs.symlinkSync(path.join(latest.dir, f), path.join(dir, f));
  }
  const needle = 'function buildAnthropicUsageMetadata(parts) {';
  const file = fs
    .readdirSync(path.join(dir, 'chunks'))
    .map((f) => path.join(dir, 'chunks', f))
    .find((f) => fs.readFileSync(f, 'utf8').includes(needle));
  fs.writeFileSync(
    file,
    fs.readFileSync(file, 'utf8').replace(needle, `${needle}\n  parts = { ...parts, inputTokens: 0 };`),
  );
  const chunks = path.join(dir, 'chunks');
  const responses = path.join(
    chunks,
    fs.readdirSync(chunks).find((f) => f.startsWith('openaiResponsesContentGenerator-')),
  );
  fs.writeFileSync(
    responses,
    fs.readFileSync(responses, 'utf8').replace('case "response.refusal.done":', 'case "response.refusal.finished":'),
  );
  return dir;
}

test(
  'a release with changed replaced functions: --check names each; Qwen runs with those providers stock, saying so once though cli.js runs twice',
  { skip: latest.skip ?? !posix },
  () => {
    const dir = changedRelease();
    const c = launch(['--qwen', dir, '--check']);
    assert.equal(c.status, 0, c.stderr);
    assert.match(
      c.stdout,
      /^Anthropic: runs stock: AnthropicContentGenerator\.processStream is code this package does not know .*differs in buildAnthropicUsageMetadata\)/m,
    );
    assert.match(c.stdout, /^OpenAI-compatible: served, profile qwen-0\.24$/m);
    assert.match(
      c.stdout,
      /^OpenAI Responses: runs stock: ResponsesPipeline\.iterateBody is code this package does not know \(closest known code: Qwen Code 0\.23\.4, [^;]*; differs in convertResponsesEventToGemini\)$/m,
    );

    // The real Qwen in ACP mode, its stdin at an end at once: it starts, relaunches cli.js, and exits.
    const report = path.join(tmp, 'changed.ndjson');
    const r = launch(['--qwen', dir, '--acp'], { env: { TOOLCALL_STREAM_QWEN_REPORT: report } });
    assert.equal(r.status, 0, r.stderr);
    const lines = fs
      .readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const line of lines) {
      const { anthropic, openai, openaiResponses } = line.providers;
      assert.deepEqual([anthropic.served, openai.served, openaiResponses.served], [false, true, false]);
    }
    const { anthropic, openaiResponses } = lines[0].providers;
    assert.deepEqual(
      ownLines(r.stderr),
      [
        `toolcall-stream/qwen: Qwen Code 0.24.4: Anthropic streams run stock: ${anthropic.reason}; OpenAI Responses streams run stock: ${openaiResponses.reason}`,
      ],
      `one line for ${lines.length} cli.js processes`,
    );
  },
);

const beforeSeam = qwenBuildOrSkip('0.15.10');
const NO_SEAM = 'this release has no tool-call preparing seam (Qwen Code has one from 0.21.2 on)';

test(
  '--check and a start on a published release without the seam (0.15.10): what is true, in one line; Qwen runs stock',
  { skip: beforeSeam.skip },
  () => {
    const c = launch(['--qwen', beforeSeam.dir, '--check']);
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stdout, /^Qwen Code 0\.15\.10 in /m);
    assert.ok(
      c.stdout.includes(`\nAnthropic: runs stock: ${NO_SEAM}\nOpenAI-compatible: runs stock: ${NO_SEAM}\n`),
      c.stdout,
    );
    const r = launch(['--qwen', beforeSeam.dir, '--version']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '0.15.10\n');
    assert.deepEqual(ownLines(r.stderr), [`toolcall-stream/qwen: Qwen Code 0.15.10 runs stock: ${NO_SEAM}`]);
  },
);

/** A package named @qwen-code/qwen-code holding only `files` (name → text; a folder for null). */
function layout(name, files) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: '@qwen-code/qwen-code', version: '9.0.0' }));
  for (const [file, text] of Object.entries(files)) {
    if (text === null) fs.mkdirSync(path.join(dir, file), { recursive: true });
    else fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

test("--check on a bundle not laid out as Qwen's: what was expected, and what was found", { skip: latest.skip }, () => {
  const cases = [
    [
      // 0.24.4's cli.js, its chunks folder gone: an incomplete install.
      layout('no-chunks', { 'cli.js': fs.readFileSync(path.join(latest.dir, 'cli.js'), 'utf8') }),
      'the bundle is incomplete: its cli.js imports its code from ./chunks/, and there is no chunks folder beside it',
    ],
    [
      layout('chunks-file', { 'cli.js': 'import "./chunks/chunk-A.js";\n', chunks: '' }),
      'the bundle is incomplete: its cli.js imports its code from ./chunks/, and there is a file named chunks, not a folder, beside it',
    ],
    [
      layout('one-file', { 'cli.js': 'export function setToolCallPreparations() {}\n' }),
      "the bundle is not laid out as Qwen Code's: expected cli.js beside a chunks folder of the code it imports, found no chunks folder beside a cli.js that holds all of its code",
    ],
    [
      layout('empty-chunks', { 'cli.js': 'import "./chunks/chunk-A.js";\n', chunks: null }),
      "the bundle is not laid out as Qwen Code's: expected its code in .js files in chunks beside cli.js, found none",
    ],
  ];
  for (const [dir, reason] of cases) {
    const c = launch(['--qwen', dir, '--check']);
    assert.equal(c.status, 0, c.stderr);
    assert.ok(
      c.stdout.includes(`\nAnthropic: runs stock: ${reason}\nOpenAI-compatible: runs stock: ${reason}\n`),
      c.stdout,
    );
  }
});

/** A loopback OpenAI-compatible provider: every request answers one short streamed text reply. */
async function textProvider() {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk({ role: 'assistant', content: 'hello' }) + chunk({}, 'stop') + 'data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The frames of a server-sent event stream until `until(frame)` holds or it ends. */
async function readEventsUntil(response, until) {
  const decoder = new TextDecoder();
  let text = '';
  for await (const bytes of response.body) {
    text += decoder.decode(bytes, { stream: true });
    for (let end; (end = text.indexOf('\n\n')) >= 0; text = text.slice(end + 2))
      if (until(text.slice(0, end))) return true;
  }
  return false;
}

/**
 * A Qwen home and project folder for `name`, with the settings and
 * environment that send its model requests to `provider` (OpenAI-compatible),
 * and the report file the preload writes.
 */
function providerSetUp(name, provider) {
  const home = path.join(tmp, `${name}-home`);
  const project = path.join(tmp, `${name}-project`);
  fs.mkdirSync(path.join(home, '.qwen'), { recursive: true });
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(home, '.qwen', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'openai' } },
      general: { enableAutoUpdate: false, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ide: { enabled: false },
    }),
  );
  const report = path.join(tmp, `${name}.ndjson`);
  const env = startEnv({
    HOME: home,
    USERPROFILE: home,
    TOOLCALL_STREAM_QWEN_REPORT: report,
    OPENAI_API_KEY: 'sk-loopback',
    OPENAI_BASE_URL: `${provider.url}/v1`,
    OPENAI_MODEL: 'loopback-model',
  });
  const reportLines = () =>
    fs.existsSync(report)
      ? fs
          .readFileSync(report, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [];
  return { project, env, reportLines };
}

/**
 * `toolcall-stream-qwen serve` in a project folder, with one session and one
 * prompt through Qwen's own HTTP API; the report lines once it has exited.
 */
async function servePrompt(build, name, { byHand = false } = {}) {
  const provider = await textProvider();
  const { project, env, reportLines } = providerSetUp(name, provider);
  // By hand as --check prints it: the preload among Node's flags, Qwen's own bin entry.
  const start = byHand
    ? [
        `--import=${pathToFileURL(path.join(root, 'lib', 'qwen', 'preload.mjs')).href}`,
        path.join(build.dir, 'cli-entry.js'),
      ]
    : [launcher, '--qwen', build.dir];
  const daemon = spawn(process.execPath, [...start, 'serve', '--port', '0', '--no-web'], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  daemon.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => daemon.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      daemon.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        const m = /^qwen serve listening on (http:\S+)/m.exec(out);
        if (m) resolve(m[1]);
      });
      daemon.on('exit', () => reject(new Error(`qwen serve exited before listening: ${stderr}`)));
    });
    const post = async (route, body) => {
      const r = await fetch(url + route, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: await r.json() };
    };
    const session = await post('/session', { cwd: project });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    const id = session.body.sessionId;
    const events = await fetch(`${url}/session/${id}/events`, { headers: { accept: 'text/event-stream' } });
    const prompt = await post(`/session/${id}/prompt`, { prompt: [{ type: 'text', text: 'say hello' }] });
    assert.equal(prompt.status, 202, JSON.stringify(prompt.body));
    assert.ok(await readEventsUntil(events, (frame) => /"stopReason"/.test(frame)), 'the turn completed');
  } finally {
    daemon.kill('SIGINT');
    await exited;
    await provider.close();
  }
  return { lines: reportLines(), stderr, requests: provider.requests() };
}

for (const [version, profile, byHand] of [
  ['0.24.4', 'qwen-0.24', false],
  ['0.21.10', 'qwen-0.21', true],
]) {
  const build = version === '0.24.4' ? latest : qwenBuildOrSkip(version);
  test(
    `serve (${version}, ${byHand ? 'by hand with node --import' : 'through the launcher'}): the sessions it starts are served, though it removes NODE_OPTIONS from its own environment`,
    { skip: build.skip ?? !posix, timeout: 180_000 },
    async () => {
      const { lines, stderr, requests } = await servePrompt(build, `serve-${version}`, { byHand });
      assert.ok(requests >= 1, 'the prompt reached the provider');
      // One line per cli.js process the preload acted in: the session (`cli.js --acp`);
      // serve itself runs inside cli-entry.js and sends no model requests.
      assert.ok(lines.length >= 1, `a session process reported: ${stderr}`);
      for (const line of lines) {
        assert.equal(line.qwenVersion, version);
        assert.deepEqual(line.providers.openai, { served: true, profile });
        assert.equal(line.fallbacks, 0);
      }
      assert.ok(
        lines.reduce((n, l) => n + l.streams.openai.bytes, 0) >= 1,
        `converted from the raw body: ${JSON.stringify(lines)}`,
      );
      assert.deepEqual(ownLines(stderr), [], 'served: the preload has nothing to say');
    },
  );
}

test(
  '-p is served (cli-entry.js starts cli.js, which inherits NODE_OPTIONS); mcp runs stock inside cli-entry.js and sends no model request',
  { skip: latest.skip, timeout: 120_000 },
  async () => {
    const provider = await textProvider();
    try {
      const p = providerSetUp('print', provider);
      const r = await new Promise((resolve) => {
        const child = spawn(process.execPath, [launcher, '--qwen', latest.dir, '-p', 'say hello'], {
          cwd: p.project,
          env: p.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        child.on('exit', (status) => resolve({ status, stdout, stderr }));
      });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), 'hello');
      const lines = p.reportLines();
      assert.ok(lines.length >= 1);
      for (const line of lines) assert.deepEqual(line.providers.openai, { served: true, profile: 'qwen-0.24' });
      assert.ok(lines.reduce((n, l) => n + l.streams.openai.bytes, 0) >= 1, JSON.stringify(lines));

      const before = provider.requests();
      const m = providerSetUp('mcp', provider);
      const mcp = spawnSync(process.execPath, [launcher, '--qwen', latest.dir, 'mcp', 'list'], {
        cwd: m.project,
        env: m.env,
        encoding: 'utf8',
      });
      assert.equal(mcp.status, 0, mcp.stderr);
      assert.deepEqual(m.reportLines(), [], 'no cli.js process: the preload acted nowhere');
      assert.equal(provider.requests(), before, 'and no model request was sent');
    } finally {
      await provider.close();
    }
  },
);

test('no Qwen, or a folder that is not Qwen: one line and a non-zero exit', { skip: latest.skip }, () => {
  const missing = launch(['--acp']);
  assert.equal(missing.status, 127);
  assert.equal(missing.stdout, '');
  assert.deepEqual(ownLines(missing.stderr), missing.stderr.trim().split('\n'));
  assert.match(
    missing.stderr,
    /^toolcall-stream-qwen: Qwen Code not found: no --qwen, no TOOLCALL_STREAM_QWEN_CLI, no qwen on PATH, not in /,
  );

  const other = standIn('other-cli', { packageName: 'some-other-cli' });
  const r = launch(['--acp'], { env: { TOOLCALL_STREAM_QWEN_CLI: path.join(other, 'cli.js') } });
  assert.equal(r.status, 127);
  assert.equal(r.stdout, '', 'nothing of it ran');
  assert.match(r.stderr, /^toolcall-stream-qwen: TOOLCALL_STREAM_QWEN_CLI .*other-cli\/cli\.js: no Qwen Code there/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

test(
  'a preload that cannot load leaves Qwen stock with one line: missing, or throwing at import',
  { skip: latest.skip },
  () => {
    const dir = standIn('broken-preload');
    // A partial install: the launcher without the preload beside it.
    const partial = path.join(tmp, 'partial');
    fs.mkdirSync(path.join(partial, 'bin'), { recursive: true });
    fs.mkdirSync(path.join(partial, 'lib', 'qwen'), { recursive: true });
    fs.copyFileSync(launcher, path.join(partial, 'bin', 'toolcall-stream-qwen.js'));
    for (const f of ['launcher.mjs', 'find-qwen.mjs', 'package.mjs', 'progress-setting.mjs'])
      fs.copyFileSync(path.join(root, 'lib', 'qwen', f), path.join(partial, 'lib', 'qwen', f));
    const r = spawnSync(process.execPath, [path.join(partial, 'bin', 'toolcall-stream-qwen.js'), '--qwen', dir, 'x'], {
      env: startEnv({ STANDIN_EXIT: '5' }),
      encoding: 'utf8',
    });
    assert.equal(r.status, 5, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).args, ['x']);
    assert.match(
      r.stderr,
      /^toolcall-stream-qwen: the preload .*preload\.mjs cannot be read \(ENOENT\): Qwen Code runs stock\n$/,
    );

    // The preload entry whose work throws as it is imported.
    const broken = path.join(tmp, 'broken');
    fs.mkdirSync(broken);
    fs.copyFileSync(path.join(root, 'lib', 'qwen', 'preload.mjs'), path.join(broken, 'preload.mjs'));
    fs.writeFileSync(path.join(broken, 'serve.mjs'), "throw new Error('a broken install');\n");
    const b = spawnSync(process.execPath, [path.join(dir, 'cli-entry.js'), 'y'], {
      env: startEnv({
        STANDIN_EXIT: '4',
        NODE_OPTIONS: `--import=${pathToFileURL(path.join(broken, 'preload.mjs')).href}`,
      }),
      encoding: 'utf8',
    });
    assert.equal(b.status, 4, b.stderr);
    assert.deepEqual(JSON.parse(b.stdout).args, ['y']);
    assert.equal(
      b.stderr,
      'toolcall-stream/qwen: the preload could not load, Qwen Code runs stock: a broken install\n',
    );
  },
);

test(
  "Qwen's own update of an npm install: --check reports on the release that runs, and it is the one that runs",
  { skip: latest.skip },
  () => {
    const base = standIn('updated-base', { version: '0.24.4' });
    const entry = path.join(base, 'cli-entry.js');
    const qwenHome = path.join(tmp, 'updated-home');
    // Where cli-entry.js looks (getManagedNpmInstallation): <QWEN_HOME>/updates/npm/<sha256(entry) 16>/.
    const launcherRoot = path.join(
      qwenHome,
      'updates',
      'npm',
      createHash('sha256').update(fs.realpathSync(entry)).digest('hex').slice(0, 16),
    );
    const updated = path.join(launcherRoot, 'versions', '0.25.0', 'node_modules', '@qwen-code', 'qwen-code');
    fs.mkdirSync(path.dirname(updated), { recursive: true });
    fs.cpSync(standIn('updated-release', { version: '0.25.0' }), updated, { recursive: true });
    const active = {
      version: '0.25.0',
      bootstrap: fs.realpathSync(entry),
      baseVersion: '0.24.4',
      bootstrapCtimeMs: fs.statSync(entry).ctimeMs,
    };
    fs.writeFileSync(path.join(launcherRoot, 'active.json'), JSON.stringify(active));
    const env = { QWEN_HOME: qwenHome };

    const c = launch(['--qwen', base, '--check'], { env });
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stdout, /^Qwen Code 0\.24\.4 in /m);
    assert.ok(c.stdout.includes(`  runs Qwen Code's own update to 0.25.0 instead: ${updated}\n`), c.stdout);
    const r = launch(['--qwen', base, '--acp'], { env });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).self, path.join(updated, 'cli.js'), 'the update is what ran');
    assert.match(r.stderr, /^toolcall-stream\/qwen: Qwen Code 0\.25\.0 runs stock/m, 'and what the preload decided on');

    // An update made for another base release is not used, by Qwen or by --check.
    fs.writeFileSync(path.join(launcherRoot, 'active.json'), JSON.stringify({ ...active, baseVersion: '0.24.3' }));
    assert.doesNotMatch(launch(['--qwen', base, '--check'], { env }).stdout, /own update/);
    assert.equal(JSON.parse(launch(['--qwen', base, '--acp'], { env }).stdout).self, path.join(base, 'cli.js'));
  },
);

test(
  "a local install: Qwen Code found beside toolcall-stream in the project's node_modules, from any directory",
  { skip: latest.skip },
  () => {
    const modules = path.join(tmp, 'local-project', 'node_modules');
    const own = path.join(modules, 'toolcall-stream');
    fs.mkdirSync(own, { recursive: true });
    fs.copyFileSync(path.join(root, 'package.json'), path.join(own, 'package.json'));
    for (const d of ['lib', 'bin']) fs.cpSync(path.join(root, d), path.join(own, d), { recursive: true });
    const qwen = path.join(modules, '@qwen-code', 'qwen-code');
    fs.cpSync(standIn('local-qwen', { version: '1.0.5' }), qwen, { recursive: true });
    const elsewhere = path.join(tmp, 'elsewhere');
    fs.mkdirSync(elsewhere);

    const r = spawnSync(process.execPath, [path.join(own, 'bin', 'toolcall-stream-qwen.js'), '--acp'], {
      cwd: elsewhere,
      env: startEnv(),
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout);
    assert.equal(got.self, path.join(qwen, 'cli.js'));
    assert.equal(got.cwd, elsewhere);
    assert.equal(got.preloaded, true);
    // This copy has no binary beside it (and no acorn): Qwen runs stock, saying why in one line.
    assert.equal(ownLines(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /^toolcall-stream\/qwen: .*runs stock/m);
  },
);
