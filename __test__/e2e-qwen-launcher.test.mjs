// Qwen Code in an editor, started as Zed starts an agent server: the
// `toolcall-stream-qwen` command from a global install (`npm install -g`
// into a scratch prefix, from `npm pack` tarballs), with the `args` and
// `env` of an `agent_servers` entry, in a project folder that has no
// node_modules, driven by the official ACP client over stdio. The preparing
// card comes before the arguments end and cancel works (the scenarios of
// helpers/qwen-host-suite.mjs), and the report file shows every stream
// converted from the raw body. On the newest release of each code variant,
// both providers; the first release is installed together with this package
// (one `npm install -g`), the others each in a prefix of its own, found
// through the `qwen` on PATH.
import { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeQwenHost } from './helpers/qwen-host-suite.mjs';
import { QWEN_VARIANT_RELEASES } from './helpers/qwen-builds.mjs';
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

/** A project folder as an editor opens it: a README, no node_modules anywhere above it but the system's. */
function projectFolder({ version, provider }) {
  const dir = path.join(tmp, `project-${version}-${provider}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'README.md'), '# sample-app\n');
  return dir;
}

describeQwenHost({
  label: 'toolcall-stream-qwen, global install, as Zed starts it',
  versions: skip ? [] : QWEN_VARIANT_RELEASES,
  command: installed && launcherCommand(installed.prefix),
  cwd: projectFolder,
  scenarios: ['write', 'cancel'],
  env: (run) => {
    ran.push(run);
    return {
      // The editor's PATH: Node, and the npm bin folder holding this release's `qwen`.
      PATH: [binDir(installed.qwenPrefix[run.version]), path.dirname(process.execPath), process.env.PATH].join(
        path.delimiter,
      ),
      TOOLCALL_STREAM_QWEN_REPORT: reportOf(run),
    };
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
