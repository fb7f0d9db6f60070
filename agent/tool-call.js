'use strict';
// One tool call: its checks, the permission request when the tool changes the
// workspace, its card's start frame, the run, its result frame. todo_write
// gets no card, only a `plan` update, as Qwen Code's TodoWriteTool does.
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
const permission = require('./permission.js');

/** Qwen's PERMISSION_CANCEL_SKIP_MESSAGE, for the calls after a rejected or cancelled request. */
const SKIP_MESSAGE =
  'Skipped because a permission request was cancelled before the user answered; user input is required before continuing.';

const failure = (callId, message) => ({ callId, output: message, isError: true });

function startOf(session, call) {
  const args = call.args && typeof call.args === 'object' ? call.args : {};
  const display = TOOL_DISPLAY[call.name];
  return {
    callId: call.id,
    toolName: call.name,
    rawInput: args,
    title: display ? `${display.title}${typeof args.path === 'string' ? `: ${args.path}` : ''}` : call.name,
    kind: display?.kind ?? 'other',
    locations: locationsFor(session.cwd, args),
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
function skipTool(session, call, send) {
  if (call.name === TODO_WRITE) return failure(call.id, SKIP_MESSAGE);
  return failEarly(session, startOf(session, call), SKIP_MESSAGE, send);
}

/**
 * Runs `call` and returns its result for the model: {callId, output, isError?,
 * stopTurn?}. `stopTurn` means the user rejected or cancelled a permission
 * request: the turn ends after this call, as in Qwen (stopAfterPermissionCancel).
 * `ctx`: {sessionId, signal, requestPermission(params), writeTextFile?(path, content)}.
 */
async function runTool(session, call, send, ctx) {
  const callId = call.id;
  const toolName = call.name;
  const args = call.args && typeof call.args === 'object' ? call.args : {};
  if (toolName === TODO_WRITE) {
    if (!Array.isArray(args.todos)) return failure(callId, 'todo_write: "todos" must be an array.');
    const entries = args.todos.map((t) => ({
      content: String(t.content ?? ''),
      priority: 'medium',
      status: ['pending', 'in_progress', 'completed'].includes(t.status) ? t.status : 'pending',
    }));
    send({ sessionUpdate: 'plan', entries });
    return { callId, output: `Todo list updated (${entries.length} items).` };
  }
  const start = startOf(session, call);
  const tool = TOOLS[toolName];
  if (!tool) return failEarly(session, start, `Tool "${toolName}" not found in registry.`, send);
  let checked;
  try {
    checked = await CHECKS[toolName]?.(session.cwd, args);
  } catch (err) {
    return failEarly(
      session,
      start,
      err instanceof ToolError ? err.message : `${toolName} failed: ${err.message}`,
      send,
    );
  }
  const runIo = toolName === 'write_file' ? { plan: checked, writeTextFile: ctx.writeTextFile } : {};

  const decision = permission.decide(session.approval, start.kind);
  if (decision === 'refuse') {
    return failEarly(
      session,
      start,
      `Tool "${toolName}" was not run: the user rejected all edits in this session. Do not retry it; ask the user instead.`,
      send,
    );
  }
  if (decision === 'ask') {
    const toolCall = session.cards.permission(start, toolName === 'write_file' ? [diffOf(checked)] : []);
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
    if (answer.outcome !== 'allow') {
      const message =
        answer.outcome === 'cancelled'
          ? `Tool "${toolName}" was canceled by the user.`
          : `Tool "${toolName}" was rejected by the user; the file was not changed.`;
      send(session.cards.failed(callId, toolName, message));
      return { ...failure(callId, message), stopTurn: true };
    }
    // Allowed: no start frame after the request (Qwen sends none; the client
    // marks the card running when the user answers).
  } else {
    send(session.cards.started(start));
  }
  try {
    const result = await tool(session.cwd, args, runIo);
    send(
      session.cards.finished(callId, toolName, {
        status: 'completed',
        content: result.content,
        ...(result.rawOutput ? { rawOutput: result.rawOutput } : {}),
      }),
    );
    return { callId, output: result.output };
  } catch (err) {
    const message = err instanceof ToolError ? err.message : `${toolName} failed: ${err.message}`;
    send(session.cards.finished(callId, toolName, { status: 'failed', content: [text(message)] }));
    return failure(callId, message);
  }
}

module.exports = { runTool, skipTool };
