// `toolcall-stream-qwen --check` (or `doctor`): what a start would do, without
// starting a session. Which Qwen Code was found, where and how; its version;
// per provider whether the preload serves it and with which profile, or why
// not (the reason names the function that changed); whether the native
// binary loads. The decision is the preload's own (inspect.mjs, from the
// bundle's code, through the same cache), so what it says is what runs.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { inspectQwen } from './inspect.mjs';
import { cacheFolderStatus } from './cache.mjs';
import { activeUpdateOf } from './qwen-update.mjs';
import { progressSetting } from './progress-setting.mjs';
import { commandLine, posixWord, powerShellWord } from './shell-words.mjs';

const require = createRequire(import.meta.url);

// The card hook loads the native binary as it is imported (lib/acp/cards.js):
// without the binary the check still runs, and says that it does not load.
let acpProgress;
try {
  acpProgress = await import('./acp-progress.mjs');
} catch (err) {
  acpProgress = { failed: err };
}

const PROVIDERS = [
  ['anthropic', 'Anthropic'],
  ['openai', 'OpenAI-compatible'],
  ['openaiResponses', 'OpenAI Responses'],
];

/** The check as lines of text, and its exit code: 0 when Qwen was found (served or not), 1 when not. */
export function checkReport(found, { preload, preloadProblem, env = process.env, platform = process.platform }) {
  const own = require('../../package.json').version;
  const lines = [`toolcall-stream ${own}, preload ${fileURLToPath(preload)}`, byHandLine(preload, platform)];
  if (found.missing) {
    lines.push(`Qwen Code: ${found.missing}`);
    return { lines, code: 1 };
  }
  const { pkg: base, entry, how, from } = found;
  lines.push(`Qwen Code ${base.version} in ${base.dir}`);
  lines.push(`  found through ${how}${how.startsWith('-') || how.startsWith('TOOLCALL') ? ' ' : ': '}${from}`);
  lines.push(
    `  runs ${path.basename(entry)}${path.basename(entry) === 'cli.js' ? ' with the preload' : ', which starts cli.js with the preload'}`,
  );

  // Qwen's bin runs its own update of itself when it has one: that is what a start serves.
  const update = path.basename(entry) === 'cli.js' ? undefined : activeUpdateOf(base, entry, env);
  if (update) lines.push(`  runs Qwen Code's own update to ${update.version} instead: ${update.dir}`);
  if (path.basename(entry) !== 'cli.js') lines.push(...modeLines(entry, preload, platform));
  const pkg = update ?? base;

  const { checkAvailable } = require('../available.js');
  const binary = checkAvailable();
  const decision = inspectQwen(pkg);
  const off =
    env.TOOLCALL_STREAM_QWEN === 'off'
      ? 'turned off (TOOLCALL_STREAM_QWEN=off)'
      : preloadProblem
        ? preloadProblem
        : !binary.available
          ? 'the native binary does not load'
          : undefined;
  for (const [key, name] of PROVIDERS) {
    const p = decision[key];
    if (p.absent) {
      lines.push(`${name}: ${p.reason}`);
      continue;
    }
    const verdict = p.served ? `served, profile ${p.profile}` : `runs stock: ${p.reason}`;
    lines.push(
      off && p.served
        ? `${name}: runs stock: ${off} (its code would be served, profile ${p.profile})`
        : `${name}: ${verdict}`,
    );
  }
  lines.push(progressLine(decision, env, off));
  lines.push(bindingLine(binary));
  lines.push(cacheLine(cacheFolderStatus()));
  return { lines, code: 0 };
}

/**
 * Where the decision above is kept between starts (lib/qwen/cache.mjs), or
 * why that folder is not used: then each start reads Qwen's code again,
 * and is served the same.
 */
function cacheLine({ dir, used, why }) {
  if (!used) return `decision cache: ${dir}: not used, ${why}; each start reads Qwen's code again`;
  return `decision cache: ${dir}${why ? `: ${why}` : ''}`;
}

/**
 * Which binding serves Qwen. Where only the WebAssembly build loads (no
 * native binary for the platform, or TOOLCALL_STREAM_FORCE_WASI=1), Qwen is
 * still served: measured against Qwen's own TypeScript on the same bytes
 * (`npm run bench -- --wasi`, BENCHMARKS.md), it converts a 100 KB write_file
 * stream 5× (Anthropic) to 27× (OpenAI) faster and text 3× to 7× faster;
 * its load (about 0.3 s, the module's compile) is paid once per Qwen process.
 */
function bindingLine(binary) {
  if (!binary.available) return `native binary: does not load: ${binary.reason}`;
  if (binary.kind !== 'wasi') return 'native binary: loads';
  return "WebAssembly build: loads, no native binary in use; Qwen is served on it, faster than Qwen's own converters (BENCHMARKS.md)";
}

/**
 * The command that starts the user's own `qwen` with the preload, quoted for
 * the shell it is shown for: sh on POSIX, PowerShell on Windows (whose
 * single quotes, unlike cmd.exe's quoting, leave a `%` in a file URL alone).
 */
function byHandLine(preload, platform) {
  const option = `--import=${preload.href}`;
  return platform === 'win32'
    ? `  by hand, from any folder (PowerShell): $env:NODE_OPTIONS=${powerShellWord(option)}; qwen`
    : `  by hand, from any folder: NODE_OPTIONS=${posixWord(option)} qwen`;
}

/**
 * Whether Qwen's preparing cards get live progress in ACP mode, and why not
 * (progress-setting.mjs, acp-progress.mjs): what a start with --acp does.
 */
function progressLine(decision, env, off) {
  const setting = progressSetting(['--acp'], env);
  if (!setting.wanted) return `live progress on preparing cards (--acp): off: ${setting.reason}`;
  if (off) return `live progress on preparing cards (--acp): off: ${off}`;
  if (acpProgress.failed) return `live progress on preparing cards (--acp): off: ${acpProgress.failed.message}`;
  if (PROVIDERS.every(([key]) => !decision[key].served)) {
    return 'live progress on preparing cards (--acp): off: no provider is served, so nothing counts the arguments';
  }
  const file = decision.hookPoints?.ToolCallEmitter;
  let text;
  try {
    text = file === undefined ? undefined : acpProgress.emitterClassText(fs.readFileSync(file, 'utf8'));
  } catch {
    text = undefined;
  }
  const mismatch = acpProgress.emitterCodeMismatch(text);
  return mismatch
    ? `live progress on preparing cards (--acp): off: ${mismatch}`
    : 'live progress on preparing cards (--acp): on (--no-progress or TOOLCALL_STREAM_QWEN_PROGRESS=off turns it off)';
}

/**
 * What cli-entry.js runs inside its own process rather than in a cli.js it
 * starts (isInProcessFastPath in Qwen's packages/cli/cli-entry.js), read from
 * the entry itself: `qwen serve`, `qwen mcp`, `--help` and `--version` in
 * 0.21 to 0.24.
 */
function inProcessModes(entry) {
  let body;
  try {
    body = /function isInProcessFastPath\(\)\s*\{([\s\S]*?)\n\}/.exec(fs.readFileSync(entry, 'utf8'))?.[1];
  } catch {
    return [];
  }
  if (!body) return [];
  return [
    ...[...body.matchAll(/first === '([\w-]+)'/g)].map((m) => m[1]),
    ...[...body.matchAll(/hasFlag\('(--[\w-]+)'/g)].map((m) => m[1]),
  ];
}

/**
 * Which of Qwen's modes the preload serves. It acts in every cli.js process:
 * cli-entry.js starts cli.js for the interactive mode, -p and --acp, and the
 * child inherits NODE_OPTIONS. What cli-entry.js runs in its own process runs
 * stock; `qwen serve` sends no model requests there (packages/cli/src/serve:
 * each session, and the workspace generation, is a `cli.js --acp` it starts
 * with its own Node flags, after removing NODE_OPTIONS from its environment;
 * the launcher gives the preload among those flags), nor does `qwen mcp`,
 * which manages the MCP server settings.
 */
function modeLines(entry, preload, platform) {
  const inProcess = inProcessModes(entry);
  const lines = ['  served: every cli.js process (interactive, -p, --acp)'];
  if (!inProcess.includes('serve')) return lines;
  lines[0] += ", and each session of serve and its web shell (a cli.js --acp it starts with the launcher's Node flags)";
  const names = inProcess.map((m) => (m === 'serve' ? "serve's own process" : m.startsWith('-') ? m : `qwen ${m}`));
  lines.push(`  stock, inside cli-entry.js, sending no model requests: ${names.join(', ')}`);
  const serve = commandLine(['node', `--import=${preload.href}`, entry, 'serve'], platform);
  lines.push(`  serve by hand (it removes NODE_OPTIONS): ${serve}`);
  return lines;
}

/** Prints the check to stdout; returns the exit code. */
export function printCheck(found, options) {
  const { lines, code } = checkReport(found, options);
  process.stdout.write(lines.join('\n') + '\n');
  return code;
}
