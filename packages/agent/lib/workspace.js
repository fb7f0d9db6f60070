'use strict';
// Where a tool path leads, decided the way the kernel decides it, at check
// time. A tool path is walked component by component as Linux's path walk
// does (fs/namei.c, link_path_walk): every symbolic link is followed, the last
// component included, at most 40 of them (MAXSYMLINKS); `..` goes to the
// parent of the directory actually reached, never of the text before it; a
// component that does not exist ends the walk (ENOENT), and one that is not a
// directory cannot be walked through (ENOTDIR). A write may create what is
// missing, but below the first missing component only plain names: nothing
// missing can be a link, and `..` there has no directory to climb from.
//
// The result is the real location (no links left in it) relative to the
// session's working directory, or a ToolError saying why not. That real
// location is what the permission prompt shows and what workspace-walk.js
// opens at the moment of use, one component at a time, so nothing decided
// here has to stay true until then.
//
// What this guarantees, and what it does not, is stated in docs/reference.md
// ("What the agent's file tools can touch").
const fs = require('node:fs/promises');
const path = require('node:path');

/** A tool failure whose message goes to the model and to the card as it is. */
class ToolError extends Error {}

/** Linux's MAXSYMLINKS: the 41st link followed in one walk is ELOOP. */
const MAX_LINK_HOPS = 40;

/**
 * A path's components, as the kernel reads them. A trailing separator (or a
 * last `.`/`..`) asks for a directory: it becomes a final `.`.
 */
function components(p) {
  const parts = p.split(process.platform === 'win32' ? /[\\/]+/ : '/');
  const names = parts.filter(Boolean);
  if (parts.at(-1) === '' && names.length > 0) names.push('.');
  return names;
}

/** True when `target` is `root` or lies below it (both absolute, normalised). */
function isInside(root, target) {
  const rel = path.relative(root, target);
  return !(rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel));
}

/** Why a walk stopped: the kernel's error (CREATE: a write's `.`/`..` below a missing folder, with its detail). */
class WalkStop extends Error {
  constructor(code, detail) {
    super(code);
    this.code = code;
    this.detail = detail;
  }
}

/**
 * Resolves `p` for `intent` ('read', 'list' or 'write') against `root` (the
 * session's realpath'd cwd). Returns {root, abs, parts, stat}: `abs` is the
 * real location, `parts` its components below `root`, `stat` the lstat of
 * what is at `abs` (null when a write creates it). Throws a ToolError when
 * the kernel would put `p` outside `root` or fail on it.
 */
async function resolveInside(root, p, intent = 'read') {
  if (typeof p !== 'string' || p === '') throw new ToolError('Missing required parameter "path".');
  if (p.includes('\0')) throw new ToolError(`Refused: "${p.replaceAll('\0', '\\0')}" contains a NUL character.`);
  let walk;
  try {
    walk = await kernelWalk(root, p, intent);
  } catch (err) {
    if (!(err instanceof WalkStop)) throw err;
    throw refusal(root, p, intent, err, err.outside);
  }
  const { at, stat } = walk;
  if (!isInside(root, at)) throw refusal(root, p, intent, null, walk.exit);
  const parts = components(path.relative(root, at)).filter((n) => n !== '.');
  return { root, abs: at, parts, stat };
}

/** The ToolError for a walk that failed (`stop`) or ended outside (`exit`: how it left). */
function refusal(root, p, intent, stop, exit) {
  if (exit) {
    const through = exit.link === null ? 'is outside' : `leads outside`;
    const link = exit.link === null ? '' : ` through the symbolic link "${exit.link}"`;
    return new ToolError(
      `Refused: "${p}" ${through} the session's working directory (${root})${link}. Only paths inside it can be read, listed or written.`,
    );
  }
  switch (stop.code) {
    case 'ELOOP':
      return new ToolError(`Refused: "${p}" has too many levels of symbolic links.`);
    case 'ENOTDIR':
      return new ToolError(`Not a directory: a parent of "${p}" is not a directory.`);
    case 'EISDIR':
      return new ToolError(`Not a regular file: ${p}`);
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`Permission denied: ${p}`);
    case 'CREATE': {
      const { missing, name, link } = stop.detail;
      const via = link === null ? '' : ` (the symbolic link "${link}" leads there)`;
      return new ToolError(
        `Refused: "${p}" cannot be created: "${missing}" does not exist, and "${name}" follows it${via}. Below a missing folder only plain names can be created.`,
      );
    }
    default:
      if (intent === 'list') return new ToolError(`Directory not found: ${p}`);
      return Object.assign(new ToolError(`File not found: ${p}`), { code: 'ENOENT' });
  }
}

/**
 * The kernel's walk of `p` from `root`. Returns {at, stat, exit}: where it
 * ends, that place's lstat (null when a write creates it), and how the walk
 * left `root` when `at` is outside. Throws a WalkStop where the kernel fails; its
 * `outside` is set when the walk was outside `root` at that moment, so a
 * failure out there reads as "leads outside", revealing nothing more.
 */
async function kernelWalk(root, p, intent) {
  // Each pending component carries the link whose target it came from (its
  // path below root, as the user can find it), null for the tool path's own.
  const pending = components(p).map((name) => ({ name, link: null }));
  let at = path.isAbsolute(p) ? path.parse(path.resolve(p)).root : root;
  let atDir = true;
  let stat = null;
  let hops = 0;
  // An absolute tool path starts outside, at the filesystem root.
  let exit = isInside(root, at) ? null : { link: null };
  let firstMissing = null;
  const move = (next, via) => {
    const wasInside = isInside(root, at);
    at = next;
    if (wasInside && !isInside(root, at)) exit = { link: via };
    if (isInside(root, at)) exit = null;
  };
  const stop = (code, detail = null) =>
    Object.assign(new WalkStop(code, detail), { outside: !isInside(root, at) && exit });
  // The kernel's own error for a step that fails while it is looked at.
  const look = (call) =>
    call.catch((err) => {
      throw stop(err.code ?? 'ENOENT');
    });
  while (pending.length > 0) {
    const { name, link } = pending.shift();
    const last = pending.length === 0;
    if (firstMissing !== null) {
      // Below a missing component: only names to create.
      if (intent !== 'write') throw stop('ENOENT');
      if (name === '.' || name === '..') throw stop('CREATE', { missing: firstMissing, name, link });
      at = path.join(at, name);
      continue;
    }
    if (!atDir) throw stop('ENOTDIR');
    if (name === '.' || name === '..') {
      if (name === '..') move(path.dirname(at), link);
      stat = await look(fs.lstat(at));
      if (last && intent === 'write') throw stop('EISDIR');
      continue;
    }
    const next = path.join(at, name);
    try {
      stat = await fs.lstat(next);
    } catch (err) {
      if (err.code === 'ENOTDIR') throw stop('ENOTDIR');
      if (err.code !== 'ENOENT') throw stop(err.code);
      if (intent !== 'write') throw stop('ENOENT');
      move(next, link);
      stat = null;
      firstMissing = path.relative(root, next) || name;
      if (!isInside(root, next)) firstMissing = name;
      continue;
    }
    if (stat.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) throw stop('ELOOP');
      const target = await look(fs.readlink(next));
      if (target === '') throw stop('ENOENT');
      const shown = isInside(root, next) ? path.relative(root, next) : link;
      if (path.isAbsolute(target)) move(path.parse(path.resolve(target)).root, shown);
      pending.unshift(...components(target).map((n) => ({ name: n, link: shown })));
      continue;
    }
    move(next, link);
    atDir = stat.isDirectory();
  }
  return { at, stat, exit };
}

module.exports = { ToolError, resolveInside, isInside };
