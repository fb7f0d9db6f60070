// The decision inspect.mjs makes for one bundle, kept between runs: reading
// the bundle's code takes about a second, and Qwen starts often. An entry is
// used only by the same version of this package with the same table of
// known code (which the decision reflects) for the same bundle, identified
// by its path and by the size and modification time of its package.json,
// cli.js and chunks folder; anything else is a miss. The cache is an optimisation only: a
// corrupt, unreadable or unwritable cache is ignored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const OWN_VERSION = require('../../package.json').version;

export function cacheDir() {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'toolcall-stream');
}

function cacheFile(packageDir) {
  return path.join(cacheDir(), `qwen-${createHash('sha256').update(packageDir).digest('hex').slice(0, 16)}.json`);
}

/** What identifies this bundle and this package's reading of it. */
function identity(packageDir, knownCode) {
  const stamp = (name) => {
    const s = fs.statSync(path.join(packageDir, name));
    return [s.size, s.mtimeMs];
  };
  return {
    toolcallStream: OWN_VERSION,
    knownCode,
    packageDir,
    files: [stamp('package.json'), stamp('cli.js'), stamp('chunks')],
  };
}

/**
 * The decision cached for this bundle, or undefined. `knownCode` names the
 * table of known code the decision was made with (a hash).
 */
export function readCache(packageDir, knownCode) {
  try {
    const entry = JSON.parse(fs.readFileSync(cacheFile(packageDir), 'utf8'));
    if (JSON.stringify(entry.identity) !== JSON.stringify(identity(packageDir, knownCode))) return undefined;
    const d = entry.decision;
    if (typeof d?.hookPoints !== 'object' || typeof d.anthropic !== 'object' || typeof d.openai !== 'object')
      return undefined;
    if (!Object.values(d.hookPoints).every((f) => typeof f === 'string' && fs.existsSync(f))) return undefined;
    return d;
  } catch {
    return undefined;
  }
}

/** Keeps `decision` for this bundle; a failure to write is ignored. */
export function writeCache(packageDir, knownCode, decision) {
  const file = cacheFile(packageDir);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written aside and renamed, so a concurrent reader never sees half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ identity: identity(packageDir, knownCode), decision }));
    fs.renameSync(tmp, file);
  } catch {
    // A read-only home: inspect again next time.
  }
}
