'use strict';
// The agent's tools: a small real set, confined to the session's cwd. Their
// schemas (sent to the model), their display names and ACP kinds (for the
// cards), and what each one does.
const fs = require('node:fs/promises');
const path = require('node:path');

const { ToolError, resolveInside, WRITE_FLAGS } = require('./workspace.js');

const MAX_READ_BYTES = 256 * 1024;
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

/** Each tool returns {output (for the model), content (ACP tool content), rawOutput?}. */
const TOOLS = {
  async read_file(cwd, args) {
    const abs = await resolveInside(cwd, args.path);
    const stat = await fs.stat(abs).catch(() => {
      throw new ToolError(`File not found: ${args.path}`);
    });
    if (!stat.isFile()) throw new ToolError(`Not a file: ${args.path}`);
    if (stat.size > MAX_READ_BYTES)
      throw new ToolError(`File too large to read (${stat.size} bytes, limit ${MAX_READ_BYTES}).`);
    const body = await fs.readFile(abs, 'utf8');
    return { output: body, content: [text(body)] };
  },
  // `io.plan`: the plan checked (and shown to the user) before the run;
  // `io.writeTextFile`: write through the client instead of the disk.
  async write_file(cwd, args, io = {}) {
    const plan = io.plan ?? (await planWrite(cwd, args));
    const { abs, newText } = plan;
    if (io.writeTextFile) {
      // The client offered fs/write_text_file: the editor writes (and sees)
      // the change, e.g. into an open buffer.
      await io.writeTextFile(abs, newText);
    } else {
      await fs.mkdir(path.dirname(abs), { recursive: true });
      const file = await fs.open(abs, WRITE_FLAGS, 0o666);
      try {
        await file.writeFile(newText, 'utf8');
      } finally {
        await file.close();
      }
    }
    const bytes = Buffer.byteLength(newText);
    return {
      output: `Wrote ${bytes} bytes to ${args.path}.`,
      content: [diffOf(plan)],
      rawOutput: { path: abs, bytes },
    };
  },
  async list_directory(cwd, args) {
    const abs = await resolveInside(cwd, args.path ?? '.');
    const entries = await fs.readdir(abs, { withFileTypes: true }).catch(() => {
      throw new ToolError(`Directory not found: ${args.path}`);
    });
    const listing = entries
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
      .join('\n');
    return { output: listing || '(empty directory)', content: [text(listing || '(empty directory)')] };
  },
};

/**
 * What a write_file call would do, checked before anything runs: the resolved
 * path inside the workspace, the current text (`""` for a new file, as Qwen
 * Code's write_file diff has it: `originalContent ?? ""`), the new text.
 */
async function planWrite(cwd, args) {
  const abs = await resolveInside(cwd, args.path);
  if (typeof args.content !== 'string') throw new ToolError('Missing required parameter "content".');
  const existing = await fs.lstat(abs).catch(() => null);
  if (existing && !existing.isFile()) throw new ToolError(`Not a regular file: ${args.path}`);
  const oldText = existing ? await fs.readFile(abs, 'utf8') : '';
  return { abs, oldText, newText: args.content };
}

/** The ACP diff of a planned write. */
const diffOf = (plan) => ({ type: 'diff', path: plan.abs, oldText: plan.oldText, newText: plan.newText });

/**
 * The checks Qwen Code's `tool.build()` makes before a call starts
 * (validateToolParams: required parameters, the path inside the workspace).
 * A ToolError here is an early failure: the card fails without a start frame.
 * Returns what the run needs (for write_file its plan).
 */
const CHECKS = {
  read_file: (cwd, args) => resolveInside(cwd, args.path),
  list_directory: (cwd, args) => resolveInside(cwd, args.path ?? '.'),
  write_file: planWrite,
};

function locationsFor(cwd, args) {
  return typeof args?.path === 'string' ? [{ path: path.resolve(cwd, args.path) }] : [];
}

module.exports = { TODO_WRITE, TOOL_SCHEMAS, TOOL_DISPLAY, TOOLS, CHECKS, planWrite, diffOf, text, locationsFor };
