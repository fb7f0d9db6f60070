// Qwen Code's own classes as this package's embedding API host (lib/host.js):
// responses are instances of Qwen's bundled GenerateContentResponse,
// preparations go into Qwen's own store (setToolCallPreparations in
// packages/core/src/core/toolCallPreparations.ts), usage provenance into
// Qwen's own telemetry store (setGenAiUsageProvenance in
// packages/core/src/telemetry/gen-ai-usage.ts, read by its logging content
// generator), OpenAI reasoning thoughts are made by Qwen's own
// createOpenAIReasoningThoughtPart (packages/core/src/utils/thoughtUtils.ts,
// whose private symbol getThoughtSummary reads), and the errors are the ones
// Qwen's retry logic tests for (InvalidStreamError in
// packages/core/src/core/geminiChat.ts; the pipeline's StreamContentError;
// V8's TypeError where Qwen's own code fails on a value).

/**
 * Qwen's pipeline.ts keeps StreamContentError private and only throws it on
 * an `error_finish` chunk; the same name and message reach its callers.
 */
class StreamContentError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StreamContentError';
  }
}

/**
 * The embedding API host made of Qwen's hook points. `onPreparations(response,
 * list)`, when given, hears of every response with preparations too (the
 * live progress of Qwen's cards, acp-progress.mjs).
 */
export function qwenHost(q, onPreparations) {
  return {
    GenerateContentResponse: q.GenerateContentResponse,
    preparations: {
      set(response, list) {
        q.setToolCallPreparations(response, list);
        onPreparations?.(response, list);
      },
    },
    usageProvenance: { set: (usage, provenance) => q.setGenAiUsageProvenance(usage, provenance) },
    createReasoningPart: (text) => q.createOpenAIReasoningThoughtPart(text),
    // Qwen's StreamingToolCallParser takes any truthy `id` as the call's id
    // (packages/core/src/core/openaiContentGenerator/streamingToolCallParser.ts, addChunk).
    jsToolCallIds: true,
    createError(err) {
      // Where Qwen's own code fails on a value (a property read of null, a
      // call of a non-function), stock throws V8's TypeError: the converter
      // names it (`hostError`), and this realm's TypeError is the class
      // Qwen's code would have thrown.
      if (err.hostError?.name === 'TypeError') return new TypeError(err.hostError.message);
      // Where stock's JSON.stringify runs out of stack (a tool_use block's
      // `input` nested past it), V8's RangeError.
      if (err.hostError?.name === 'RangeError') return new RangeError(err.hostError.message);
      if (err.name === 'InvalidStreamError') return new q.InvalidStreamError(err.message, err.type ?? err.code);
      if (err.name === 'StreamContentError') return new StreamContentError(err.message);
      return err;
    },
  };
}
