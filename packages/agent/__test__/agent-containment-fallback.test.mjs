// The file tools' walk without /proc/self/fd (workspace-walk.js's fallback,
// the only walk on macOS and Windows), exercised on this Linux machine: the
// swap tests and the containment property run again in a private mount
// namespace whose /proc is an empty tmpfs, so every walk there goes by path.
// Needs unshare(1) and the right to mount (root); skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const FILES = [here('agent-containment-swap.test.mjs'), here('agent-containment-property.test.mjs')];

/** Runs `script` as root in a fresh mount namespace with /proc hidden; null when that is not possible here. */
function withoutProc(script) {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const probe = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs none /proc'], {
    encoding: 'utf8',
  });
  if (probe.error || probe.status !== 0) return null;
  // Without NODE_TEST_CONTEXT, which makes an inner `node --test` report to this runner instead of to its stdout.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnSync(
    'unshare',
    ['-m', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs none /proc && ${script}`],
    {
      encoding: 'utf8',
      env,
      maxBuffer: 64 << 20,
    },
  );
}

const available = withoutProc('test ! -e /proc/self/fd');

test(
  'without /proc/self/fd the walk goes by path, and the swap tests and the containment property still hold',
  { skip: available?.status !== 0 && 'needs unshare(1) and root to hide /proc in a private mount namespace' },
  () => {
    const quoted = FILES.map((f) => `'${f.replaceAll("'", "'\\''")}'`).join(' ');
    const run = withoutProc(`'${process.execPath}' --test ${quoted}`);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    // The kernel-agreement property reads /proc/self/fd, so it skips there; the rest ran and passed.
    assert.match(run.stdout, /^# pass 8$/m);
    assert.match(run.stdout, /^# skipped 1$/m);
  },
);
