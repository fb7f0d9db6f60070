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
//
// An entry is data, never a list of modules: the preload imports the hook
// points it names, so a hook point is taken from an entry only when it is a
// file inside the Qwen package (by real path) whose content the entry's own
// hashes cover, hashed again as the entry is read (and hook-points.mjs
// checks the real path and the hash again as it imports). Whoever can write the cache can then
// make the preload import nothing but Qwen's own code. The folder is the
// user's alone besides: created 0700, refused when it is a link, someone
// else's, or writable by its group or others (XDG Base Directory
// Specification: a relative XDG_CACHE_HOME is ignored); an entry is written
// without following links, and read without following them only when the
// open file is the user's own and writable by no one else.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const OWN_VERSION = require('../../package.json').version;

// Windows has no POSIX owner and mode bits to check (fs.Stats reports uid 0
// and a mode made up from the read-only flag), nor O_NOFOLLOW: there the
// folder's access is the user profile's ACL.
const posix = process.platform !== 'win32';
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** A cache entry is a few kilobytes; anything far larger is not one. */
const MAX_ENTRY_BYTES = 1 << 20;

/** The cache folder: `$XDG_CACHE_HOME/toolcall-stream` when that is absolute, else `~/.cache/toolcall-stream`. */
export function cacheDir(env = process.env) {
  const xdg = env.XDG_CACHE_HOME;
  // A relative value would put the cache in whatever folder Qwen starts in:
  // the project an editor opens, whose contents are anyone's.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'toolcall-stream');
}

/** Whether `stats` is the user's own and writable by no one else (always, where POSIX modes do not apply). */
const ownAndPrivate = (stats) => !posix || (stats.uid === process.getuid() && (stats.mode & 0o022) === 0);

/**
 * What the launcher makes of the cache folder, without creating it:
 * `{dir, used, why}`. A link, a folder of someone else's or writable by
 * others is not used at all (`why` says which), since whoever can write it
 * chooses what is read from it; `toolcall-stream-qwen --check` reports it.
 */
export function cacheFolderStatus() {
  const dir = cacheDir();
  let stats;
  try {
    stats = fs.lstatSync(dir);
  } catch (err) {
    if (err.code === 'ENOENT')
      return { dir, used: true, why: 'not there yet: the first start creates it, private (0700)' };
    return { dir, used: false, why: `it cannot be read (${err.code})` };
  }
  if (stats.isSymbolicLink()) return { dir, used: false, why: 'it is a link' };
  if (!stats.isDirectory()) return { dir, used: false, why: 'it is not a folder' };
  if (posix && stats.uid !== process.getuid()) return { dir, used: false, why: "it is someone else's" };
  if (posix && stats.mode & 0o002) return { dir, used: false, why: 'others can write it' };
  if (posix && stats.mode & 0o020) return { dir, used: false, why: 'its group can write it' };
  return { dir, used: true };
}

/** The cache folder when it is the user's own (created 0700 when `create`), or undefined (cacheFolderStatus says why). */
function ownCacheDir({ create }) {
  if (create) fs.mkdirSync(cacheDir(), { recursive: true, mode: 0o700 });
  const status = cacheFolderStatus();
  return status.used && fs.existsSync(status.dir) ? status.dir : undefined;
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

const entryName = (packageDir) => `qwen-${sha256(packageDir).slice(0, 16)}.json`;

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

/** Whether `file` is a plain file inside the folder whose real path is `realDir`, by its own real path. */
function insidePackage(realDir, file) {
  if (typeof file !== 'string' || !path.isAbsolute(file)) return false;
  let real;
  try {
    real = fs.realpathSync(file);
    if (!fs.statSync(real).isFile()) return false;
  } catch {
    return false;
  }
  // The very path hashed is the one imported: no link on the way.
  if (real !== file) return false;
  const rel = path.relative(realDir, real);
  return rel !== '' && !path.isAbsolute(rel) && rel.split(path.sep)[0] !== '..';
}

/** The text of the entry `name` in `dir`, read without following a link; undefined when it is not the user's own file. */
function readEntry(dir, name) {
  const fd = fs.openSync(path.join(dir, name), fs.constants.O_RDONLY | NOFOLLOW);
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile() || !ownAndPrivate(stats) || stats.size > MAX_ENTRY_BYTES) return undefined;
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The decision cached for this bundle, or undefined. `knownCode` names the
 * table of known code the decision was made with (a hash).
 */
export function readCache(packageDir, knownCode) {
  try {
    const dir = ownCacheDir({ create: false });
    if (!dir) return undefined;
    const text = readEntry(dir, entryName(packageDir));
    if (text === undefined) return undefined;
    const entry = JSON.parse(text);
    const code = entry?.identity?.code;
    if (!Array.isArray(code) || !code.every((c) => Array.isArray(c) && typeof c[0] === 'string')) return undefined;
    // Only files of the package are read to be hashed: not a device, a pipe
    // or another user's file that an entry names.
    const realDir = fs.realpathSync(packageDir);
    if (!code.every(([file]) => insidePackage(realDir, file))) return undefined;
    const now = identity(
      packageDir,
      knownCode,
      code.map(([file]) => file),
    );
    if (JSON.stringify(entry.identity) !== JSON.stringify(now)) return undefined;
    const d = entry.decision;
    if (
      typeof d?.hookPoints !== 'object' ||
      typeof d.anthropic !== 'object' ||
      typeof d.openai !== 'object' ||
      typeof d.openaiResponses !== 'object'
    )
      return undefined;
    // Each hook point one of the files just hashed: Qwen's own code, as the
    // decision read it. Their hashes go with the decision, for the import to
    // check again (hook-points.mjs).
    const hashed = new Map(code);
    const hooks = Object.values(d.hookPoints);
    if (!hooks.every((f) => hashed.has(f))) return undefined;
    return { ...d, hookHashes: Object.fromEntries(hooks.map((f) => [f, hashed.get(f)])) };
  } catch {
    return undefined;
  }
}

/**
 * Keeps `decision` for this bundle, keyed as above; `codeFiles` are the
 * chunks whose code it read. A failure to write is ignored.
 */
export function writeCache(packageDir, knownCode, decision, codeFiles) {
  let tmp;
  let created = false;
  try {
    const dir = ownCacheDir({ create: true });
    if (!dir) return;
    const entry = { identity: identity(packageDir, knownCode, [...new Set(codeFiles)].sort()), decision };
    const file = path.join(dir, entryName(packageDir));
    // Written aside and renamed, so a concurrent reader never sees half a
    // file. The name aside is unpredictable and created new (O_EXCL: an
    // existing file or link there is an error, never followed), and rename
    // replaces a link at the entry's name rather than writing through it.
    tmp = `${file}.${randomBytes(16).toString('hex')}.tmp`;
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, 0o600);
    created = true;
    try {
      fs.writeFileSync(fd, JSON.stringify(entry));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch {
    // A read-only home: inspect again next time.
    if (created) removeQuietly(tmp);
  }
}

function removeQuietly(file) {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Left behind: a later write uses another name.
  }
}
