'use strict';
// The prompt turn: model request → tools → model request … until the model
// stops, the user cancels, or the request budget is spent.
const { consumeModelStream, getProviderToolCallId, ToolCallCards } = require('toolcall-stream');
const { modelEvents } = require('./model-request.js');
const { runTool, skipTool } = require('./tool-call.js');
const { vetCalls, argumentLimitMessage } = require('./vet-calls.js');
const { TODO_WRITE, TOOL_DISPLAY } = require('./tools.js');
const { usageUpdate } = require('./usage.js');

const MAX_MODEL_REQUESTS_PER_PROMPT = 32;

/**
 * A new session's state: its id, cwd (realpath'd), history, card ledger, and
 * approval state (permission.js).
 */
function createSession(id, cwd, approval) {
  return {
    id,
    cwd,
    approval,
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
 * Ends a turn whose response the agent stopped at its argument limit. A
 * refusal, not a failure: the cards already say what was refused, the model's
 * history has its results, and the user reads why in the agent's own message.
 */
function endRefusedResponse(send, argumentLimit) {
  send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: argumentLimitMessage(argumentLimit) } });
  return 'end_turn';
}

/**
 * consumeModelStream's `progress`: the caller's (on with the defaults when
 * absent, off when false), with the agent's own idle limit, the stall
 * watchdog's `stallTimeoutMs` (model-request.js), so that a stalled card
 * says when the agent gives up on the attempt.
 */
function progressOptions(options) {
  const progress = options.progress ?? true;
  if (progress === false) return false;
  const own = progress === true ? {} : progress;
  return Number.isInteger(options.stallTimeoutMs) && options.stallTimeoutMs > 0
    ? { idleLimitMs: options.stallTimeoutMs, hostName: 'the agent', ...own }
    : own;
}

/**
 * Runs one session/prompt and returns its ACP stop reason. `options`:
 * {retryDelayMs, stallTimeoutMs, fallbackModel, maxFrameBytes,
 * runRepairedArguments, progress}: live progress on preparing cards, with
 * `progress` as consumeModelStream's options; on with the defaults when
 * absent, off when false. `client` is what the tools need from the connection
 * (tool-call.js runTool): requestPermission, and writeTextFile when the
 * client offered it.
 */
async function runPrompt(session, provider, params, signal, send, options, client = {}) {
  provider.addUserText(session, promptText(params.prompt));
  const ctx = { ...client, sessionId: session.id, signal, maxFrameBytes: options.maxFrameBytes };
  for (let request = 0; request < MAX_MODEL_REQUESTS_PER_PROMPT; request++) {
    // Every request after the first answers tool results (Qwen's isToolResultContinuation).
    const turn = { text: '', finishReason: undefined, observer: undefined, toolResultContinuation: request > 0 };
    const startedAt = performance.now();
    let result;
    try {
      result = await consumeModelStream(modelEvents(session, provider, signal, turn, options), {
        cards: session.cards,
        send,
        signal,
        progress: progressOptions(options),
      });
    } catch (err) {
      if (signal.aborted) return 'cancelled';
      throw err;
    }
    if (signal.aborted) return 'cancelled';
    // After the stream, before its tools run (Qwen's stream loop).
    if (result.usage) send(usageUpdate(result.usage, performance.now() - startedAt));
    const calls = vetCalls(result.functionCalls ?? [], {
      finishReason: turn.finishReason,
      observer: turn.observer,
      historyIds: provider.historyIds(session),
      providerId: getProviderToolCallId,
      runRepairedArguments: options.runRepairedArguments,
      argumentLimit: turn.argumentLimit,
    });
    provider.addAssistant(session, turn.text, calls);
    if (calls.length === 0) {
      if (turn.argumentLimit) return endRefusedResponse(send, turn.argumentLimit);
      return STOP_REASONS[turn.finishReason] ?? 'end_turn';
    }
    const results = [];
    let stopTurn = false;
    for (const call of calls) {
      if (signal.aborted) {
        // Calls after a cancel are not executed, but the model still gets an answer for each.
        results.push({ callId: call.id, output: 'Cancelled by the user before it ran.', isError: true });
      } else if (stopTurn) {
        results.push(skipTool(session, call, send, ctx));
      } else {
        const r = await runTool(session, call, send, ctx);
        stopTurn = Boolean(r.stopTurn);
        results.push({ callId: r.callId, output: r.output, ...(r.isError ? { isError: true } : {}) });
      }
    }
    provider.addToolResults(session, results);
    if (signal.aborted) return 'cancelled';
    // A rejected or unanswered permission request hands the turn back to the
    // user; the model reads the rejection in history with the next prompt
    // (Qwen: stopAfterPermissionCancel ends the turn).
    if (stopTurn) return 'end_turn';
    // Asking again would only ask for the same arguments.
    if (turn.argumentLimit) return endRefusedResponse(send, turn.argumentLimit);
    // Output cut by the token limit: its calls were refused; asking again would only repeat it.
    if (turn.finishReason === 'MAX_TOKENS' && !options.runRepairedArguments) return 'max_tokens';
  }
  return 'max_turn_requests';
}

module.exports = { createSession, runPrompt };
