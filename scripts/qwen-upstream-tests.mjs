#!/usr/bin/env node
// Runs Qwen Code's own test files, unmodified, against this package's swap.
// Nothing of Qwen Code is copied: the test files are read from a checkout of
// its repository that you name, and the classes they test come from a
// published Qwen Code bundle, fetched with `npm pack` into
// ~/.cache/qwen-oracle/<version> (as devtools/qwen-builds.mjs does).
//
//   node scripts/qwen-upstream-tests.mjs ~/src/qwen-code [--qwen-version 0.24.4]
//
// Three files, each a swap of its own:
//
// - packages/cli/src/acp-integration/session/tool-call-preparation-tracker.test.ts:
//   the one-line swap of docs/api.md ("Keeping the host's own emitter").
//   Wherever the test imports Qwen's `ToolCallPreparationTracker`, it gets
//   `new PreparationTracker(cards, { emitter })` from this package, and
//   `setToolCallPreparations` / `getToolCallPreparations` come from this
//   package too. Run once, swapped.
// - packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.test.ts
//   and packages/core/src/core/openaiContentGenerator/pipeline.concurrent.test.ts:
//   the launcher's swap. Their `./anthropicContentGenerator.js` and
//   `./pipeline.js` become Qwen's own AnthropicContentGenerator and
//   ContentGenerationPipeline from the published bundle. Each file runs twice:
//   stock (the classes as published) and swapped (after install() of
//   lib/qwen/install.mjs, the function the preload runs, has patched them:
//   AnthropicContentGenerator.processStream, and the pipeline's
//   processStreamWithLogging with the per-chunk converter it calls). Every
//   test that passes stock must pass swapped, and the swapped run must show
//   that the native converters took its streams (install()'s counters).
//
// The published bundle carries the Anthropic SDK inside it, so a test's
// `vi.mock('@anthropic-ai/sdk')` cannot reach the bundled client: the
// stand-in remakes the generator's client with the (mocked) SDK class and the
// options the bundled code gave its own, the same in both runs.
//
// Qwen's tests use vitest; the script installs it once into
// ~/.cache/toolcall-stream-qwen-tests (outside the repository). It exits
// non-zero when a swapped run fails a test that the stock run passes, when a
// swapped run's streams did not reach the native converters, or when the
// tracker file fails.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureQwenBuild } from '../devtools/qwen-builds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = '4.1.12';

/** The published Qwen Code whose classes the converter files test, unless --qwen-version names another. */
export const QWEN_VERSION = '0.24.4';

/**
 * Qwen's test files that the swap runs, relative to its checkout. `provider`:
 * the launcher's swap of that provider, run stock and swapped against the
 * bundle; none: the tracker's one-line swap.
 */
export const SUITES = [
  { file: 'packages/cli/src/acp-integration/session/tool-call-preparation-tracker.test.ts' },
  {
    file: 'packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.test.ts',
    provider: 'anthropic',
  },
  { file: 'packages/core/src/core/openaiContentGenerator/pipeline.concurrent.test.ts', provider: 'openai' },
];

export const SWAPPED_TEST_FILES = SUITES.map((s) => s.file);

/** Installs vitest once into the cache; returns the folder that holds its node_modules. */
function vitestHome() {
  const home = path.join(os.homedir(), '.cache', 'toolcall-stream-qwen-tests', `vitest-${VITEST}`);
  if (!fs.existsSync(path.join(home, 'node_modules', 'vitest', 'package.json'))) {
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'package.json'), '{"private":true}\n');
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', `vitest@${VITEST}`], {
      cwd: home,
      stdio: 'inherit',
    });
    if (npm.status !== 0) throw new Error(`could not install vitest ${VITEST} into ${home}`);
  }
  return home;
}

const js = (value) => JSON.stringify(value);
const genai = () => path.join(root, 'node_modules', '@google', 'genai', 'dist', 'node', 'index.mjs');

/**
 * The tracker's stand-ins, written into `dir`: Qwen's tracker module replaced
 * by the swap, and Qwen core's preparation helpers by this package's.
 * Returns vitest's `resolve.alias` entries.
 */
function trackerAliases(dir) {
  const pkg = pathToFileURL(path.join(root, 'index.mjs')).href;
  const tracker = path.join(dir, 'tool-call-preparation-tracker.mjs');
  fs.writeFileSync(
    tracker,
    `import { ToolCallCards, PreparationTracker } from ${js(pkg)};\n` +
      '// The one-line swap: Qwen constructs `new ToolCallPreparationTracker(this.toolCallEmitter)`.\n' +
      'export class ToolCallPreparationTracker {\n' +
      '  constructor(emitter) {\n' +
      '    return new PreparationTracker(new ToolCallCards({ suppressedTools: [] }), { emitter });\n' +
      '  }\n' +
      '}\n',
  );
  const core = path.join(dir, 'qwen-code-core.mjs');
  fs.writeFileSync(core, `export { setToolCallPreparations, getToolCallPreparations } from ${js(pkg)};\n`);
  return [
    [/^\.\/tool-call-preparation-tracker\.js$/, tracker],
    [/^@qwen-code\/qwen-code-core(\/.*)?$/, core],
    [/^@google\/genai$/, genai()],
  ];
}

const HARNESS = path.join(root, 'scripts', 'qwen-upstream-swap.mjs');

/**
 * The lines that load Qwen's classes in a stand-in: scripts/qwen-upstream-swap.mjs,
 * which vitest leaves to Node (`server.deps.external`), so the bundle and the
 * patch are loaded once per test file, whatever the test resets.
 */
function loadClasses(run) {
  return (
    `import { qwenClasses } from ${js(HARNESS)};\n` +
    `const { classes } = await qwenClasses({ dir: ${js(run.bundle)}, swapped: ${run.swapped} });\n`
  );
}

/**
 * The stand-ins of the launcher's swap for `run` (`{provider, bundle,
 * swapped}`), written into `dir`. Returns vitest's `resolve.alias` entries.
 */
function bundleAliases(dir, run) {
  if (run.provider === 'anthropic') {
    // anthropicContentGenerator.test.ts imports ./anthropicContentGenerator.js
    // and ./converter.js (packages/core/src/core/anthropicContentGenerator/),
    // and mocks @anthropic-ai/sdk.
    const sdk = path.join(dir, 'anthropic-sdk.mjs');
    fs.writeFileSync(
      sdk,
      '// Qwen\'s test replaces this module with vi.mock("@anthropic-ai/sdk").\n' +
        'export default class Anthropic {\n' +
        "  constructor() { throw new Error('@anthropic-ai/sdk is not mocked'); }\n" +
        '}\n',
    );
    const generator = path.join(dir, 'anthropicContentGenerator.mjs');
    fs.writeFileSync(
      generator,
      "import Anthropic from '@anthropic-ai/sdk';\n" +
        loadClasses(run) +
        '// The bundle carries the SDK inside it: its client is remade by the\n' +
        "// test's SDK class with the options the bundled code gave its own.\n" +
        '// Qwen Code 0.21 onward asks its Config for getStaticSystemPrefix()\n' +
        "// (anthropicContentGenerator.ts, buildRequest), which the test's mock\n" +
        '// Config of an older source may lack: then it answers undefined (no prefix).\n' +
        'const withPrefix = (cli) =>\n' +
        "  cli && typeof cli.getStaticSystemPrefix !== 'function'\n" +
        '    ? Object.assign(Object.create(cli), { getStaticSystemPrefix: () => undefined })\n' +
        '    : cli;\n' +
        'export class AnthropicContentGenerator extends classes.AnthropicContentGenerator {\n' +
        '  constructor(config, cli) {\n' +
        '    super(config, withPrefix(cli));\n' +
        '    this.client = new Anthropic(this.client._options);\n' +
        '  }\n' +
        '}\n',
    );
    const converter = path.join(dir, 'anthropic-converter.mjs');
    fs.writeFileSync(
      converter,
      loadClasses(run) +
        "// The bundle does not export the converter class: it is the class of a generator's converter.\n" +
        'const probe = new classes.AnthropicContentGenerator(\n' +
        "  { model: 'probe', apiKey: 'probe', samplingParams: {} },\n" +
        '  { getProxy() {}, getCliVersion() {} },\n' +
        ');\n' +
        'export const AnthropicContentConverter = probe.converter.constructor;\n',
    );
    return [
      [/^\.\/anthropicContentGenerator\.js$/, generator],
      [/^\.\/converter\.js$/, converter],
      [/^@anthropic-ai\/sdk$/, sdk],
      [/^@google\/genai$/, genai()],
    ];
  }
  // pipeline.concurrent.test.ts imports ./pipeline.js
  // (packages/core/src/core/openaiContentGenerator/).
  const pipeline = path.join(dir, 'pipeline.mjs');
  fs.writeFileSync(pipeline, loadClasses(run) + 'export const { ContentGenerationPipeline } = classes;\n');
  return [
    [/^\.\/pipeline\.js$/, pipeline],
    [/^@google\/genai$/, genai()],
  ];
}

/**
 * Runs one test file under vitest with `aliases`; returns `{status, tests,
 * report}`: vitest's exit status, `{name: 'passed' | 'failed' | …}`, and what
 * scripts/qwen-upstream-swap.mjs reported of the run (bundle runs only).
 */
function runVitest({ checkout, file, aliases, dir, home, label, bundle }) {
  const out = path.join(dir, `${label}.json`);
  const reportFile = path.join(dir, `${label}.report.json`);
  const setupFiles = [];
  if (bundle) {
    const setup = path.join(dir, `${label}.setup.mjs`);
    fs.writeFileSync(
      setup,
      "import { afterAll } from 'vitest';\n" +
        `import { qwenClasses, writeReport } from ${js(HARNESS)};\n` +
        '// Loaded before the tests, so that no test is charged for it.\n' +
        `await qwenClasses({ dir: ${js(bundle.dir)}, swapped: ${bundle.swapped} });\n` +
        `afterAll(() => writeReport(${js(reportFile)}));\n`,
    );
    setupFiles.push(setup);
  }
  const config = path.join(dir, `${label}.vitest.config.mjs`);
  fs.writeFileSync(
    config,
    'export default {\n' +
      `  resolve: { alias: [\n${aliases.map(([find, to]) => `    { find: ${find}, replacement: ${js(to)} },\n`).join('')}  ] },\n` +
      `  test: {\n    root: ${js(path.resolve(checkout))},\n    include: ${js([file])},\n    setupFiles: ${js(setupFiles)},\n` +
      `    server: { deps: { external: [${js(HARNESS)}] } },\n  },\n` +
      '};\n',
  );
  console.log(`\n== ${label}: ${file}`);
  const vitest = path.join(home, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(
    process.execPath,
    [vitest, 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`],
    { stdio: 'inherit' },
  );
  const tests = {};
  try {
    for (const f of JSON.parse(fs.readFileSync(out, 'utf8')).testResults)
      for (const t of f.assertionResults) tests[t.fullName] = t.status;
  } catch {
    // No results: the file did not load; the status says so.
  }
  const report = fs.existsSync(reportFile) ? JSON.parse(fs.readFileSync(reportFile, 'utf8')) : undefined;
  return { status: run.status ?? 1, tests, report };
}

const count = (tests, status) => Object.values(tests).filter((s) => s === status).length;

/** The problems of a stock/swapped pair: regressions, and a swapped run whose streams stayed stock. */
function compare(suite, stock, swapped) {
  const problems = [];
  for (const [name, status] of Object.entries(stock.tests))
    if (status === 'passed' && swapped.tests[name] !== 'passed')
      problems.push(`passes stock, ${swapped.tests[name] ?? 'missing'} swapped: ${name}`);
  const report = swapped.report;
  if (report?.served?.[suite.provider] !== true)
    problems.push(`the swap was not installed: ${report?.served?.[suite.provider] ?? 'no report from the run'}`);
  const streams = report?.stats?.[suite.provider] ?? {};
  if (!Object.values(streams).some((n) => n > 0))
    problems.push("no stream of the swapped run reached this package's converter");
  return { problems, streams };
}

function main(argv) {
  const args = [...argv];
  let version = QWEN_VERSION;
  const at = args.indexOf('--qwen-version');
  if (at >= 0) [version] = args.splice(at, 2).slice(1);
  const checkout = args[0];
  if (!checkout || !version || !fs.existsSync(path.join(checkout, 'packages'))) {
    console.error(
      'usage: node scripts/qwen-upstream-tests.mjs QWEN_CODE_CHECKOUT [--qwen-version VERSION] (a clone of the Qwen Code repository)',
    );
    return 2;
  }
  for (const { file } of SUITES) {
    if (!fs.existsSync(path.resolve(checkout, file))) {
      console.error(`not in this checkout: ${path.resolve(checkout, file)}`);
      return 2;
    }
  }
  const home = vitestHome();
  const bundle = ensureQwenBuild(version);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qwen-upstream-tests-'));
  const summary = [];
  let failed = false;
  try {
    for (const suite of SUITES) {
      const { file, provider } = suite;
      if (!provider) {
        const sub = fs.mkdtempSync(path.join(dir, 'tracker-'));
        const run = runVitest({ checkout, file, aliases: trackerAliases(sub), dir, home, label: 'tracker' });
        failed ||= run.status !== 0;
        summary.push(`${file}: swapped ${count(run.tests, 'passed')}/${Object.keys(run.tests).length} passed`);
        continue;
      }
      const runs = {};
      for (const swapped of [false, true]) {
        const label = `${provider}-${swapped ? 'swapped' : 'stock'}`;
        const sub = fs.mkdtempSync(path.join(dir, `${label}-`));
        const aliases = bundleAliases(sub, { provider, bundle, swapped });
        runs[label] = runVitest({ checkout, file, aliases, dir, home, label, bundle: { dir: bundle, swapped } });
      }
      const stock = runs[`${provider}-stock`];
      const swapped = runs[`${provider}-swapped`];
      const { problems, streams } = compare(suite, stock, swapped);
      failed ||= problems.length > 0;
      const total = Object.keys(stock.tests).length;
      const stockFailing = Object.entries(stock.tests)
        .filter(([, s]) => s !== 'passed')
        .map(([name, s]) => `    ${s} stock (and swapped: ${swapped.tests[name] ?? 'missing'}): ${name}`);
      summary.push(
        `${file} against Qwen Code ${version}: stock ${count(stock.tests, 'passed')}/${total} passed, ` +
          `swapped ${count(swapped.tests, 'passed')}/${Object.keys(swapped.tests).length} passed; ` +
          `streams the native converter took: ${js(streams)}`,
        ...stockFailing,
        ...problems.map((p) => `    PROBLEM: ${p}`),
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${summary.join('\n')}`);
  return failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
