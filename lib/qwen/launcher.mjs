// `toolcall-stream-qwen`: runs the installed Qwen Code CLI with the preload
// given by its absolute URL, so it works from any working directory (a bare
// `--import=toolcall-stream/qwen` resolves from the working directory, which
// for an editor is the user's project).
//
// Qwen's own bin entry runs in this very process: cli-entry.js (since 0.21)
// relaunches cli.js in a child with --expose-gc and the inherited
// environment, so the preload, appended to NODE_OPTIONS, loads in that child,
// and acts there only (preload.mjs acts only where the entry is cli.js).
// Running the entry in-process rather than in a child of ours keeps the
// process tree the user's `qwen` has: the same arguments, stdio, signals and
// exit code (cli-entry.js re-raises its child's death by signal and exits
// with its status), with nothing in between to forward them.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findQwen } from './find-qwen.mjs';
import { launcherProgress } from './progress-setting.mjs';

const PRELOAD = new URL('./preload.mjs', import.meta.url);
const PREFIX = 'toolcall-stream-qwen';

/**
 * Splits the launcher's own options from Qwen's: `--qwen <dir>` / `--qwen=<dir>`
 * and `--no-progress` (before any `--`) are taken out; `--check` or `doctor`
 * as the first of what remains asks for the check.
 */
export function parseLauncherArgs(argv) {
  const rest = [];
  let qwen;
  let progress = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (qwen === undefined && arg === '--qwen' && i + 1 < argv.length) {
      qwen = argv[++i];
    } else if (qwen === undefined && arg.startsWith('--qwen=')) {
      qwen = arg.slice('--qwen='.length);
    } else if (arg === '--no-progress') {
      progress = false;
    } else {
      rest.push(arg);
    }
  }
  const check = rest[0] === '--check' || rest[0] === 'doctor';
  return { qwen, check, progress, qwenArgs: check ? rest.slice(1) : rest };
}

/**
 * NODE_OPTIONS with `--import=<url>` appended to what the user has. A file
 * URL needs no quoting (pathToFileURL percent-encodes spaces and quotes).
 */
export function withPreload(nodeOptions, url) {
  const own = `--import=${url}`;
  const current = (nodeOptions ?? '').trim();
  if (current.split(/\s+/).includes(own)) return current;
  return current ? `${current} ${own}` : own;
}

/** Why the preload cannot be given to Qwen, or undefined when it can. */
function preloadProblem() {
  try {
    fs.accessSync(fileURLToPath(PRELOAD), fs.constants.R_OK);
    return undefined;
  } catch (err) {
    return `the preload ${fileURLToPath(PRELOAD)} cannot be read (${err.code ?? err.message})`;
  }
}

/** Runs the launcher with `argv` (the arguments after the bin's own path). */
export async function main(argv = process.argv.slice(2)) {
  const { qwen, check, progress, qwenArgs } = parseLauncherArgs(argv);
  // Live progress on Qwen's preparing cards (progress-setting.mjs): on unless
  // --no-progress or the variable says off; it reaches Qwen's relaunched
  // cli.js through the environment, as on or off, so a value that is not a
  // switch is said here, once a start.
  const setting = launcherProgress(progress);
  process.env.TOOLCALL_STREAM_QWEN_PROGRESS = setting.value;
  if (setting.line) process.stderr.write(`${PREFIX}: ${setting.line}\n`);
  const found = findQwen({ flag: qwen, env: process.env });
  if (check) {
    const { printCheck } = await import('./check.mjs');
    process.exitCode = printCheck(found, { preload: PRELOAD, preloadProblem: preloadProblem() });
    return;
  }
  if (found.missing) {
    process.stderr.write(`${PREFIX}: ${found.missing}\n`);
    // The shell's "command not found".
    process.exit(127);
  }
  await runQwen(found, qwenArgs);
}

/** Runs Qwen's entry in this process with the preload in NODE_OPTIONS. */
async function runQwen({ entry }, qwenArgs) {
  let preload = process.env.TOOLCALL_STREAM_QWEN !== 'off';
  if (preload) {
    const problem = preloadProblem();
    if (problem) {
      process.stderr.write(`${PREFIX}: ${problem}: Qwen Code runs stock\n`);
      preload = false;
    }
  }
  if (preload) {
    process.env.NODE_OPTIONS = withPreload(process.env.NODE_OPTIONS, PRELOAD.href);
    // `qwen serve` runs in this very process (cli-entry.js imports cli.js
    // for it), removes NODE_OPTIONS from its environment as a loader
    // variable (scrubInheritedLoaderEnv, packages/cli/src/serve), and starts
    // each session as `node <its own node flags> cli.js --acp`
    // (createSpawnChannelFactory, packages/acp-bridge: process.execArgv).
    // Given as one of those flags too, the preload reaches the sessions, as
    // it would for `node --import=<preload> cli-entry.js serve`.
    if (!process.execArgv.includes(`--import=${PRELOAD.href}`)) process.execArgv.push(`--import=${PRELOAD.href}`);
  }
  // A new start: what a Qwen that started this one (its shell tool) said is not said here yet (preload.mjs, say).
  delete process.env.TOOLCALL_STREAM_QWEN_SAID;
  // Qwen reads its arguments from process.argv and finds itself by argv[1]
  // (cli-entry.js: the `qwen` it relaunches after an update).
  process.argv = [process.argv[0], entry, ...qwenArgs];
  // A release without cli-entry.js runs cli.js itself: NODE_OPTIONS reaches
  // only the processes it starts, so this process loads the preload itself.
  if (preload && path.basename(entry) === 'cli.js') await import(PRELOAD.href);
  await import(pathToFileURL(entry).href);
}
