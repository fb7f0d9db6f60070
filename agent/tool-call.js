'use strict';
// One tool call: its card's start frame, the run, its result frame. Whatever
// fails, the call gets exactly one terminal frame and the model gets a
// result, so the history never holds a tool_use without its tool_result.
// todo_write gets no card, only a `plan` update, as Qwen Code's TodoWriteTool
// does (packages/cli/src/acp-integration/session/Session.ts, runTool).
const { ToolError } = require('./workspace.js');
const { TODO_WRITE, TOOL_DISPLAY, TOOLS, text, locationsFor } = require('./tools.js');
const { boundRawInput, updateLineBytes, withMeta } = require('./frames.js');
const { log } = require('./log.js');

const CANCELLED = 'Cancelled by the user.';

/** A plain object (not an array, not null): the only arguments a tool accepts. */
const isArgsObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Runs `call` and returns its result for the model: {callId, output, isError?}.
 * `call.refusal`, when set, is why the call must not run (its arguments were
 * repaired or cut, its id was a duplicate): the card fails with it.
 * `ctx`: {sessionId, signal, maxFrameBytes, tools?} (`tools`: the tool
 * table, TOOLS unless a test passes its own).
 */
async function runTool(session, call, send, ctx) {
  const callId = call.id;
  const toolName = call.name;
  const argsOk = isArgsObject(call.args);
  const args = argsOk ? call.args : {};
  const refusal =
    call.refusal ?? (argsOk ? null : `Refused: the arguments of ${toolName} are not a JSON object; it was not run.`);
  if (toolName === TODO_WRITE && !refusal) {
    if (!Array.isArray(args.todos)) return { callId, output: 'todo_write: "todos" must be an array.', isError: true };
    const entries = args.todos.map((t) => ({
      content: String(t?.content ?? ''),
      priority: 'medium',
      status: ['pending', 'in_progress', 'completed'].includes(t?.status) ? t.status : 'pending',
    }));
    send({ sessionUpdate: 'plan', entries });
    return { callId, output: `Todo list updated (${entries.length} items).` };
  }
  const fits = (frame) => updateLineBytes(ctx.sessionId, frame) <= ctx.maxFrameBytes;
  const fail = (message) => {
    send(session.cards.finished(callId, toolName, { status: 'failed', content: [text(message)] }));
    return { callId, output: message, isError: true };
  };
  try {
    const display = Object.hasOwn(TOOL_DISPLAY, toolName) ? TOOL_DISPLAY[toolName] : undefined;
    const bounded = boundRawInput(args, Math.floor(ctx.maxFrameBytes / 4));
    let start = session.cards.started({
      callId,
      toolName,
      rawInput: bounded.rawInput,
      title: display ? `${display.title}${typeof args.path === 'string' ? `: ${args.path}` : ''}` : toolName,
      kind: display?.kind ?? 'other',
      locations: locationsFor(session.cwd, args),
    });
    if (bounded.truncated) start = withMeta(start, { rawInputTruncated: { bytes: bounded.bytes } });
    send(start);
    if (refusal) return fail(refusal);
    const tool = (ctx.tools ?? TOOLS).get(toolName);
    if (!tool) throw new ToolError(`Tool "${toolName}" not found in registry.`);
    const result = await untilCancelled(
      tool(session.cwd, args, { signal: ctx.signal, textBudget: Math.floor(ctx.maxFrameBytes / 4) }),
      ctx.signal,
    );
    const done = session.cards.finished(callId, toolName, {
      status: 'completed',
      content: result.content,
      ...(result.rawOutput ? { rawOutput: result.rawOutput } : {}),
    });
    if (done && !fits(done)) {
      const bytes = updateLineBytes(ctx.sessionId, done);
      // The ledger closed the card with `done`; a replacement is built by hand.
      send({
        sessionUpdate: 'tool_call_update',
        toolCallId: done.toolCallId,
        status: 'failed',
        content: [text(tooLarge(toolName, bytes, ctx.maxFrameBytes))],
        _meta: done._meta,
      });
      return { callId, output: tooLarge(toolName, bytes, ctx.maxFrameBytes), isError: true };
    }
    send(done);
    return { callId, output: result.output };
  } catch (err) {
    if (!(err instanceof ToolError)) log(`${toolName} (${callId}) failed: ${err?.stack ?? err}`);
    const message = err instanceof ToolError ? err.message : `${toolName} failed: ${err?.message ?? err}`;
    return session.cards.isOpen(callId) ? fail(message) : { callId, output: message, isError: true };
  }
}

const tooLarge = (toolName, bytes, limit) =>
  `${toolName} produced a result too large to show (${bytes} bytes; the ACP frame limit is ${limit} bytes). Its card was failed instead.`;

/**
 * The tool's promise, or a ToolError at the moment `signal` aborts. The tool
 * itself checks the signal before it writes, so a call cancelled here never
 * writes afterwards.
 */
function untilCancelled(promise, signal) {
  if (!signal) return promise;
  promise.catch(() => {}); // settled after a cancel: nobody is waiting for it
  if (signal.aborted) return Promise.reject(new ToolError(CANCELLED));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new ToolError(CANCELLED));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

module.exports = { runTool, isArgsObject };
