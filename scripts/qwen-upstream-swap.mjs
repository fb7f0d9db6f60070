// The Qwen Code classes that scripts/qwen-upstream-tests.mjs gives Qwen's own
// test files: taken from a published bundle of Qwen Code, either as published
// (stock) or with this package's hooks installed by the very function the
// preload runs (install() in lib/qwen/install.mjs: inspect the bundle, import
// its hook points, patch AnthropicContentGenerator.processStream and the
// OpenAI pipeline's converter). The stand-in modules that the test files
// import load this file with Node's own import(), never through vitest, so
// one instance of it (and of the bundle's chunks) serves a whole test file
// even when the test resets vitest's modules between tests.
import fs from 'node:fs';
import { qwenPackageAt } from '../lib/qwen/package.mjs';
import { findExporters } from '../lib/qwen/inspect.mjs';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';
import { install, newStats } from '../lib/qwen/install.mjs';

/** The classes the stand-ins re-export, from the bundle's chunks that export them. */
export const CLASSES = ['AnthropicContentGenerator', 'ContentGenerationPipeline'];

/**
 * Kept on the global object: should vitest evaluate this file again (a test
 * that resets its modules), the classes are patched once all the same and
 * the counters stay those of the run.
 */
const LOADED = Symbol.for('toolcall-stream.qwen-upstream-swap');

/**
 * `{classes, swapped, outcome, stats}` for the bundle at `dir`: with
 * `swapped`, install() has patched the classes and `stats` counts the
 * streams the native converters took (newStats() in lib/qwen/install.mjs).
 * Once per process.
 */
export function qwenClasses({ dir, swapped }) {
  globalThis[LOADED] ??= (async () => {
    const pkg = qwenPackageAt(dir);
    if (!pkg) throw new Error(`no Qwen Code package in ${dir}`);
    const stats = newStats();
    const outcome = swapped ? await install(pkg, stats) : undefined;
    const names = [...CLASSES, 'preloadRuntimeFetchModule'];
    const classes = await importHookPoints(findExporters(pkg.dir, names), names);
    // Qwen's startup loads undici before any client is built (0.24's
    // generators throw "undici is not loaded yet" otherwise).
    if (classes.preloadRuntimeFetchModule) await classes.preloadRuntimeFetchModule();
    for (const name of CLASSES) if (!classes[name]) throw new Error(`Qwen Code ${pkg.version} exports no ${name}`);
    return { version: pkg.version, classes, swapped, outcome, stats };
  })();
  return globalThis[LOADED];
}

/** Writes what the run was (stock or swapped, what install() served, the counters) to `file`. */
export async function writeReport(file) {
  if (!globalThis[LOADED] || !file) return;
  const { version, swapped, outcome, stats } = await globalThis[LOADED];
  const served = outcome && {
    anthropic: outcome.anthropic.served ? true : outcome.anthropic.reason,
    openai: outcome.openai.served ? true : outcome.openai.reason,
  };
  fs.writeFileSync(file, JSON.stringify({ version, swapped, served, stats }) + '\n');
}
