'use strict';
// The prompt turn: model request → tools → model request … until the model
// stops, the user cancels, or the request budget is spent.
const { consumeModelStream, getProviderToolCallId, ToolCallCards } = require('../index.js');
const { modelEvents } = require('./model-request.js');
const { runTool } = require('./tool-call.js');
const { vetCalls } = require('./vet-calls.js');
const { TODO_WRITE, TOOL_DISPLAY } = require('./tools.js');

const MAX_MODEL_REQUESTS_PER_PROMPT = 32;

/** A new session's state: its id, cwd (realpath'd), history and card ledger. */
function createSession(id, cwd) {
  return {
    id,
    cwd,
    messages: [],
    cards: new ToolCallCards({
      suppressedTools: [TODO_WRITE],
      describe: (toolName) => (Object.hasOwn(TOOL_DISPLAY, toolName) ? TOOL_DISPLAY[toolName] : {}),
    }),
    running: null,
  };
}

function promptText(blocks) {
  return blocks
    .map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'resource_link') return `@${b.uri}`;
      if (b.type === 'resource' && typeof b.resource?.text === 'string')
        return `<file uri="${b.resource.uri}">\n${b.resource.text}\n</file>`;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

const STOP_REASONS = {
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'refusal',
  RECITATION: 'refusal',
  PROHIBITED_CONTENT: 'refusal',
};

/**
 * Runs one session/prompt and returns its ACP stop reason. `options`:
 * {retryDelayMs, stallTimeoutMs, maxFrameBytes, runRepairedArguments}.
 */
async function runPrompt(session, provider, params, signal, send, options) {
  provider.addUserText(session, promptText(params.prompt));
  const ctx = { sessionId: session.id, signal, maxFrameBytes: options.maxFrameBytes };
  for (let request = 0; request < MAX_MODEL_REQUESTS_PER_PROMPT; request++) {
    const turn = { text: '', finishReason: undefined, observer: undefined };
    let result;
    try {
      result = await consumeModelStream(modelEvents(session, provider, signal, turn, options), {
        cards: session.cards,
        send,
        signal,
      });
    } catch (err) {
      if (signal.aborted) return 'cancelled';
      throw err;
    }
    if (signal.aborted) return 'cancelled';
    const calls = vetCalls(result.functionCalls ?? [], {
      finishReason: turn.finishReason,
      observer: turn.observer,
      historyIds: provider.historyIds(session),
      providerId: getProviderToolCallId,
      runRepairedArguments: options.runRepairedArguments,
    });
    provider.addAssistant(session, turn.text, calls);
    if (calls.length === 0) return STOP_REASONS[turn.finishReason] ?? 'end_turn';
    const results = [];
    for (const call of calls) {
      // Calls after a cancel are not executed, but the model still gets an answer for each.
      results.push(
        signal.aborted
          ? { callId: call.id, output: 'Cancelled by the user before it ran.', isError: true }
          : await runTool(session, call, send, ctx),
      );
    }
    provider.addToolResults(session, results);
    if (signal.aborted) return 'cancelled';
    // Output cut by the token limit: its calls were refused; asking again would only repeat it.
    if (turn.finishReason === 'MAX_TOKENS' && !options.runRepairedArguments) return 'max_tokens';
  }
  return 'max_turn_requests';
}

module.exports = { createSession, runPrompt };
