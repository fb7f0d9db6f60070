// The decision inspect.mjs makes for one bundle, kept between runs: reading
// the bundle's code takes about a second, and Qwen starts often. An entry is
// used only by the same version of this package with the same table of
// known code (which the decision reflects) for the same bundle: the same
// path, the same size and modification time of its package.json and cli.js,
// the same names in its chunks folder, and the same content of every chunk
// whose code the decision read (the files its fingerprints were taken from,
// which hold the hook points). Anything else is a miss. The cache is an
// optimisation only: a corrupt, unreadable or unwritable cache is ignored.
//
// Those chunks are keyed by a hash of their content, not by their size and
// time: npm unpacks every file of a package with the tarball's fixed time
// (1985-10-26), as do `tar` and `cp -p` with theirs, so an edit made that way
// keeps the time, and one that keeps the size would keep the decision too.
// Hashing them costs about 2 ms a start (some 1.6 MB in 0.24.4: 9 of its 598
// chunks); every other chunk is only searched for its export list, and a
// chunk added, removed or renamed changes the folder's names.
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

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

function cacheFile(packageDir) {
  return path.join(cacheDir(), `qwen-${sha256(packageDir).slice(0, 16)}.json`);
}

/** The sorted names in the bundle's chunks folder, hashed; null when it has none. */
function chunkNames(packageDir) {
  try {
    return sha256(fs.readdirSync(path.join(packageDir, 'chunks')).sort().join('\n'));
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * What identifies this bundle and this package's reading of it. `codeFiles`
 * are the chunks whose code the decision read.
 */
function identity(packageDir, knownCode, codeFiles) {
  const stamp = (name) => {
    const s = fs.statSync(path.join(packageDir, name));
    return [s.size, s.mtimeMs];
  };
  return {
    toolcallStream: OWN_VERSION,
    knownCode,
    packageDir,
    files: [stamp('package.json'), stamp('cli.js')],
    chunks: chunkNames(packageDir),
    code: codeFiles.map((file) => [file, sha256(fs.readFileSync(file))]),
  };
}

/**
 * The decision cached for this bundle, or undefined. `knownCode` names the
 * table of known code the decision was made with (a hash).
 */
export function readCache(packageDir, knownCode) {
  try {
    const entry = JSON.parse(fs.readFileSync(cacheFile(packageDir), 'utf8'));
    const code = entry?.identity?.code;
    if (!Array.isArray(code) || !code.every((c) => Array.isArray(c) && typeof c[0] === 'string')) return undefined;
    const now = identity(
      packageDir,
      knownCode,
      code.map(([file]) => file),
    );
    if (JSON.stringify(entry.identity) !== JSON.stringify(now)) return undefined;
    const d = entry.decision;
    if (typeof d?.hookPoints !== 'object' || typeof d.anthropic !== 'object' || typeof d.openai !== 'object')
      return undefined;
    if (!Object.values(d.hookPoints).every((f) => typeof f === 'string' && fs.existsSync(f))) return undefined;
    return d;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `decision` for this bundle, keyed as above; `codeFiles` are the
 * chunks whose code it read. A failure to write is ignored.
 */
export function writeCache(packageDir, knownCode, decision, codeFiles) {
  const file = cacheFile(packageDir);
  try {
    const entry = { identity: identity(packageDir, knownCode, [...new Set(codeFiles)].sort()), decision };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written aside and renamed, so a concurrent reader never sees half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(entry));
    fs.renameSync(tmp, file);
  } catch {
    // A read-only home: inspect again next time.
  }
}
