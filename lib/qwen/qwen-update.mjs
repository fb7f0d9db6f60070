// Qwen Code updates an npm install of itself into its home folder
// (~/.qwen/updates/npm/<entry hash>/versions/<version>), and its bin entry,
// cli-entry.js, then runs that release's cli.js instead of its own
// (getManagedNpmInstallation in cli-entry.js; the update is written by
// managed-npm-update in packages/cli). The preload decides on whichever
// cli.js runs; `--check` reads the same pointer, so it reports on the
// release a start would run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { qwenPackageAt } from './package.mjs';

const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** Qwen's home folder as cli-entry.js resolves it (QWEN_HOME, `~` expanded, else ~/.qwen). */
function qwenHome(env) {
  const home = env.HOME || os.homedir();
  const configured = env.QWEN_HOME;
  if (!configured) return path.join(home, '.qwen');
  if (configured === '~') return home;
  if (configured.startsWith('~/') || configured.startsWith('~\\'))
    return path.join(
      home,
      ...configured
        .slice(2)
        .split(/[/\\]+/)
        .filter(Boolean),
    );
  return path.resolve(configured);
}

/**
 * The Qwen Code package (`{dir, version}`) that the bin entry `entry` of
 * `pkg` runs instead of its own cli.js, or undefined when it runs its own.
 * Mirrors cli-entry.js: the update applies only while the entry is the one
 * it was made for (same path, same ctime) and the base release is unchanged.
 */
export function activeUpdateOf(pkg, entry, env = process.env) {
  try {
    const bootstrap = fs.realpathSync(entry);
    let version;
    let updateRoot = path.join(qwenHome(env), 'updates', 'npm');
    // A Qwen started from inside a Qwen session is pinned to that session's release.
    if (env.QWEN_CODE_MANAGED_NPM_PIN) {
      const pin = JSON.parse(env.QWEN_CODE_MANAGED_NPM_PIN);
      if (pin.bootstrap === bootstrap && typeof pin.updateRoot === 'string') {
        if (pin.version === null) return undefined;
        version = pin.version;
        updateRoot = pin.updateRoot;
      }
    }
    const launcherRoot = path.join(updateRoot, createHash('sha256').update(bootstrap).digest('hex').slice(0, 16));
    if (version === undefined) {
      const active = JSON.parse(fs.readFileSync(path.join(launcherRoot, 'active.json'), 'utf8'));
      if (
        typeof active.version !== 'string' ||
        typeof active.bootstrap !== 'string' ||
        fs.realpathSync(active.bootstrap) !== bootstrap ||
        active.baseVersion !== pkg.version ||
        active.bootstrapCtimeMs !== fs.statSync(bootstrap).ctimeMs
      )
        return undefined;
      version = active.version;
    }
    if (typeof version !== 'string' || !VERSION.test(version)) return undefined;
    const update = qwenPackageAt(
      path.join(launcherRoot, 'versions', version, 'node_modules', '@qwen-code', 'qwen-code'),
    );
    return update?.version === version ? update : undefined;
  } catch {
    return undefined;
  }
}
