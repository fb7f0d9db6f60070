'use strict';
// What the reference attaches to its responses out of band besides
// preparations (lib/preparations.js): never an own enumerable property, never
// serialised.
//
// - Usage provenance (Qwen Code packages/core/src/telemetry/gen-ai-usage.ts,
//   `setGenAiUsageProvenance` / `getGenAiUsageProvenance`): a WeakMap keyed
//   by the `usageMetadata` object, so it follows that object wherever the
//   pipeline moves it (a merged finish response keeps its usage's provenance).
//   The OpenAI converter attaches `{cachedInputTokensReported}`,
//   `buildAnthropicUsageMetadata` `{cachedInputTokensReported,
//   cacheCreationInputTokens}` (the count only when the provider reported it).
// - OpenAI reasoning thoughts (Qwen Code packages/core/src/utils/thoughtUtils.ts,
//   `createOpenAIReasoningThoughtPart`): a `{text, thought: true}` part made
//   from `reasoning_content` / `reasoning`, which the reference marks with a
//   non-enumerable symbol (`getThoughtSummary` then skips its `**subject**`
//   parsing). Here: a WeakSet of such parts.

const provenanceByUsage = new WeakMap();
const reasoningParts = new WeakSet();

const isObject = (v) => v !== null && typeof v === 'object';

/**
 * The provenance of a response's usage numbers: `getUsageProvenance(response)`
 * (its `usageMetadata`), or of a `usageMetadata` object itself, as Qwen's
 * `getGenAiUsageProvenance(usage)` takes it. Frozen; undefined when none.
 */
function getUsageProvenance(value) {
  if (!isObject(value)) return undefined;
  const own = provenanceByUsage.get(value);
  if (own !== undefined) return own;
  let usage;
  try {
    usage = value.usageMetadata;
  } catch {
    return undefined;
  }
  return isObject(usage) ? provenanceByUsage.get(usage) : undefined;
}

/**
 * `[reported]` (OpenAI) or `[reported, creation | null]` (Anthropic), as the
 * native batch writes it (core gemini::UsageProvenance), → the reference's
 * object, the Anthropic one always with its `cacheCreationInputTokens` key.
 */
function provenanceOf(u) {
  return u.length === 1
    ? { cachedInputTokensReported: u[0] }
    : { cachedInputTokensReported: u[0], cacheCreationInputTokens: u[1] ?? undefined };
}

/** Attaches the native provenance `u` to `usage` (and to the host's store). */
function attachUsageProvenance(usage, u, host) {
  if (!isObject(usage)) return;
  provenanceByUsage.set(usage, Object.freeze(provenanceOf(u)));
  if (host?.setUsageProvenance) host.setUsageProvenance(usage, provenanceOf(u));
}

/** Whether `part` is an OpenAI reasoning thought (made from `reasoning_content` / `reasoning`). */
const isReasoningPart = (part) => isObject(part) && reasoningParts.has(part);

/** A reasoning thought part: the host's (its own marker), or `{text, thought: true}`; marked here too. */
function reasoningPart(text, host) {
  const part = host?.createReasoningPart ? host.createReasoningPart(text) : { text, thought: true };
  reasoningParts.add(part);
  return part;
}

/** Replaces the parts at `indexes` of a decoded response by reasoning parts. */
function markReasoningParts(response, indexes, host) {
  const parts = response.candidates?.[0]?.content?.parts;
  if (!Array.isArray(parts)) return;
  for (const i of indexes) if (isObject(parts[i])) parts[i] = reasoningPart(parts[i].text, host);
}

module.exports = {
  getUsageProvenance,
  isReasoningPart,
  attachUsageProvenance,
  reasoningPart,
  markReasoningParts,
};
