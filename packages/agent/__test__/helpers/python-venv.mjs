// A Python virtual environment with pinned packages, kept outside the repo
// for the end-to-end tests with clients by other authors (python-acp.mjs,
// toad.mjs). Created on first use with `python -m venv` and pip from the
// registry, reused when present; when the venv module or the registry is
// missing, says why instead.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the environments are kept. */
export const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');

/** A venv's interpreter. */
export const venvPython = (dir) =>
  process.platform === 'win32' ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');

/** Written last: an environment without it is a failed or interrupted setup. */
const READY = 'toolcall-stream-ready';

/** Runs a command to its end: whether it succeeded, and what it printed. */
export function run(command, args) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000 });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  return { ok: r.status === 0, error: r.error, output };
}

const tail = (text) => text.split('\n').slice(-3).join(' | ');

/**
 * The interpreter of the venv `dir`, made with `base` and `pip install
 * ...pipArgs requirement` if it is not there yet.
 * @returns {{python: string} | {skip: string}}
 */
export function ensureVenv({ dir, base, requirement, pipArgs = [] }) {
  if (fs.existsSync(path.join(dir, READY))) return { python: venvPython(dir) };
  // Built beside its final place and renamed into it, so a concurrent or
  // interrupted run never sees a half-installed environment.
  const building = `${dir}.${process.pid}.tmp`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(building), { recursive: true });
  try {
    const venv = run(base, ['-m', 'venv', building]);
    if (!venv.ok) return { skip: `${base} -m venv failed: ${tail(venv.output || String(venv.error))}` };
    const pip = run(venvPython(building), [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      ...pipArgs,
      requirement,
    ]);
    if (!pip.ok) {
      return { skip: `pip could not install ${requirement} (no registry?): ${tail(pip.output || String(pip.error))}` };
    }
    fs.writeFileSync(path.join(building, READY), `${requirement}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(building, dir);
    } catch (err) {
      // Another run finished first: use its environment.
      if (!fs.existsSync(path.join(dir, READY))) throw err;
    }
    return { python: venvPython(dir) };
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
}
