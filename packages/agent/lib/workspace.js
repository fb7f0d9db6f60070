'use strict';
// Workspace containment for the agent's file tools. A tool path is resolved
// the way the kernel resolves it on open(): component by component, following
// every symbolic link, the last component included, whether or not its target
// exists yet. Only a path whose fully resolved location lies inside the
// session's working directory is handed to a tool, and the tools then work on
// that resolved location, never on the link (file-io.js opens it with
// O_NOFOLLOW, so a link planted after resolution is refused).
//
// What this guarantees, and what it does not, is stated in the README
// ("What the agent's file tools can touch").
const fs = require('node:fs/promises');
const path = require('node:path');

/** A tool failure whose message goes to the model and to the card as it is. */
class ToolError extends Error {}

/** Linux's MAXSYMLINKS: a longer chain of links is refused as a loop (ELOOP). */
const MAX_LINK_HOPS = 40;

/** The components of a link target, split as the platform splits paths. */
const splitComponents = (p) => p.split(process.platform === 'win32' ? /[\\/]+/ : '/').filter(Boolean);

/** True when `target` is `root` or lies below it (both absolute, normalised). */
function isInside(root, target) {
  const rel = path.relative(root, target);
  return !(rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel));
}

/**
 * Resolves `p` against `root` (an absolute path without symlinks: the
 * session's realpath'd cwd), following every symlink on the way, dangling
 * links included. Returns the resolved absolute path, which may not exist yet,
 * or throws a ToolError when it lies outside `root` or cannot be resolved.
 */
async function resolveInside(root, p) {
  if (typeof p !== 'string' || p === '') throw new ToolError('Missing required parameter "path".');
  const refuse = () =>
    new ToolError(
      `Refused: "${p}" is outside the session's working directory (${root}). Only paths inside it can be read or written.`,
    );
  if (p.includes('\0')) throw new ToolError(`Refused: "${p.replaceAll('\0', '\\0')}" contains a NUL character.`);
  const lexical = path.resolve(root, p);
  if (!isInside(root, lexical)) throw refuse();

  const pending = splitComponents(path.relative(root, lexical));
  let resolved = root;
  let hops = 0;
  // Once a component does not exist, nothing below it can be a link: the rest
  // is joined as text (`..` from a link target still climbs).
  let missing = false;
  while (pending.length > 0) {
    const name = pending.shift();
    if (name === '.') continue;
    if (name === '..') {
      resolved = path.dirname(resolved);
      continue;
    }
    const next = path.join(resolved, name);
    if (missing) {
      resolved = next;
      continue;
    }
    let stat;
    try {
      stat = await fs.lstat(next);
    } catch (err) {
      if (err.code === 'ENOENT') {
        missing = true;
        resolved = next;
        continue;
      }
      if (err.code === 'ENOTDIR') throw new ToolError(`Not a directory: a parent of "${p}" is not a directory.`);
      throw err;
    }
    if (!stat.isSymbolicLink()) {
      resolved = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) throw new ToolError(`Refused: "${p}" has too many levels of symbolic links.`);
    const target = await fs.readlink(next);
    if (path.isAbsolute(target)) resolved = path.parse(target).root;
    pending.unshift(...splitComponents(path.isAbsolute(target) ? target.slice(resolved.length) : target));
  }
  if (!isInside(root, resolved)) throw refuse();
  return resolved;
}

module.exports = { ToolError, resolveInside, isInside };
