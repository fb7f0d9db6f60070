'use strict';
// One tool call: its card's start frame, the run, its result frame. todo_write
// gets no card, only a `plan` update, as Qwen Code's TodoWriteTool does.
const { ToolError } = require('./workspace.js');
const { TODO_WRITE, TOOL_DISPLAY, TOOLS, text, locationsFor } = require('./tools.js');

/** Runs `call` and returns its result for the model: {callId, output, isError?}. */
async function runTool(session, call, send) {
  const callId = call.id;
  const toolName = call.name;
  const args = call.args && typeof call.args === 'object' ? call.args : {};
  if (toolName === TODO_WRITE) {
    if (!Array.isArray(args.todos)) return { callId, output: 'todo_write: "todos" must be an array.', isError: true };
    const entries = args.todos.map((t) => ({
      content: String(t.content ?? ''),
      priority: 'medium',
      status: ['pending', 'in_progress', 'completed'].includes(t.status) ? t.status : 'pending',
    }));
    send({ sessionUpdate: 'plan', entries });
    return { callId, output: `Todo list updated (${entries.length} items).` };
  }
  const display = TOOL_DISPLAY[toolName];
  send(
    session.cards.started({
      callId,
      toolName,
      rawInput: args,
      title: display ? `${display.title}${typeof args.path === 'string' ? `: ${args.path}` : ''}` : toolName,
      kind: display?.kind ?? 'other',
      locations: locationsFor(session.cwd, args),
    }),
  );
  try {
    const tool = TOOLS[toolName];
    if (!tool) throw new ToolError(`Tool "${toolName}" not found in registry.`);
    const result = await tool(session.cwd, args);
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
    return { callId, output: message, isError: true };
  }
}

module.exports = { runTool };
