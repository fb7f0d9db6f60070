// Qwen Code in an editor, started as Zed starts an agent server: the
// `toolcall-stream-qwen` command from a global install (`npm install -g`
// into a scratch prefix, from `npm pack` tarballs), with the `args` and
// `env` of an `agent_servers` entry, in a project folder that has no
// node_modules, driven by the official ACP client over stdio. The preparing
// card comes before the arguments end and cancel works (the scenarios of
// helpers/qwen-host-suite.mjs), and the report file shows every stream
// converted from the raw body, and Qwen's preparing cards count their
// arguments up and say why they wait. On the newest release of each code variant,
// both providers; the first release is installed together with this package
// (one `npm install -g`) and started as from a desktop, with neither npm's
// bin folder nor a global root holding Qwen (found beside this package); the
// others each in a prefix of its own, found through the `qwen` on PATH.
import { test, after } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeQwenHost } from './helpers/qwen-host-suite.mjs';
import { QWEN_VARIANT_RELEASES } from '../devtools/qwen-builds.mjs';
import { binDir, installForEditor, launcherCommand } from './helpers/global-install.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-editor-'));
const reportOf = ({ version, provider }) => path.join(tmp, `report-${version}-${provider}.ndjson`);
const ran = [];

let installed;
let skip;
try {
  installed = installForEditor(tmp, QWEN_VARIANT_RELEASES);
} catch (error) {
  skip = `the global install failed (no npm or no registry?): ${String(error.stderr ?? error.message)
    .trim()
    .split('\n')
    .slice(-3)
    .join(' | ')}`;
  process.stderr.write(`e2e-qwen-launcher: skipping: ${skip}\n`);
}

/** A project folder as an editor opens it: a README, and no node_modules in it or above it. */
function projectFolder({ version, provider }) {
  const dir = path.join(tmp, `project-${version}-${provider}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'README.md'), '# sample-app\n');
  for (let d = dir; path.dirname(d) !== d; d = path.dirname(d))
    assert.equal(fs.existsSync(path.join(d, 'node_modules')), false, `${d} has node_modules`);
  return dir;
}

/** The environment of an editor's `agent_servers` entry for `version`, as the editor passes it. */
function editorEnv(version) {
  const [first] = QWEN_VARIANT_RELEASES;
  const nodeDir = path.dirname(process.execPath);
  if (version === first)
    return {
      PATH: [nodeDir, process.env.PATH].join(path.delimiter),
      npm_config_prefix: path.join(tmp, 'empty-prefix'),
    };
  return { PATH: [binDir(installed.qwenPrefix[version]), nodeDir, process.env.PATH].join(path.delimiter) };
}

test(
  'toolcall-stream-qwen --check from the global install: each release found and served',
  { skip: skip ?? false },
  () => {
    for (const version of QWEN_VARIANT_RELEASES) {
      const project = projectFolder({ version, provider: 'check' });
      const r = spawnSync(launcherCommand(installed.prefix), ['--check'], {
        cwd: project,
        env: { ...process.env, ...editorEnv(version), XDG_CACHE_HOME: path.join(tmp, 'cache') },
        encoding: 'utf8',
        shell: process.platform === 'win32',
      });
      assert.equal(r.status, 0, r.stderr);
      const profile = version.startsWith('0.21.') ? 'qwen-0.21' : 'qwen-0.24';
      const how =
        version === QWEN_VARIANT_RELEASES[0]
          ? `toolcall-stream's node_modules: ${path.join(installed.prefix, ...(process.platform === 'win32' ? [] : ['lib']), 'node_modules')}`
          : `PATH: ${path.join(binDir(installed.qwenPrefix[version]), 'qwen')}`;
      assert.ok(r.stdout.includes(`\n  found through ${how}\n`), r.stdout);
      assert.match(r.stdout, new RegExp(`^Qwen Code ${version.replaceAll('.', '\\.')} in `, 'm'));
      assert.match(r.stdout, new RegExp(`^Anthropic: served, profile ${profile}$`, 'm'));
      assert.match(r.stdout, new RegExp(`^OpenAI-compatible: served, profile ${profile}$`, 'm'));
      assert.match(r.stdout, /^native binary: loads$/m);
    }
  },
);

describeQwenHost({
  label: 'toolcall-stream-qwen, global install, as Zed starts it',
  versions: skip ? [] : QWEN_VARIANT_RELEASES,
  command: installed && launcherCommand(installed.prefix),
  cwd: projectFolder,
  scenarios: ['write', 'cancel', 'progress'],
  // The launcher adds live progress to Qwen's preparing cards in ACP mode.
  progress: true,
  env: (run) => {
    ran.push(run);
    return { ...editorEnv(run.version), TOOLCALL_STREAM_QWEN_REPORT: reportOf(run) };
  },
  extend: ({ version, provider, ...context }) => {
    after(() => {
      // Served: the preload has nothing to say.
      assert.doesNotMatch(context.qwen?.stderr ?? '', /toolcall-stream/, `${version} ${provider}`);
    });
  },
});

after(() => {
  try {
    for (const run of ran) {
      const profile = run.version.startsWith('0.21.') ? 'qwen-0.21' : 'qwen-0.24';
      const lines = fs
        .readFileSync(reportOf(run), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // One line per process that ran cli.js (Qwen relaunches cli.js with more memory).
      for (const line of lines) {
        assert.equal(line.qwenVersion, run.version);
        assert.deepEqual(line.providers[run.provider], { served: true, profile });
      }
      const sum = (pick) => lines.reduce((n, line) => n + pick(line), 0);
      const what = `${run.version} ${run.provider}: ${JSON.stringify(lines)}`;
      if (run.provider === 'anthropic') {
        assert.ok(sum((l) => l.streams.anthropic.bytes) > 0, what);
        assert.equal(
          sum((l) => l.streams.anthropic.objects),
          0,
          what,
        );
      } else {
        assert.ok(sum((l) => l.streams.openai.bytes) > 0, what);
        assert.equal(
          sum((l) => l.streams.openai.chunks),
          0,
          what,
        );
      }
      assert.equal(
        sum((l) => l.fallbacks),
        0,
        what,
      );
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
