// The published Qwen Code CLI builds (npm `@qwen-code/qwen-code`) that tests and
// benchmarks run, unpacked outside the repository (never committed) in
// `${QWEN_ORACLE_HOME:-~/.cache/qwen-oracle}/<version>/package`, the layout of
// ../shared/oracle/setup.sh. Fetched on first use with `npm pack`, so a clean
// clone with the npm registry reachable (CI) gets them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/**
 * Every published Qwen Code release that carries the tool-call preparing
 * seam: the host tests run each of them, stock and with the preload.
 */
export const QWEN_VERSIONS = [
  '0.21.2',
  '0.21.10',
  '0.23.0',
  '0.23.1',
  '0.23.3',
  '0.23.4',
  '0.24.0',
  '0.24.2',
  '0.24.3',
  '0.24.4',
];

/**
 * The newest release of each code variant of the functions the preload
 * replaces (lib/generated/qwen-known-code.mjs): 0.21.x; 0.23.0–0.23.3, whose
 * Anthropic held calls are released only after a transport error; 0.23.4
 * onward. The end-to-end and benchmark runs cover these.
 */
export const QWEN_VARIANT_RELEASES = ['0.21.10', '0.23.3', '0.24.4'];

export function qwenOracleHome() {
  return process.env.QWEN_ORACLE_HOME || path.join(os.homedir(), '.cache', 'qwen-oracle');
}

/** Where `version` is (or will be) unpacked: the directory holding its package.json and cli.js. */
export function qwenPackageDir(version) {
  return path.join(qwenOracleHome(), version, 'package');
}

const isUnpacked = (dir) => fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'cli.js'));

/**
 * Ensures `@qwen-code/qwen-code@version` is unpacked and returns its package
 * directory. Throws (with npm's message) when it cannot be downloaded.
 * Safe against a concurrent caller: each unpacks into its own directory and
 * renames it into place; the loser's copy is removed.
 */
export function ensureQwenBuild(version) {
  const dir = qwenPackageDir(version);
  if (isUnpacked(dir)) return dir;
  const versionDir = path.dirname(dir);
  fs.mkdirSync(versionDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(versionDir, '.fetch-'));
  try {
    process.stderr.write(`qwen-builds: fetching @qwen-code/qwen-code@${version} into ${versionDir}\n`);
    // npm is a .cmd on Windows, which Node runs only through a shell.
    const windows = process.platform === 'win32';
    const tarball = execFileSync(windows ? 'npm.cmd' : 'npm', ['pack', '-q', `@qwen-code/qwen-code@${version}`], {
      cwd: staging,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: windows,
    })
      .trim()
      .split('\n')
      .pop()
      .trim();
    execFileSync('tar', ['xzf', tarball], { cwd: staging, stdio: ['ignore', 'ignore', 'pipe'] });
    fs.renameSync(path.join(staging, tarball), path.join(versionDir, tarball));
    try {
      fs.renameSync(path.join(staging, 'package'), dir);
    } catch (error) {
      if (!isUnpacked(dir)) throw error;
    }
  } catch (error) {
    const detail = error.stderr ? String(error.stderr).trim().split('\n').slice(-3).join(' ') : error.message;
    throw new Error(`cannot fetch @qwen-code/qwen-code@${version}: ${detail}`, { cause: error });
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    if (fs.readdirSync(versionDir).length === 0) fs.rmdirSync(versionDir);
  }
  if (!isUnpacked(dir)) throw new Error(`@qwen-code/qwen-code@${version}: no cli.js in ${dir}`);
  return dir;
}

/** `{dir}` when the build is available, else `{skip}`: why not, for a test's skip message. */
export function qwenBuildOrSkip(version) {
  try {
    return { dir: ensureQwenBuild(version) };
  } catch (error) {
    return { skip: `Qwen Code ${version} is not available: ${error.message}` };
  }
}
