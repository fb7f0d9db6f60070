// Qwen Code's own classes as this package's embedding API host (lib/host.js):
// responses are instances of Qwen's bundled GenerateContentResponse,
// preparations go into Qwen's own store (setToolCallPreparations in
// packages/core/src/core/toolCallPreparations.ts), and the errors are the ones
// Qwen's retry logic tests for (InvalidStreamError in
// packages/core/src/core/geminiChat.ts; the pipeline's StreamContentError).

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

/** `{GenerateContentResponse, preparations, createError}` from Qwen's hook points. */
export function qwenHost(q) {
  return {
    GenerateContentResponse: q.GenerateContentResponse,
    preparations: { set: (response, list) => q.setToolCallPreparations(response, list) },
    createError(err) {
      if (err.name === 'InvalidStreamError') return new q.InvalidStreamError(err.message, err.type ?? err.code);
      if (err.name === 'StreamContentError') return new StreamContentError(err.message);
      return err;
    },
  };
}
