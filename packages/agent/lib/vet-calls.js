'use strict';
// Which of a response's complete calls may run. The converter reports what
// Qwen Code reports: a call cut off by the token limit or with malformed
// arguments arrives repaired (jsonrepair), exactly as the reference would
// execute it. An agent that writes files must not run half a call, so by
// default such a call is refused here: it keeps its card and gets an error
// result, but never runs. Qwen Code 0.24.4's own Anthropic generator draws
// the same line (packages/core/src/core/tool-call-arguments.ts,
// parseToolCallArguments: MALFORMED_JSON, NON_OBJECT).
// `--run-repaired-arguments` restores the lenient behaviour. Same-response duplicate ids, which the id
// normalisation drops (Qwen's normalizeModelToolCallIds in
// packages/core/src/core/toolCallIdUtils.ts), come back as
// refused calls under a fresh id, so the model hears about them. A response
// the agent stopped because a call's arguments passed its limit
// (model-request.js, argumentLimitStop) runs nothing, whatever the flag.

const { shownToolName } = require('./frames.js');

/**
 * @param {object[]} calls the normalised functionCalls of the attempt that succeeded
 * @param {{finishReason?: string, observer: import('./stream-observer.js').StreamObserver, historyIds: string[], providerId: (call: object) => string | undefined, runRepairedArguments?: boolean, argumentLimit?: {toolName: string, limit: number, refusedId?: string}}} info
 * @returns {object[]} the calls, each with `refusal` set when it must not run
 */
function vetCalls(calls, { finishReason, observer, historyIds, providerId, runRepairedArguments, argumentLimit }) {
  const out = calls.map((call) => {
    if (argumentLimit) return { ...call, refusal: argumentLimitRefusal(call, argumentLimit) };
    if (runRepairedArguments) return call;
    if (finishReason === 'MAX_TOKENS')
      return {
        ...call,
        refusal: `Not run: the response was cut off by the output token limit (max_tokens), so the arguments of ${shownToolName(call.name)} may be incomplete.`,
      };
    const problem = observer.argumentProblem(providerId(call) ?? call.id);
    return problem ? { ...call, refusal: `Not run: ${problem}.` } : call;
  });
  const used = new Set([...historyIds, ...calls.map((c) => c.id)]);
  for (const dup of observer.duplicates()) {
    // The suffix of Qwen's reserveModelToolCallId (packages/core/src/core/toolCallIdUtils.ts),
    // so the history stays valid.
    let n = 2;
    while (used.has(`${dup.rawId}__qwen_dup_${n}`)) n++;
    const id = `${dup.rawId}__qwen_dup_${n}`;
    used.add(id);
    let args = {};
    try {
      args = JSON.parse(dup.text);
    } catch {
      // shown as {} on the card: the call is refused either way
    }
    out.push({
      id,
      name: typeof dup.name === 'string' && dup.name ? dup.name : 'unknown',
      args,
      refusal: `Not run: its id ${dup.rawId} was already used by another call in the same response.`,
    });
  }
  return out;
}

/** `limit` bytes, and in MiB when it is a whole number of them. */
function bytes(limit) {
  return limit % (1 << 20) === 0 ? `${limit} bytes (${limit >> 20} MiB)` : `${limit} bytes`;
}

/** Why `call` of a response stopped at the argument limit did not run. */
function argumentLimitRefusal(call, { toolName: name, limit, refusedId }) {
  const toolName = shownToolName(name);
  if (call.id === refusedId)
    return `Not run: the arguments of ${toolName} exceeded the agent's limit of ${bytes(limit)}, so the agent refused the call and stopped the response there.`;
  return `Not run: the response was stopped because the arguments of a ${toolName} call exceeded the agent's limit of ${bytes(limit)}, and no call of that response runs.`;
}

/** What the agent tells the user when it stopped a response at the argument limit. */
function argumentLimitMessage({ toolName, limit }) {
  return `The agent refused a ${shownToolName(toolName)} call: its arguments exceeded the agent's limit of ${bytes(limit)}. Nothing from that response was run.`;
}

module.exports = { vetCalls, argumentLimitMessage };
