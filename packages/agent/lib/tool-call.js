'use strict';
// One tool call: its checks, the permission request when the tool changes the
// workspace, its card's start frame, the run, its result frame. Whatever
// fails, the call gets exactly one terminal frame and the model gets a
// result, so the history never holds a tool_use without its tool_result.
// todo_write gets no card, only a `plan` update, as Qwen Code's TodoWriteTool
// does.
//
// The order follows Qwen Code's Session.runTool
// (packages/cli/src/acp-integration/session/Session.ts): a call that fails its
// checks (unknown tool, bad parameters, a path outside the workspace) fails
// before any start frame (earlyErrorResponse); a call that asks sends
// `session/request_permission` instead of a start frame, so its card goes from
// preparing to the request to its terminal frame; any other call starts
// `in_progress`.
const { ToolError } = require('./workspace.js');
const { TODO_WRITE, TOOL_DISPLAY, TOOLS, CHECKS, diffOf, text, locationsFor } = require('./tools.js');
const { boundRawInput, updateLineBytes, withMeta, shownToolName } = require('./frames.js');
const { log } = require('./log.js');
const permission = require('./permission.js');

const CANCELLED = 'Cancelled by the user.';

/** Qwen's PERMISSION_CANCEL_SKIP_MESSAGE, for the calls after a rejected or cancelled request. */
const SKIP_MESSAGE =
  'Skipped because a permission request was cancelled before the user answered; user input is required before continuing.';

/** A plain object (not an array, not null): the only arguments a tool accepts. */
const isArgsObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const failure = (callId, message) => ({ callId, output: message, isError: true });

/** The card fields of a call's start (or permission request), rawInput within `maxFrameBytes / 4`. */
function startOf(session, call, maxFrameBytes) {
  const args = isArgsObject(call.args) ? call.args : {};
  const display = Object.hasOwn(TOOL_DISPLAY, call.name) ? TOOL_DISPLAY[call.name] : undefined;
  const bounded = boundRawInput(args, Math.floor(maxFrameBytes / 4));
  return {
    start: {
      callId: call.id,
      toolName: call.name,
      rawInput: bounded.rawInput,
      // No display: the card's title is the tool name, as the card ledger bounds a name.
      title: display ? `${display.title}${typeof args.path === 'string' ? `: ${args.path}` : ''}` : undefined,
      kind: display?.kind ?? 'other',
      locations: locationsFor(session.cwd, args),
    },
    bounded,
  };
}

/**
 * A failure before the call ran. A prepared card fails straight away; a call
 * the client has no card for gets a pending start first, so the failure has a
 * card to land on (Qwen's emitError would address an id the client never saw).
 */
function failEarly(session, start, message, send) {
  if (!session.cards.isOpen(start.callId)) send(session.cards.started({ ...start, status: 'pending' }));
  send(session.cards.failed(start.callId, start.toolName, message));
  return failure(start.callId, message);
}

/** A call not run because an earlier one in the batch stopped the turn (Qwen: emitStart(pending), then emitError). */
function skipTool(session, call, send, ctx) {
  if (call.name === TODO_WRITE) return failure(call.id, SKIP_MESSAGE);
  return failEarly(session, startOf(session, call, ctx.maxFrameBytes).start, SKIP_MESSAGE, send);
}

/**
 * Asks the user about `start`; returns null when allowed, else the result
 * for the model (the card already failed). `content` is what the user is
 * asked about (write_file's diff).
 */
async function askFirst(session, start, content, send, ctx) {
  const { callId, toolName } = start;
  const toolCall = session.cards.permission(start, content);
  let answer;
  try {
    answer = await permission.ask({
      approval: session.approval,
      request: ctx.requestPermission,
      toolCall,
      sessionId: ctx.sessionId,
      signal: ctx.signal,
    });
  } catch (err) {
    const message = `Permission request failed for "${toolName}": ${err.message}`;
    send(session.cards.failed(callId, toolName, message));
    return { ...failure(callId, message), stopTurn: true };
  }
  if (answer.modeChanged) send({ sessionUpdate: 'current_mode_update', currentModeId: session.approval.mode });
  if (answer.outcome === 'allow') return null;
  const message =
    answer.outcome === 'cancelled'
      ? `Tool "${toolName}" was canceled by the user.`
      : `Tool "${toolName}" was rejected by the user; the file was not changed.`;
  send(session.cards.failed(callId, toolName, message));
  return { ...failure(callId, message), stopTurn: true };
}

/**
 * Runs `call` and returns its result for the model: {callId, output, isError?,
 * stopTurn?}. `stopTurn` means the user rejected or cancelled a permission
 * request: the turn ends after this call, as in Qwen
 * (stopAfterPermissionCancel). `call.refusal`, when set, is why the call must
 * not run (its arguments were repaired or cut, its id was a duplicate): the
 * card fails with it. `ctx`: {sessionId, signal, maxFrameBytes,
 * requestPermission(params), readTextFile?(path), writeTextFile?(path, content)}
 * (the fs methods only when the client offered them), tools? (the tool table:
 * TOOLS unless a test passes its own).
 */
async function runTool(session, call, send, ctx) {
  const callId = call.id;
  const toolName = call.name;
  // The name as the messages below show it: the model's choice, of any length.
  const shown = shownToolName(toolName);
  const argsOk = isArgsObject(call.args);
  const args = argsOk ? call.args : {};
  const refusal =
    call.refusal ?? (argsOk ? null : `Refused: the arguments of ${shown} are not a JSON object; it was not run.`);
  if (toolName === TODO_WRITE && !refusal) {
    if (!Array.isArray(args.todos)) return failure(callId, 'todo_write: "todos" must be an array.');
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
    return failure(callId, message);
  };
  const textBudget = Math.floor(ctx.maxFrameBytes / 4);
  try {
    const { start, bounded } = startOf(session, call, ctx.maxFrameBytes);
    // Early failures: no start frame (Qwen's earlyErrorResponse).
    if (refusal) return failEarly(session, start, refusal, send);
    const tool = (ctx.tools ?? TOOLS).get(toolName);
    if (!tool) return failEarly(session, start, `Tool "${shown}" not found in registry.`, send);
    let checked;
    try {
      checked = await CHECKS.get(toolName)?.(session.cwd, args, { signal: ctx.signal, readTextFile: ctx.readTextFile });
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      return failEarly(session, start, err.message, send);
    }
    // The checked location is the real one (workspace.js): the card and the
    // permission request show where the tool works, not the link asked for.
    if (typeof checked?.abs === 'string') start.locations = [{ path: checked.abs }];
    const decision = permission.decide(session.approval, start.kind);
    if (decision === 'refuse') {
      return failEarly(
        session,
        start,
        `Tool "${toolName}" was not run: the user rejected all edits in this ACP session. Do not retry it; ask the user instead.`,
        send,
      );
    }
    if (decision === 'ask') {
      const content = toolName === 'write_file' ? [diffOf(checked, textBudget)] : [];
      const refused = await askFirst(session, start, content, send, ctx);
      if (refused) return refused;
      // Allowed: no start frame after the request (Qwen sends none; the
      // client marks the card running when the user answers).
    } else {
      let frame = session.cards.started(start);
      if (bounded.truncated) frame = withMeta(frame, { rawInputTruncated: { bytes: bounded.bytes } });
      send(frame);
    }
    const result = await untilCancelled(
      tool(session.cwd, args, {
        signal: ctx.signal,
        textBudget,
        readTextFile: ctx.readTextFile,
        ...(toolName === 'write_file' ? { plan: checked, writeTextFile: ctx.writeTextFile } : {}),
      }),
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
      return failure(callId, tooLarge(toolName, bytes, ctx.maxFrameBytes));
    }
    send(done);
    return { callId, output: result.output };
  } catch (err) {
    if (!(err instanceof ToolError)) log(`${toolName} (${callId}) failed: ${err?.stack ?? err}`);
    const message = err instanceof ToolError ? err.message : `${shown} failed: ${err?.message ?? err}`;
    return session.cards.isOpen(callId) ? fail(message) : failure(callId, message);
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

module.exports = { runTool, skipTool, isArgsObject };
