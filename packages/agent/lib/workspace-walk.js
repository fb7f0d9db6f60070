'use strict';
// Reaching a resolved location inside the workspace at the moment of use.
// workspace.js decides, at check time, the real location a tool path leads
// to (no links in it). Before a read, a listing or a write, that location is
// walked again from an open descriptor of the workspace root, one component
// at a time, each opened with O_NOFOLLOW | O_DIRECTORY relative to the
// directory before it, and the file is opened in the last directory held.
// A component that became a link, stopped being a folder or vanished fails
// the walk: nothing is read, listed or written.
//
// Node has no openat(2). On Linux, `/proc/self/fd/<fd>/<name>` gives its
// exact semantics: the kernel follows the magic link `<fd>` to the directory
// that descriptor holds (proc(5), /proc/pid/fd), not to any path, and looks
// up `<name>` there. That this holds is checked on every walk: the magic link
// must stat to the root descriptor's own dev/ino. Where it does not (macOS,
// Windows, a Linux without /proc), the walk falls back to absolute paths:
// every component is lstat'ed as a real folder, the file is opened with
// O_NOFOLLOW, and the opened descriptor's dev/ino must match what the path
// holds when checked again right after the open, before a byte moves.
// docs/reference.md ("What the agent's file tools can touch") says what
// each way guarantees.
const fs = require('node:fs/promises');
const { constants } = require('node:fs');
const path = require('node:path');

const { ToolError } = require('./workspace.js');

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | NOFOLLOW;

const magic = (handle) => `/proc/self/fd/${handle.fd}`;

/** The refusal for a component that is no longer what the check saw. */
const changed = (shown, component) =>
  new ToolError(
    `Refused: "${shown}" changed after it was checked: "${component}" is now a symbolic link or no longer a folder. Nothing was read or written.`,
  );

const notFound = (shown) => Object.assign(new ToolError(`File not found: ${shown}`), { code: 'ENOENT' });

/** Same dev/ino: the same file. */
const sameFile = (a, b) => a.dev === b.dev && a.ino === b.ino;

/**
 * Runs `use(dir)` with the folder `parts` below `root` reached at this
 * moment, creating missing folders when `create` is set (a write). `dir`:
 * {path(name): the path that opens `name` inside that folder, listPath: the
 * path that lists it, verify(stat, name?): resolves when the descriptor whose
 * fstat is `stat` is `name` in that folder (or the folder itself), throws
 * otherwise; checkFolder(): throws unless the folder is still there}.
 * `shown` is the tool path, for messages.
 */
async function inFolder(root, parts, shown, { create = false } = {}, use) {
  // Elsewhere a folder may not even open as a file (Windows).
  if (process.platform !== 'linux') return byPath(root, parts, shown, create, use);
  const held = [];
  try {
    const rootHandle = await fs.open(root, DIR_FLAGS).catch(() => {
      throw new ToolError(`Refused: the working directory ${root} is no longer a folder.`);
    });
    held.push(rootHandle);
    const rootStat = await rootHandle.stat();
    const viaProc = await fs.stat(magic(rootHandle)).catch(() => null);
    if (!viaProc || !sameFile(viaProc, rootStat)) return await byPath(root, parts, shown, create, use);
    let dir = rootHandle;
    for (let i = 0; i < parts.length; i++) {
      const at = `${magic(dir)}/${parts[i]}`;
      const component = parts.slice(0, i + 1).join('/');
      let next = await openFolder(at, shown, component);
      if (!next && create) {
        await fs.mkdir(at).catch((err) => {
          if (err.code !== 'EEXIST') throw err;
        });
        next = await openFolder(at, shown, component);
      }
      if (!next) throw notFound(shown);
      held.push(next);
      dir = next;
    }
    const folder = dir;
    return await use({
      path: (name) => `${magic(folder)}/${name}`,
      listPath: magic(folder),
      // The walk itself is the check: every step was relative to a held folder.
      verify: async () => {},
      checkFolder: async () => {},
    });
  } finally {
    for (const handle of held.reverse()) await handle.close().catch(() => {});
  }
}

/** A folder opened without following a link, or null when it does not exist. */
async function openFolder(at, shown, component) {
  try {
    return await fs.open(at, DIR_FLAGS);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    if (err.code === 'ELOOP' || err.code === 'ENOTDIR') throw changed(shown, component);
    throw err;
  }
}

/**
 * The fallback without /proc/self/fd: each folder is lstat'ed as a real
 * folder (created when missing and `create`), its dev/ino kept; verify()
 * checks the chain again and compares the opened descriptor with what the
 * path holds now.
 */
async function byPath(root, parts, shown, create, use) {
  const walk = async (making) => {
    const seen = [];
    let abs = root;
    for (const [i, name] of ['', ...parts].entries()) {
      abs = name === '' ? root : path.join(abs, name);
      const component = parts.slice(0, i).join('/') || '.';
      let stat = await fs.lstat(abs).catch((err) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      if (!stat && making) {
        await fs.mkdir(abs).catch((err) => {
          if (err.code !== 'EEXIST') throw err;
        });
        stat = await fs.lstat(abs);
      }
      if (!stat) throw notFound(shown);
      if (!stat.isDirectory()) throw changed(shown, component);
      seen.push(stat);
    }
    return { abs, seen };
  };
  const first = await walk(create);
  const again = async () => {
    const now = await walk(false);
    if (!now.seen.every((s, i) => sameFile(s, first.seen[i]))) throw changed(shown, parts.join('/') || '.');
  };
  return use({
    path: (name) => path.join(first.abs, name),
    listPath: first.abs,
    verify: async (stat, name) => {
      await again();
      const now = await fs.lstat(path.join(first.abs, name)).catch(() => null);
      if (!now || !sameFile(now, stat)) throw changed(shown, [...parts, name].join('/'));
    },
    checkFolder: again,
  });
}

module.exports = { inFolder };
