'use strict';
// The usage frame Qwen Code sends after each model stream: an empty
// `agent_message_chunk` whose `_meta` carries the token counts and the
// stream's duration (packages/cli/src/acp-integration/session/emitters/
// MessageEmitter.ts, emitUsageMetadata; createTranscriptUsageUpdate).

const count = (n) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);

/** The `session/update` for a stream's last `usageMetadata` (Gemini field names) and its duration. */
function usageUpdate(usageMetadata, durationMs) {
  const thoughtTokens = count(usageMetadata.thoughtsTokenCount);
  const cachedReadTokens = count(usageMetadata.cachedContentTokenCount);
  const usage = {
    inputTokens: count(usageMetadata.promptTokenCount) ?? 0,
    outputTokens: count(usageMetadata.candidatesTokenCount) ?? 0,
    totalTokens: count(usageMetadata.totalTokenCount) ?? 0,
    ...(thoughtTokens !== undefined ? { thoughtTokens } : {}),
    ...(cachedReadTokens !== undefined ? { cachedReadTokens } : {}),
  };
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: '' },
    _meta: { usage, durationMs: Math.max(0, Math.round(durationMs)) },
  };
}

module.exports = { usageUpdate };
