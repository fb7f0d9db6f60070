// Finding the installed Qwen Code CLI for `toolcall-stream-qwen`, in this
// order: (1) `--qwen <dir>` or TOOLCALL_STREAM_QWEN_CLI (a package folder, or
// its cli.js / cli-entry.js); (2) the `qwen` on PATH, followed to its package
// (npm's symlink on POSIX, the .cmd shim's target on Windows); (3) the global
// node_modules that `npm root -g` names; (4) the node_modules this package is
// installed in (an editor started from a desktop often has neither npm's bin
// folder nor npm on its PATH, and runs the launcher by its absolute path).
// An editor starts the launcher in the project being edited, so nothing here
// depends on the working directory.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { qwenPackageAt } from './package.mjs';

const QWEN_PACKAGE = ['@qwen-code', 'qwen-code'];
const windows = process.platform === 'win32';

/**
 * The entry a user's `qwen` runs: the package's bin (cli-entry.js since
 * 0.21, which relaunches cli.js with --expose-gc), or cli.js where a release
 * has no separate bin.
 */
export function qwenEntry(dir) {
  try {
    const { bin } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const file = typeof bin === 'string' ? bin : bin?.qwen;
    if (typeof file === 'string' && fs.statSync(path.join(dir, file)).isFile()) return path.join(dir, file);
  } catch {
    // No usable bin: cli.js is the entry.
  }
  return path.join(dir, 'cli.js');
}

/** The Qwen package a given location names: the folder itself, or the folder of a file in it. */
function packageNamedBy(location) {
  const full = path.resolve(location);
  let dir = full;
  try {
    if (fs.statSync(full).isFile()) dir = path.dirname(fs.realpathSync(full));
  } catch {
    return undefined;
  }
  return qwenPackageAt(dir);
}

/** The target of an npm .cmd shim (cmd-shim writes `"%dp0%\node_modules\…\cli-entry.js"`). */
export function cmdShimTarget(shim) {
  let text;
  try {
    text = fs.readFileSync(shim, 'utf8');
  } catch {
    return undefined;
  }
  const m = /"%~?dp0%?\\([^"]+\.[cm]?js)"/i.exec(text);
  return m ? path.join(path.dirname(shim), ...m[1].split('\\')) : undefined;
}

/**
 * The Qwen package a `qwen` executable leads to: a symlink's (or shim's)
 * target inside the package, or a wrapper script in `<prefix>/bin` next to
 * `<prefix>/lib/node_modules` or a `node_modules` of its own.
 */
export function packageOfExecutable(file) {
  let target = windows && /\.cmd$/i.test(file) ? cmdShimTarget(file) : undefined;
  try {
    target ??= fs.realpathSync(file);
  } catch {
    return undefined;
  }
  let dir = path.dirname(target);
  for (let up = 0; up < 4; up++) {
    const pkg =
      qwenPackageAt(dir) ??
      qwenPackageAt(path.join(dir, 'node_modules', ...QWEN_PACKAGE)) ??
      qwenPackageAt(path.join(dir, 'lib', 'node_modules', ...QWEN_PACKAGE));
    if (pkg) return pkg;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** Every `qwen` executable on `PATH`, in PATH order. */
function qwenExecutablesOnPath(env) {
  const names = windows ? ['qwen.cmd', 'qwen.exe', 'qwen'] : ['qwen'];
  const found = [];
  for (const dir of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        if (fs.statSync(file).isFile()) found.push(file);
      } catch {
        // Not here.
      }
    }
  }
  return found;
}

/**
 * How to run `npm root -g` (`{file, args, options}`) on `platform` for the
 * Node at `execPath`. Never in the working directory, which for an editor is
 * the project being edited: cmd.exe runs an `npm.cmd` it finds in its
 * current folder before any on PATH, so on Windows npm's own CLI is run with
 * this Node and no shell (the Node installer puts npm beside node.exe, in
 * node_modules\npm), and where it is not there, npm.cmd runs in the Node
 * folder. The Node folder is the working directory everywhere: as trusted as
 * Node itself.
 */
export function npmRootCommand({ platform = process.platform, execPath = process.execPath, env = process.env } = {}) {
  const nodeDir = path.dirname(execPath);
  const options = {
    cwd: nodeDir,
    env,
    encoding: 'utf8',
    shell: false,
    timeout: 15_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  };
  if (platform !== 'win32') return { file: 'npm', args: ['root', '-g'], options };
  const npmCli = path.join(nodeDir, 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (fs.existsSync(npmCli)) return { file: execPath, args: [npmCli, 'root', '-g'], options };
  // A .cmd runs only through a shell.
  return { file: 'npm.cmd', args: ['root', '-g'], options: { ...options, shell: true } };
}

/** `npm root -g`, or undefined when npm is missing or fails. */
function npmGlobalRoot(env) {
  const { file, args, options } = npmRootCommand({ env });
  const r = spawnSync(file, args, options);
  const root = r.status === 0 ? r.stdout.trim() : '';
  return root || undefined;
}

/**
 * Finds Qwen Code. `flag` is the `--qwen` value, if any.
 * @returns {{pkg: {dir: string, version: string}, entry: string, how: string, from: string}
 *   | {missing: string}} where it is and how it was found, or one line saying what was searched
 */
export function findQwen({ flag, env = process.env } = {}) {
  const explicit =
    flag !== undefined
      ? { how: '--qwen', from: flag }
      : env.TOOLCALL_STREAM_QWEN_CLI
        ? { how: 'TOOLCALL_STREAM_QWEN_CLI', from: env.TOOLCALL_STREAM_QWEN_CLI }
        : undefined;
  if (explicit) {
    // What the user named wins; another Qwen found elsewhere would hide the mistake.
    const pkg = packageNamedBy(explicit.from);
    if (!pkg)
      return {
        missing: `${explicit.how} ${explicit.from}: no Qwen Code there (a folder with the @qwen-code/qwen-code package.json and cli.js, or a file in it)`,
      };
    return { pkg, entry: qwenEntry(pkg.dir), ...explicit };
  }

  const searched = [];
  const onPath = qwenExecutablesOnPath(env);
  for (const file of onPath) {
    const pkg = packageOfExecutable(file);
    if (pkg) return { pkg, entry: qwenEntry(pkg.dir), how: 'PATH', from: file };
  }
  searched.push(onPath.length ? `qwen on PATH (${onPath.join(', ')}: not Qwen Code's package)` : 'no qwen on PATH');

  const root = npmGlobalRoot(env);
  if (root) {
    const dir = path.join(root, ...QWEN_PACKAGE);
    const pkg = qwenPackageAt(dir);
    if (pkg) return { pkg, entry: qwenEntry(pkg.dir), how: 'npm root -g', from: root };
    searched.push(`not in ${dir}`);
  } else {
    searched.push('npm root -g failed');
  }

  const ownModules = path.dirname(fileURLToPath(new URL('../../', import.meta.url)));
  if (path.basename(ownModules) === 'node_modules') {
    const dir = path.join(ownModules, ...QWEN_PACKAGE);
    const pkg = qwenPackageAt(dir);
    if (pkg) return { pkg, entry: qwenEntry(pkg.dir), how: "toolcall-stream's node_modules", from: ownModules };
    if (path.resolve(ownModules) !== path.resolve(root ?? '')) searched.push(`not in ${dir}`);
  }
  return {
    missing: `Qwen Code not found: no --qwen, no TOOLCALL_STREAM_QWEN_CLI, ${searched.join(', ')}. Install it with \`npm install -g @qwen-code/qwen-code\`, or name it with --qwen <folder>`,
  };
}
