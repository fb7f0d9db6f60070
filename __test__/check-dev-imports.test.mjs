// scripts/check-dev-imports.mjs over a small checkout of its own: it passes
// when the tests, benchmark/, scripts/ and fuzz/ share only through
// devtools/, and fails, naming the import, for each kind of import across
// (static, re-export, side effect, dynamic, require, a worker's module URL)
// and for devtools/ importing any of them. This repository passes too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'check-dev-imports.mjs');

/** A checkout of `files` (path → text) over GOOD; the script's exit status and output over it. */
function check(files, dir = undefined) {
  const tree = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'check-dev-imports-'));
  try {
    if (!dir) {
      for (const [file, text] of Object.entries({ ...GOOD, ...files })) {
        fs.mkdirSync(path.join(tree, path.dirname(file)), { recursive: true });
        fs.writeFileSync(path.join(tree, file), text);
      }
    }
    const run = spawnSync(process.execPath, [script, tree], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    if (!dir) fs.rmSync(tree, { recursive: true, force: true });
  }
}

const GOOD = {
  'lib/index.js': 'module.exports = {};\n',
  'devtools/shared.mjs': "import lib from '../lib/index.js';\nexport const x = lib;\n",
  'devtools/child.mjs': "import { x } from './shared.mjs';\nconsole.log(x);\n",
  '__test__/a.test.mjs': [
    "import { x } from '../devtools/shared.mjs';",
    "import { y } from './helpers/own.mjs';",
    "const child = new URL('../devtools/child.mjs', import.meta.url);",
    '// benchmark/bench.mjs and ../scripts/run.mjs are cited here, not imported',
    "const script = '../scripts/run.mjs'; // the script under test is spawned, not imported",
    '',
  ].join('\n'),
  '__test__/helpers/own.mjs': 'export const y = 1;\n',
  'packages/agent/__test__/b.test.mjs': "import { y } from '../../../__test__/helpers/own.mjs';\n",
  'benchmark/bench.mjs': "import { x } from '../devtools/shared.mjs';\nimport './rows.mjs';\n",
  'benchmark/rows.mjs': 'export {};\n',
  'scripts/run.mjs': "const { x } = await import('../devtools/shared.mjs');\n",
  'fuzz/run.mjs': "import { x } from '../devtools/shared.mjs';\n",
  'fuzz/target/debug/build.js': "require('../../../__test__/helpers/own.mjs');\n",
};

test('passes when everything shared comes from devtools/', () => {
  const { status, output } = check({});
  assert.equal(status, 0, output);
  assert.match(output, /only through devtools/);
});

const CROSSINGS = [
  [
    'benchmark/qwen.mjs',
    "import { y } from '../__test__/helpers/own.mjs';\n",
    '__test__/helpers/own.mjs',
    'benchmark → tests',
  ],
  [
    'scripts/fuzz.mjs',
    "export { y } from '../__test__/helpers/own.mjs';\n",
    '__test__/helpers/own.mjs',
    'scripts → tests',
  ],
  ['__test__/peer.test.mjs', "import '../benchmark/rows.mjs';\n", 'benchmark/rows.mjs', 'tests → benchmark'],
  ['__test__/run.test.mjs', "const m = await import('../scripts/run.mjs');\n", 'scripts/run.mjs', 'tests → scripts'],
  [
    'packages/agent/__test__/c.test.mjs',
    "const m = require('../../../benchmark/rows.mjs');\n",
    'benchmark/rows.mjs',
    'tests → benchmark',
  ],
  ['benchmark/stop.mjs', "import { run } from '../scripts/run.mjs';\n", 'scripts/run.mjs', 'benchmark → scripts'],
  [
    'scripts/worker.mjs',
    "new Worker(new URL('../benchmark/rows.mjs', import.meta.url));\n",
    'benchmark/rows.mjs',
    'scripts → benchmark',
  ],
  ['fuzz/seed.mjs', "import { y } from '../__test__/helpers/own.mjs';\n", '__test__/helpers/own.mjs', 'fuzz → tests'],
  [
    'devtools/peer.mjs',
    "import { y } from '../__test__/helpers/own.mjs';\n",
    '__test__/helpers/own.mjs',
    'devtools → tests',
  ],
  ['devtools/cross.mjs', "import { run } from '../scripts/run.mjs';\n", 'scripts/run.mjs', 'devtools → scripts'],
];

for (const [file, text, target, arrow] of CROSSINGS) {
  test(`fails on ${arrow}: ${file} importing ${target}`, () => {
    const { status, output } = check({ [file]: text });
    assert.equal(status, 1, output);
    assert.ok(output.includes(`${file} imports ${target} (${arrow})`), output);
    assert.equal(
      output.match(/^check-dev-imports: \S+ imports /gm).length,
      1,
      `only the one crossing is named:\n${output}`,
    );
  });
}

test('this repository passes', () => {
  const { status, output } = check({}, path.join(path.dirname(script), '..'));
  assert.equal(status, 0, output);
});
