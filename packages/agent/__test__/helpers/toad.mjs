// Toad (PyPI `batrachian-toad`), a terminal ACP client built with Textual, in
// a virtual environment kept outside the repo, for the end-to-end test that
// drives it headless (__test__/python/toad_driver.py). Created on first use
// with `python -m venv` and pip from the registry, reused when present. Toad
// declares Python 3.14; on Python 3.13 it is installed with
// --ignore-requires-python, and the driver bridges what 3.14 would give it.
// When no such Python, its venv module or the registry is missing, says why.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
