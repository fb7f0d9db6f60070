// The official Python ACP SDK (PyPI `agent-client-protocol`) in a virtual
// environment kept outside the repo, for the end-to-end test with a client by
// other authors (__test__/python/acp_client.py). Created on first use with
// `python3 -m venv` and pip from the registry, reused when present. When
// Python 3, its venv module or the registry is missing, says why instead.
import path from 'node:path';
import { cacheRoot, ensureVenv, run } from './python-venv.mjs';

/** The SDK release the test is pinned to. */
export const PYTHON_ACP_VERSION = '0.12.1';

export const PYTHON_ACP_ENV = path.join(cacheRoot, 'toolcall-stream', `python-acp-${PYTHON_ACP_VERSION}`);

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
  const base = findPython();
  if (!base) return { skip: 'no Python 3.9 or later on PATH (python3, python or $PYTHON)' };
  return ensureVenv({ dir: PYTHON_ACP_ENV, base, requirement: `agent-client-protocol==${PYTHON_ACP_VERSION}` });
}
