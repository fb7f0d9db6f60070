'use strict';
// The tools' file I/O: size-limited and cancellable, and unable to block on
// anything that is not a regular file. Every open uses O_NONBLOCK and
// O_NOFOLLOW and is checked with fstat on the descriptor itself, so a FIFO,
// socket or device (or a symlink planted after path resolution) is refused
// at once instead of occupying one of libuv's four pool threads forever. The
// abort signal is checked between chunks and right before the first byte is
// written: a cancelled call never writes. The *Inside functions reach a
// resolved location (workspace.js) through workspace-walk.js, so the file
// they open is inside the workspace at the moment it is opened.
const fs = require('node:fs/promises');
const { constants } = require('node:fs');

const { ToolError } = require('./workspace.js');
const { inFolder } = require('./workspace-walk.js');

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const READ_FLAGS = constants.O_RDONLY | NONBLOCK | NOFOLLOW;
// O_CREAT is added only when the file does not exist, and O_TRUNC never: the
// file is truncated only after fstat proved it regular and the signal was
// checked.
const WRITE_FLAGS = constants.O_WRONLY | NONBLOCK | NOFOLLOW;
const CHUNK = 64 * 1024;

/** Throws the cancel as a ToolError when `signal` is aborted. */
function checkSignal(signal) {
  if (signal?.aborted) throw new ToolError('Cancelled by the user.');
}

/**
 * Opens `abs` and fstat's the descriptor: a regular file, and (`verify`)
 * the file the walk reached, before anything is read or written.
 */
async function openChecked(abs, flags, shown, mode, verify) {
  let file;
  try {
    file = await fs.open(abs, flags, mode);
  } catch (err) {
    if (err.code === 'ENOENT') throw Object.assign(new ToolError(`File not found: ${shown}`), { code: 'ENOENT' });
    if (err.code === 'ELOOP') throw new ToolError(`Refused: "${shown}" became a symbolic link.`);
    if (err.code === 'ENXIO' || err.code === 'EISDIR') throw new ToolError(`Not a regular file: ${shown}`);
    throw err;
  }
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw new ToolError(`Not a regular file: ${shown}`);
    await verify?.(stat);
    return { file, stat };
  } catch (err) {
    await file.close();
    throw err;
  }
}

/**
 * Reads a regular file as UTF-8, at most `maxBytes` of it. Returns
 * {text, size, complete}; `complete` is false when the file is larger than
 * `maxBytes` (then `text` is empty: a cut file is never shown as its content).
 */
async function readRegular(abs, shown, { maxBytes, signal, verify }) {
  checkSignal(signal);
  const { file, stat } = await openChecked(abs, READ_FLAGS, shown, undefined, verify);
  try {
    if (stat.size > maxBytes) return { text: '', size: stat.size, complete: false };
    const chunks = [];
    let total = 0;
    for (;;) {
      checkSignal(signal);
      const buf = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await file.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      // The file grew while it was read.
      if (total > maxBytes) return { text: '', size: total, complete: false };
      chunks.push(buf.subarray(0, bytesRead));
    }
    return { text: Buffer.concat(chunks, total).toString('utf8'), size: total, complete: true };
  } finally {
    await file.close();
  }
}

/**
 * The refusal for a write to a file with more than one name: writing it
 * would change it under every name, and the others may lie outside the
 * workspace (a hard link cannot be told from the file it links).
 */
const hardLinked = (shown, links) =>
  new ToolError(
    `Refused: "${shown}" is a file with ${links} names (hard links). Writing it would change it under its other names too, which may lie outside the working directory.`,
  );

/**
 * Creates or overwrites a regular file with `content`, unless cancelled
 * first. A file this call created is removed again if the cancel comes
 * between its creation and the first byte. A file with more than one name
 * is refused (hardLinked).
 */
async function writeRegular(abs, shown, content, { signal, verify }) {
  checkSignal(signal);
  let opened;
  let created = false;
  try {
    opened = await openChecked(abs, WRITE_FLAGS, shown, undefined, verify);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    opened = await openChecked(abs, WRITE_FLAGS | constants.O_CREAT | constants.O_EXCL, shown, 0o666, verify);
    created = true;
  }
  if (opened.stat.nlink > 1) {
    await opened.file.close();
    throw hardLinked(shown, opened.stat.nlink);
  }
  const { file } = opened;
  try {
    if (signal?.aborted) {
      if (created) await fs.unlink(abs).catch(() => {});
      checkSignal(signal);
    }
    await file.truncate(0);
    await file.writeFile(content, 'utf8');
  } finally {
    await file.close();
  }
}

/** The file's name in its folder: the last of a resolved location's parts. */
function fileOf(target, shown) {
  if (target.parts.length === 0) throw new ToolError(`Not a regular file: ${shown}`);
  return { folder: target.parts.slice(0, -1), name: target.parts.at(-1) };
}

/** readRegular of a resolved location (workspace.js resolveInside), reached at the moment of the read. */
function readInside(target, shown, options) {
  const { folder, name } = fileOf(target, shown);
  return inFolder(target.root, folder, shown, {}, (dir) =>
    readRegular(dir.path(name), shown, { ...options, verify: (stat) => dir.verify(stat, name) }),
  );
}

/**
 * writeRegular of a resolved location, reached at the moment of the write:
 * missing folders are created one by one inside the folder before them.
 */
function writeInside(target, shown, content, options) {
  const { folder, name } = fileOf(target, shown);
  return inFolder(target.root, folder, shown, { create: true }, (dir) =>
    writeRegular(dir.path(name), shown, content, { ...options, verify: (stat) => dir.verify(stat, name) }),
  );
}

/** The entries of a resolved folder, read through the folder reached at this moment. */
function listInside(target, shown) {
  return inFolder(target.root, target.parts, shown, {}, async (dir) => {
    const entries = await fs.readdir(dir.listPath, { withFileTypes: true });
    await dir.checkFolder();
    return entries;
  });
}

/**
 * Checks, right before the editor is handed `target.abs` (fs/read_text_file,
 * fs/write_text_file), that the path holds no link at this moment: every
 * folder on it is a real folder (a write creates the missing ones), and the
 * file is a regular file (with one name, for a write) or, for a write,
 * absent. The editor then opens the path itself.
 */
function checkForEditor(target, shown, intent) {
  const { folder, name } = fileOf(target, shown);
  return inFolder(target.root, folder, shown, { create: intent === 'write' }, async (dir) => {
    let opened;
    try {
      opened = await openChecked(dir.path(name), READ_FLAGS, shown, undefined, (stat) => dir.verify(stat, name));
    } catch (err) {
      if (err.code === 'ENOENT' && intent === 'write') return;
      throw err;
    }
    await opened.file.close();
    if (intent === 'write' && opened.stat.nlink > 1) throw hardLinked(shown, opened.stat.nlink);
  });
}

module.exports = {
  readRegular,
  writeRegular,
  readInside,
  writeInside,
  listInside,
  checkForEditor,
  hardLinked,
  checkSignal,
};
