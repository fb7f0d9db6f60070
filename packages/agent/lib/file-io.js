'use strict';
// The tools' file I/O: size-limited and cancellable, and unable to block on
// anything that is not a regular file. Every open uses O_NONBLOCK and
// O_NOFOLLOW and is checked with fstat on the descriptor itself, so a FIFO,
// socket or device (or a symlink planted after path resolution) is refused
// at once instead of occupying one of libuv's four pool threads forever. The
// abort signal is checked between chunks and right before the first byte is
// written: a cancelled call never writes.
const fs = require('node:fs/promises');
const { constants } = require('node:fs');

const { ToolError } = require('./workspace.js');

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

async function openChecked(abs, flags, shown, mode) {
  let file;
  try {
    file = await fs.open(abs, flags, mode);
  } catch (err) {
    if (err.code === 'ENOENT') throw Object.assign(new ToolError(`File not found: ${shown}`), { code: 'ENOENT' });
    if (err.code === 'ELOOP') throw new ToolError(`Refused: "${shown}" became a symbolic link.`);
    if (err.code === 'ENXIO' || err.code === 'EISDIR') throw new ToolError(`Not a regular file: ${shown}`);
    throw err;
  }
  const stat = await file.stat();
  if (!stat.isFile()) {
    await file.close();
    throw new ToolError(`Not a regular file: ${shown}`);
  }
  return { file, stat };
}

/**
 * Reads a regular file as UTF-8, at most `maxBytes` of it. Returns
 * {text, size, complete}; `complete` is false when the file is larger than
 * `maxBytes` (then `text` is empty: a cut file is never shown as its content).
 */
async function readRegular(abs, shown, { maxBytes, signal }) {
  checkSignal(signal);
  const { file, stat } = await openChecked(abs, READ_FLAGS, shown);
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
 * Creates or overwrites a regular file with `content`, unless cancelled
 * first. A file this call created is removed again if the cancel comes
 * between its creation and the first byte.
 */
async function writeRegular(abs, shown, content, { signal }) {
  checkSignal(signal);
  let opened;
  let created = false;
  try {
    opened = await openChecked(abs, WRITE_FLAGS, shown);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    opened = await openChecked(abs, WRITE_FLAGS | constants.O_CREAT | constants.O_EXCL, shown, 0o666);
    created = true;
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

module.exports = { readRegular, writeRegular, checkSignal };
