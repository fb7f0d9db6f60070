// Builds the addon (`npm run build`) when no native binary loads, and does
// nothing when one does. The package builds nothing at install time (a
// published napi-rs package ships its binaries in per-platform packages, as
// napi-rs/package-template does, so `npm install` runs no build script); a
// fresh clone therefore has no binary until something builds it, and
// `npm run demo` runs this first so the README's `npm install && npm run demo`
// holds.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { checkAvailable } = require('../lib/available.js');

const status = checkAvailable();
if (!status.available) {
  process.stderr.write('build-if-missing: no native binary loads here: running `npm run build`\n');
  // Under npm, npm_execpath is the npm that runs this script; elsewhere the npm on PATH
  // (a .cmd on Windows, which Node runs only through a shell).
  const npmCli = process.env.npm_execpath;
  const windows = process.platform === 'win32';
  const r = npmCli
    ? spawnSync(process.execPath, [npmCli, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync(windows ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: windows });
  process.exitCode = r.status ?? 1;
}
