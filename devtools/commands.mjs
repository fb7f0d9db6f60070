// Running a command from the repository root, and installing the Debian
// packages a tool needs: shared by the cross builds (scripts/build-cross.mjs),
// the emulated test runs (scripts/test-platforms.mjs) and the stop-search
// benchmark under qemu (benchmark/stop-search.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `cmd` with the output shown; throws when it does not exit 0. */
export function run(cmd, args, opts = {}) {
  console.log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** Debian packages (file → package), installed when a file they provide is missing. */
export function ensureDebian(wanted) {
  const missing = Object.entries(wanted).filter(([file]) => !fs.existsSync(file));
  if (!missing.length) return;
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...new Set(missing.map(([, p]) => p))], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}
