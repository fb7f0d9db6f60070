// ACP clients from npm that are not dependencies of this package, installed
// on first use into a cache outside the repo (`npm install --prefix`) and
// reused: @zed-industries/agent-client-protocol (an older SDK) and the acpx
// CLI. When npm or the registry is missing, says why instead.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');

/**
 * `name@version` in `~/.cache/toolcall-stream/<dir>`, installed if `file`
 * (a path inside the package) is missing.
 * @returns {{path: string} | {skip: string}} the absolute path of `file`, or why it is unavailable.
 */
export function ensureNpmPackage(name, version, file, dir) {
  const prefix = path.join(cacheRoot, 'toolcall-stream', dir);
  const target = path.join(prefix, 'node_modules', ...name.split('/'), file);
  if (fs.existsSync(target)) return { path: target };
  fs.mkdirSync(prefix, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts', `${name}@${version}`],
    {
      encoding: 'utf8',
      timeout: 300_000,
      shell: process.platform === 'win32',
    },
  );
  if (r.status === 0 && fs.existsSync(target)) return { path: target };
  const why = `${r.stderr ?? ''}${r.error ?? ''}`.trim().split('\n').slice(-2).join(' | ');
  return { skip: `npm could not install ${name}@${version} (no npm or no registry?): ${why}` };
}
