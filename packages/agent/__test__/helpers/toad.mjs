// Toad (PyPI `batrachian-toad`), a terminal ACP client built with Textual, in
// a virtual environment kept outside the repo, for the end-to-end test that
// drives it headless (__test__/python/toad_driver.py). Created on first use
// with `python -m venv` and pip from the registry, reused when present. Toad
// declares Python 3.14; on Python 3.13 it is installed with
// --ignore-requires-python, and the driver bridges what 3.14 would give it.
// When no such Python, its venv module or the registry is missing, says why.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, ensureVenv, run } from './python-venv.mjs';

/** The Toad release the test is pinned to. */
export const TOAD_VERSION = '0.6.20';

/** Pythons that pyenv installed, newest first (pyenv's shims run only the version selected). */
function pyenvPythons() {
  const root = process.env.PYENV_ROOT || path.join(os.homedir(), '.pyenv');
  let versions = [];
  try {
    versions = fs.readdirSync(path.join(root, 'versions')).filter((v) => /^3\.\d+\.\d+$/.test(v));
  } catch {
    return [];
  }
  const key = (v) => v.split('.').map(Number);
  versions.sort((a, b) => key(b)[1] - key(a)[1] || key(b)[2] - key(a)[2]);
  return versions.map((v) => path.join(root, 'versions', v, 'bin', 'python3'));
}

/** The first Python 3.13 or later among $PYTHON, python3.14, python3.13, python3, python and pyenv's, with its minor version. */
function findPython() {
  const candidates = [process.env.PYTHON, 'python3.14', 'python3.13', 'python3', 'python', ...pyenvPythons()];
  for (const candidate of candidates.filter(Boolean)) {
    const r = run(candidate, ['-c', 'import sys; print(sys.version_info[1] if sys.version_info >= (3, 13) else "")']);
    if (r.ok && r.output) return { command: candidate, minor: Number(r.output) };
  }
  return null;
}

/**
 * The venv's interpreter with the pinned Toad, creating the venv if needed.
 * @returns {{python: string} | {skip: string}}
 */
export function ensureToad() {
  const base = findPython();
  if (!base) return { skip: 'no Python 3.13 or later (python3.14, python3.13, python3, python, $PYTHON or pyenv)' };
  return ensureVenv({
    dir: path.join(cacheRoot, 'toolcall-stream', `toad-${TOAD_VERSION}-py3.${base.minor}`),
    base: base.command,
    requirement: `batrachian-toad==${TOAD_VERSION}`,
    pipArgs: base.minor < 14 ? ['--ignore-requires-python'] : [],
  });
}

const DRIVER = fileURLToPath(new URL('../python/toad_driver.py', import.meta.url));

/** A POSIX shell word (Toad starts the agent's command line with the shell). */
export const quote = (arg) => `'${String(arg).replaceAll("'", `'\\''`)}'`;

/**
 * Runs Toad (`python`, from ensureToad) headless through the driver with the
 * agent's `command` on one prompt in `cwd`, its settings, sessions and state
 * in `home`; resolves with its exit code, stderr and the driver's samples.
 */
export async function runToad(python, command, cwd, prompt, home) {
  const child = spawn(python, [DRIVER, command, cwd, prompt], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_STATE_HOME: path.join(home, 'state'),
      ANTHROPIC_API_KEY: 'sk-ant-replay',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // A guard against a hang only (the driver has no timeouts of its own), not a timed assertion.
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? signal)));
  clearTimeout(guard);
  const samples = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { code, stderr, samples };
}
