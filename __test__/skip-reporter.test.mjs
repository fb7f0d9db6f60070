// TOOLCALL_STREAM_SKIPS=fail (devtools/skip-reporter.mjs): tiny test files run
// by `node --test` in a child with the reporters `npm test` uses. A test that
// skips because its Qwen Code build is missing (an empty build cache, npm
// offline with an empty cache of its own) fails the run with the switch,
// naming what was missing, and is a plain skip without it; a skip the
// allow-list names passes; every way of skipping is seen. `npm test` in both
// packages runs the reporter and `.ci/run` sets the switch. The emulated rows
// of scripts/test-platforms.mjs read skips from node's TAP instead
// (devtools/tap-skips.mjs): the same tiny files' TAP, read that way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ALLOWED_SKIPS } from '../devtools/allowed-skips.mjs';
import { skippedInTap } from '../devtools/tap-skips.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const reporter = path.join(root, 'devtools', 'skip-reporter.mjs');
const qwenBuilds = pathToFileURL(path.join(root, 'devtools', 'qwen-builds.mjs')).href;

const MISSING_BUILD = `
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { qwenBuildOrSkip } from ${JSON.stringify(qwenBuilds)};

const build = qwenBuildOrSkip('0.24.4');
test('runs Qwen Code 0.24.4', { skip: build.skip ?? false }, () => assert.ok(build.dir));
test('needs nothing', () => {});
`;

/** `node --test` over `source` as a test file, with `npm test`'s reporters (or `reporters`); its status and both streams. */
function runTests(source, env, reporters = undefined) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skip-reporter-'));
  try {
    const file = path.join(dir, 'tiny.test.mjs');
    fs.writeFileSync(file, source);
    const childEnv = {
      ...process.env,
      // No Qwen Code build, and npm cannot fetch one: offline, with an empty cache.
      QWEN_ORACLE_HOME: path.join(dir, 'qwen-oracle'),
      npm_config_cache: path.join(dir, 'npm-cache'),
      npm_config_offline: 'true',
      ...env,
    };
    // Inside this runner's child, NODE_TEST_CONTEXT would make the child report to it.
    delete childEnv.NODE_TEST_CONTEXT;
    for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
    const run = spawnSync(
      process.execPath,
      [
        '--test',
        ...(reporters ?? [
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          `--test-reporter=${pathToFileURL(reporter).href}`,
          '--test-reporter-destination=stderr',
        ]),
        file,
      ],
      { cwd: dir, env: childEnv, encoding: 'utf8', timeout: 120_000 },
    );
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('with TOOLCALL_STREAM_SKIPS=fail, a test skipped for a missing Qwen Code build fails the run, naming it', () => {
  const r = runTests(MISSING_BUILD, { TOOLCALL_STREAM_SKIPS: 'fail' });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^TOOLCALL_STREAM_SKIPS=fail: 1 skipped test\(s\) fail the run/m);
  assert.match(
    r.stderr,
    /^ {2}tiny\.test\.mjs: runs Qwen Code 0\.24\.4: Qwen Code 0\.24\.4 is not available: cannot fetch/m,
  );
  assert.doesNotMatch(r.stderr, /needs nothing/);
});

test('without the switch, the same test is a skip with its reason, and the run passes', () => {
  const r = runTests(MISSING_BUILD, { TOOLCALL_STREAM_SKIPS: undefined });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /runs Qwen Code 0\.24\.4 .*# Qwen Code 0\.24\.4 is not available/);
  assert.match(r.stdout, /skipped 1/);
  assert.equal(r.stderr.includes('TOOLCALL_STREAM_SKIPS'), false, r.stderr);
});

test('with the switch, a skip the allow-list names passes', () => {
  const r = runTests(
    "import { test } from 'node:test';\ntest('a scenario', (t) => t.skip('not one of the scenarios chosen'));\n",
    { TOOLCALL_STREAM_SKIPS: 'fail' },
  );
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /skipped 1/);
});

test('with the switch, every way of skipping fails: a suite, t.skip(), a skip with no reason', () => {
  const r = runTests(
    [
      "import { describe, it, test } from 'node:test';",
      "describe('a client suite', { skip: 'Toad is not available: no Python 3.13' }, () => { it('a card', () => {}); });",
      "test('a tool', (t) => t.skip('needs unshare(1) and root'));",
      "test('a flag', { skip: true }, () => {});",
      "test('the listed reason, worded otherwise', (t) => t.skip('not one of the chosen scenarios'));",
      '',
    ].join('\n'),
    { TOOLCALL_STREAM_SKIPS: 'fail' },
  );
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /: 4 skipped test\(s\) fail the run/);
  assert.match(r.stderr, /tiny\.test\.mjs: a client suite: Toad is not available: no Python 3\.13$/m);
  assert.match(r.stderr, /tiny\.test\.mjs: a tool: needs unshare\(1\) and root$/m);
  assert.match(r.stderr, /tiny\.test\.mjs: a flag: \(no reason given\)$/m);
  assert.match(r.stderr, /tiny\.test\.mjs: the listed reason, worded otherwise: not one of the chosen scenarios$/m);
});

test('a misspelt switch fails the run rather than allowing every skip', () => {
  const r = runTests("import { test } from 'node:test';\ntest('fine', () => {});\n", { TOOLCALL_STREAM_SKIPS: 'fial' });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^TOOLCALL_STREAM_SKIPS=fial: not one of allow, fail$/m);
});

test('npm test runs the reporter in both packages, and .ci/run sets the switch', () => {
  for (const [pkg, rel] of [
    ['package.json', './devtools/skip-reporter.mjs'],
    [path.join('packages', 'agent', 'package.json'), '../../devtools/skip-reporter.mjs'],
  ]) {
    const script = JSON.parse(fs.readFileSync(path.join(root, pkg), 'utf8')).scripts.test;
    assert.ok(script.includes(`--test-reporter=${rel}`), `${pkg}: ${script}`);
    assert.ok(script.includes('--test-reporter=spec'), `${pkg}: the spec reporter stays: ${script}`);
  }
  assert.match(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8'), /^export TOOLCALL_STREAM_SKIPS=fail$/m);
});

test("node's TAP, as test-platforms reads it: each skip with its reason, nested and suites too, and which the allow-list refuses", () => {
  const source = [
    "import { describe, it, test } from 'node:test';",
    `import { qwenBuildOrSkip } from ${JSON.stringify(qwenBuilds)};`,
    "test('runs Qwen Code 0.24.4', { skip: qwenBuildOrSkip('0.24.4').skip ?? false }, () => {});",
    "describe('outer', () => {",
    "  it('a scenario # of two', (t) => t.skip('not one of the scenarios chosen'));",
    "  it('a flag', { skip: true }, () => {});",
    "  it('runs', () => {});",
    '});',
    "describe('a client suite', { skip: 'Toad is not available' }, () => { it('a card', () => {}); });",
    '',
  ].join('\n');
  const r = runTests(source, { TOOLCALL_STREAM_SKIPS: undefined }, ['--test-reporter=tap']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const skips = skippedInTap(r.stdout);
  assert.deepEqual(
    skips.map((k) => k.name),
    ['runs Qwen Code 0.24.4', 'a scenario \\# of two', 'a flag', 'a client suite'],
    r.stdout,
  );
  assert.match(skips[0].reason, /^Qwen Code 0\.24\.4 is not available: cannot fetch/);
  assert.deepEqual(
    skips.slice(1).map((k) => k.reason),
    ['not one of the scenarios chosen', '(no reason given)', 'Toad is not available'],
  );
  assert.deepEqual(
    skips.filter((k) => !ALLOWED_SKIPS.has(k.reason)).map((k) => k.name),
    ['runs Qwen Code 0.24.4', 'a flag', 'a client suite'],
  );
});
