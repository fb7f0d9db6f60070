'use strict';
// The agent's tools: a small real set, confined to the session's cwd. Their
// schemas (sent to the model), their display names and ACP kinds (for the
// cards), and what each one does.
const path = require('node:path');

const { ToolError, resolveInside } = require('./workspace.js');
const { readInside, writeInside, listInside, checkForEditor, hardLinked, checkSignal } = require('./file-io.js');
const { truncateText, withMeta } = require('./frames.js');

const TODO_WRITE = 'todo_write';

const TOOL_SCHEMAS = {
  read_file: {
    description: 'Read a UTF-8 text file inside the working directory.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the working directory' } },
      required: ['path'],
    },
  },
  write_file: {
    description: 'Create or overwrite a UTF-8 text file inside the working directory.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  list_directory: {
    description: 'List the entries of a directory inside the working directory.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  [TODO_WRITE]: {
    description: 'Replace the session todo list (shown to the user as the plan).',
    parameters: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              content: { type: 'string' },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            },
            required: ['content', 'status'],
          },
        },
      },
      required: ['todos'],
    },
  },
};

/** Display names and ACP kinds, as Qwen Code's built-in tools have them. */
const TOOL_DISPLAY = {
  read_file: { title: 'ReadFile', kind: 'read' },
  write_file: { title: 'WriteFile', kind: 'edit' },
  list_directory: { title: 'ListFiles', kind: 'search' },
};

const text = (t) => ({ type: 'content', content: { type: 'text', text: t } });

/** Largest file read_file returns. */
const MAX_READ_BYTES = 256 * 1024;
/** Largest old file read for write_file's diff; past it the diff says the old text was omitted. */
const MAX_DIFF_OLD_BYTES = 1024 * 1024;
/** Largest content write_file writes. */
const MAX_WRITE_BYTES = 16 * 1024 * 1024;

/**
 * Each tool takes (cwd, args, {signal, textBudget}) and returns {output (for
 * the model), content (ACP tool content), rawOutput?}. `textBudget` bounds,
 * in JSON bytes, each text the tool puts in an ACP frame (frames.js).
 */
const TOOLS = new Map([
  [
    'read_file',
    // `readTextFile`: the client offered fs/read_text_file, so the text comes
    // from the editor (an open buffer's unsaved changes included).
    async (cwd, args, { signal, readTextFile }) => {
      const target = await resolveInside(cwd, args.path, 'read');
      const {
        text: body,
        size,
        complete,
      } = await readText(target, args.path, {
        maxBytes: MAX_READ_BYTES,
        signal,
        readTextFile,
      });
      if (!complete) throw new ToolError(`File too large to read (${size} bytes, limit ${MAX_READ_BYTES}).`);
      return { output: body, content: [text(body)] };
    },
  ],
  [
    'write_file',
    // `plan`: the write as checked (and shown to the user) before the run;
    // `writeTextFile`: the client offered fs/write_text_file, so the editor
    // writes the file (and sees it, e.g. in an open buffer).
    async (cwd, args, { signal, textBudget, plan, writeTextFile }) => {
      // The write goes to the real location the plan resolved (the one the
      // user approved in its diff), reached again now, or nowhere.
      const { abs, target, old, newText } = plan ?? (await planWrite(cwd, args, { signal }));
      checkSignal(signal);
      if (writeTextFile) {
        await checkForEditor(target, args.path, 'write');
        checkSignal(signal);
        await writeTextFile(abs, newText);
      } else {
        await writeInside(target, args.path, newText, { signal });
      }
      const bytes = Buffer.byteLength(newText);
      return {
        output: `Wrote ${bytes} bytes to ${args.path}.`,
        content: [diffContent(abs, old, newText, textBudget)],
        rawOutput: { path: abs, bytes },
      };
    },
  ],
  [
    'list_directory',
    async (cwd, args, { signal, textBudget }) => {
      const asked = args.path ?? '.';
      const target = await resolveInside(cwd, asked, 'list');
      if (!target.stat.isDirectory()) throw new ToolError(`Not a directory: ${asked}`);
      checkSignal(signal);
      const entries = await listInside(target, asked).catch((err) => {
        if (err instanceof ToolError) throw err;
        throw new ToolError(`Directory not found: ${asked}`);
      });
      const listing =
        entries
          .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
          .sort()
          .join('\n') || '(empty directory)';
      const shown = truncateText(listing, textBudget);
      const item = text(shown.truncated ? `${shown.text}\n[listing truncated]` : listing);
      return {
        output: listing,
        content: [shown.truncated ? withMeta(item, { truncated: true, bytes: shown.bytes }) : item],
      };
    },
  ],
]);

/**
 * write_file's diff, each text within `textBudget` JSON bytes. An old file
 * past the read cap is not shown: its oldText says so, and
 * `_meta.toolcallStream.oldTextOmitted` carries its size. A cut newText is
 * marked `_meta.toolcallStream.newTextTruncated`.
 */
function diffContent(abs, old, newText, textBudget) {
  const meta = {};
  let oldText = old.text;
  if (!old.complete) {
    oldText = `[previous contents omitted from the diff: ${old.size} bytes, over the ${MAX_DIFF_OLD_BYTES}-byte limit]`;
    meta.oldTextOmitted = { bytes: old.size };
  } else {
    const cut = truncateText(oldText, textBudget);
    if (cut.truncated) meta.oldTextTruncated = { bytes: cut.bytes };
    oldText = cut.text;
  }
  const cutNew = truncateText(newText, textBudget);
  if (cutNew.truncated) meta.newTextTruncated = { bytes: cutNew.bytes };
  const diff = { type: 'diff', path: abs, oldText, newText: cutNew.text };
  return Object.keys(meta).length > 0 ? withMeta(diff, meta) : diff;
}

/**
 * A regular file's text, through the client when it offered fs/read_text_file
 * (the file must still be a regular file inside the workspace on disk, with
 * no link on its way, when the editor is asked), else from the disk: {text,
 * size, complete} as file-io.js readRegular returns it. `target` is a
 * resolved location (workspace.js resolveInside).
 */
async function readText(target, shown, { maxBytes, signal, readTextFile }) {
  if (!readTextFile) return readInside(target, shown, { maxBytes, signal });
  await checkForEditor(target, shown, 'read');
  checkSignal(signal);
  let content;
  try {
    ({ content } = await readTextFile(target.abs));
  } catch (err) {
    throw new ToolError(`Could not read ${shown} through the editor: ${err?.message ?? err}`);
  }
  if (typeof content !== 'string') throw new ToolError(`The editor returned no text for ${shown}.`);
  const size = Buffer.byteLength(content);
  return size > maxBytes ? { text: '', size, complete: false } : { text: content, size, complete: true };
}

/**
 * What a write_file call would do, checked before anything runs: the real
 * location inside the workspace (`abs`, shown in the diff, and `target`, which
 * the run reaches again), the current text (`""` for a new file, as Qwen
 * Code's write_file diff has it: `originalContent ?? ""`), the new text.
 */
async function planWrite(cwd, args, { signal, readTextFile } = {}) {
  const target = await resolveInside(cwd, args.path, 'write');
  if (typeof args.content !== 'string') throw new ToolError('Missing required parameter "content".');
  const bytes = Buffer.byteLength(args.content);
  if (bytes > MAX_WRITE_BYTES)
    throw new ToolError(`Content too large to write (${bytes} bytes, limit ${MAX_WRITE_BYTES}).`);
  const existing = target.stat;
  if (existing && !existing.isFile()) throw new ToolError(`Not a regular file: ${args.path}`);
  if (existing && existing.nlink > 1) throw hardLinked(args.path, existing.nlink);
  // The old contents only feed the diff: a regular file, up to a cap.
  const old = existing
    ? await readText(target, args.path, { maxBytes: MAX_DIFF_OLD_BYTES, signal, readTextFile })
    : { text: '', complete: true };
  return { abs: target.abs, target, old, newText: args.content };
}

/** The ACP diff of a planned write, each text within `textBudget` JSON bytes. */
const diffOf = (plan, textBudget) => diffContent(plan.abs, plan.old, plan.newText, textBudget);

/**
 * The checks Qwen Code's `tool.build()` makes before a call starts
 * (validateToolParams: required parameters, the path inside the workspace).
 * A ToolError here is an early failure: the card fails without a start frame.
 * Returns what the run needs (for write_file its plan).
 */
const CHECKS = new Map([
  ['read_file', (cwd, args) => resolveInside(cwd, args.path, 'read')],
  ['list_directory', (cwd, args) => resolveInside(cwd, args.path ?? '.', 'list')],
  ['write_file', planWrite],
]);

function locationsFor(cwd, args) {
  return typeof args?.path === 'string' ? [{ path: path.resolve(cwd, args.path) }] : [];
}

module.exports = { TODO_WRITE, TOOL_SCHEMAS, TOOL_DISPLAY, TOOLS, CHECKS, diffOf, text, locationsFor };
