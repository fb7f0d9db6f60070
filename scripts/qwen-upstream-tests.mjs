#!/usr/bin/env node
// Runs Qwen Code's own test files, unmodified, with the one-line swap of
// docs/api.md ("Keeping the host's own emitter") applied: wherever the test
// imports Qwen's `ToolCallPreparationTracker`, it gets
// `new PreparationTracker(cards, { emitter })` from this package instead, and
// `setToolCallPreparations` / `getToolCallPreparations` come from this
// package too. Nothing of Qwen Code is copied: the files are read from a
// checkout of its repository that you name.
//
//   node scripts/qwen-upstream-tests.mjs ~/src/qwen-code
//
// Qwen's tests use vitest; the script installs it once into
// ~/.cache/toolcall-stream-qwen-tests (outside the repository) and exits with
// vitest's status.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = '4.1.12';

/** The test files of Qwen Code that the swap touches, relative to its checkout. */
export const SWAPPED_TEST_FILES = ['packages/cli/src/acp-integration/session/tool-call-preparation-tracker.test.ts'];

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

/**
 * The stand-ins the swapped files import, written into `dir`: Qwen's tracker
 * module replaced by the swap, and Qwen core's preparation helpers by this
 * package's.
 */
function writeSwap(dir) {
  const pkg = pathToFileURL(path.join(root, 'index.mjs')).href;
  const tracker = path.join(dir, 'tool-call-preparation-tracker.mjs');
  fs.writeFileSync(
    tracker,
    `import { ToolCallCards, PreparationTracker } from ${JSON.stringify(pkg)};\n` +
      '// The one-line swap: Qwen constructs `new ToolCallPreparationTracker(this.toolCallEmitter)`.\n' +
      'export class ToolCallPreparationTracker {\n' +
      '  constructor(emitter) {\n' +
      '    return new PreparationTracker(new ToolCallCards({ suppressedTools: [] }), { emitter });\n' +
      '  }\n' +
      '}\n',
  );
  const core = path.join(dir, 'qwen-code-core.mjs');
  fs.writeFileSync(core, `export { setToolCallPreparations, getToolCallPreparations } from ${JSON.stringify(pkg)};\n`);
  return { tracker, core };
}

function main(argv) {
  const checkout = argv[0];
  if (!checkout || !fs.existsSync(path.join(checkout, 'packages', 'cli'))) {
    console.error(
      'usage: node scripts/qwen-upstream-tests.mjs QWEN_CODE_CHECKOUT (a clone of the Qwen Code repository)',
    );
    return 2;
  }
  const files = SWAPPED_TEST_FILES.map((f) => path.resolve(checkout, f));
  for (const f of files) {
    if (!fs.existsSync(f)) {
      console.error(`not in this checkout: ${f}`);
      return 2;
    }
  }
  const home = vitestHome();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qwen-upstream-tests-'));
  try {
    const { tracker, core } = writeSwap(dir);
    const config = path.join(dir, 'vitest.config.mjs');
    fs.writeFileSync(
      config,
      'export default {\n' +
        '  resolve: {\n' +
        '    alias: [\n' +
        `      { find: /^\\.\\/tool-call-preparation-tracker\\.js$/, replacement: ${JSON.stringify(tracker)} },\n` +
        `      { find: /^@qwen-code\\/qwen-code-core(\\/.*)?$/, replacement: ${JSON.stringify(core)} },\n` +
        `      { find: /^@google\\/genai$/, replacement: ${JSON.stringify(path.join(root, 'node_modules', '@google', 'genai', 'dist', 'node', 'index.mjs'))} },\n` +
        '    ],\n' +
        '  },\n' +
        `  test: { root: ${JSON.stringify(path.resolve(checkout))}, include: ${JSON.stringify(SWAPPED_TEST_FILES)} },\n` +
        '};\n',
    );
    const vitest = path.join(home, 'node_modules', 'vitest', 'vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run', '--config', config], { stdio: 'inherit' });
    return run.status ?? 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
