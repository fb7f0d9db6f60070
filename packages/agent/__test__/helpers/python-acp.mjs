// The official Python ACP SDK (PyPI `agent-client-protocol`) in a virtual
// environment kept outside the repo, for the end-to-end test with a client by
// other authors (__test__/python/acp_client.py). Created on first use with
// `python3 -m venv` and pip from the registry, reused when present. When
// Python 3, its venv module or the registry is missing, says why instead.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The SDK release the test is pinned to. */
export const PYTHON_ACP_VERSION = '0.12.1';

const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
export const PYTHON_ACP_ENV = path.join(cacheRoot, 'toolcall-stream', `python-acp-${PYTHON_ACP_VERSION}`);

const venvPython = (dir) =>
  process.platform === 'win32' ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');
/** Written last: an environment without it is a failed or interrupted setup. */
const READY = 'toolcall-stream-ready';

function run(command, args) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000 });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  return { ok: r.status === 0, error: r.error, output };
}

const tail = (text) => text.split('\n').slice(-3).join(' | ');

/** The base interpreter: $PYTHON, else python3 (python on Windows), if it is Python 3.9 or later. */
function findPython() {
  for (const candidate of [process.env.PYTHON, 'python3', 'python'].filter(Boolean)) {
    const r = run(candidate, ['-c', 'import sys; print(sys.version_info >= (3, 9))']);
    if (r.ok && r.output === 'True') return candidate;
  }
  return null;
}

/**
 * The venv's interpreter with the pinned SDK, creating the venv if needed.
 * @returns {{python: string} | {skip: string}}
 */
export function ensurePythonAcp() {
  if (fs.existsSync(path.join(PYTHON_ACP_ENV, READY))) return { python: venvPython(PYTHON_ACP_ENV) };
  const base = findPython();
  if (!base) return { skip: 'no Python 3.9 or later on PATH (python3, python or $PYTHON)' };
  // Built beside its final place and renamed into it, so a concurrent or
  // interrupted run never sees a half-installed environment.
  const building = `${PYTHON_ACP_ENV}.${process.pid}.tmp`;
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
      `agent-client-protocol==${PYTHON_ACP_VERSION}`,
    ]);
    if (!pip.ok)
      return {
        skip: `pip could not install agent-client-protocol==${PYTHON_ACP_VERSION} (no registry?): ${tail(pip.output || String(pip.error))}`,
      };
    fs.writeFileSync(path.join(building, READY), `agent-client-protocol==${PYTHON_ACP_VERSION}\n`);
    fs.rmSync(PYTHON_ACP_ENV, { recursive: true, force: true });
    try {
      fs.renameSync(building, PYTHON_ACP_ENV);
    } catch (err) {
      // Another run finished first: use its environment.
      if (!fs.existsSync(path.join(PYTHON_ACP_ENV, READY))) throw err;
    }
    return { python: venvPython(PYTHON_ACP_ENV) };
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
}
