// Qwen Code's stream idle limit, read the way Qwen computes it. From 0.23 its
// content generators give up on a stream that yields nothing for
// `resolveStreamIdleTimeoutMs(contentGeneratorConfig)` milliseconds
// (packages/core/src/core/stream-guards.ts, withStreamGuards): the model's
// `generationConfig.streamIdleTimeoutMs`, else the environment's
// QWEN_STREAM_IDLE_TIMEOUT_MS, else DEFAULT_STREAM_IDLE_TIMEOUT_MS (240 s in
// 0.24.4); 0 turns the guard off. The function is called as the release has
// it, on the session's own content generator config, so the limit a card
// names is the one that release applies. A release that does not export it
// (0.21.x keeps it inside its OpenAI pipeline, and its Anthropic generator has
// no guard) names no limit: no deadline is shown rather than a wrong one.

/** What the function must be: Qwen's, reading the model's setting, then its environment variable and default. */
const CONTRACT = ['config.streamIdleTimeoutMs', 'QWEN_STREAM_IDLE_TIMEOUT_MS_ENV', 'DEFAULT_STREAM_IDLE_TIMEOUT_MS'];

/** Why `fn` is not Qwen's resolveStreamIdleTimeoutMs as this reader knows it, or undefined when it is. */
export function idleLimitMismatch(fn) {
  if (typeof fn !== 'function') return "Qwen's resolveStreamIdleTimeoutMs was not found in the bundle";
  const code = Function.prototype.toString.call(fn);
  const missing = CONTRACT.find((mark) => !code.includes(mark));
  return missing ? `resolveStreamIdleTimeoutMs is not the code this reader knows (no ${missing})` : undefined;
}

/**
 * `(config) => limit`: the idle limit in milliseconds of the session whose
 * Qwen Config is `config`, or undefined when the guard is off or the limit
 * cannot be read. `undefined` when `fn` is not the code this reader knows.
 * One reading per content generator config (Qwen warns on an invalid
 * setting each time the function reads it).
 */
export function idleLimitReader(fn) {
  if (idleLimitMismatch(fn)) return undefined;
  const read = new WeakMap();
  return (config) => {
    let generatorConfig;
    try {
      generatorConfig = config?.getContentGeneratorConfig?.();
    } catch {
      return undefined;
    }
    if (generatorConfig === null || typeof generatorConfig !== 'object') return undefined;
    if (!read.has(generatorConfig)) {
      let ms;
      try {
        ms = fn(generatorConfig);
      } catch {
        ms = undefined;
      }
      read.set(generatorConfig, Number.isInteger(ms) && ms > 0 ? ms : undefined);
    }
    return read.get(generatorConfig);
  };
}
