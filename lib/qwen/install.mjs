// Installing the hooks into the running Qwen Code: inspect.mjs decides, from
// the bundle's code, what each provider is served with; the hook points are
// imported from the very module instances cli.js uses, and each served
// provider's patch is checked before any is applied. Anything unexpected
// leaves that provider stock, and the caller reports why.
import { createRequire } from 'node:module';
import { inspectQwen, HOOK_POINTS, CLASSIFIER_HOOK_POINTS, RESPONSES_HOOK_POINTS } from './inspect.mjs';
import { importHookPoints } from './hook-points.mjs';
import { qwenHost } from './host.mjs';
import { prepareAnthropicPatch } from './anthropic.mjs';
import { prepareOpenAIPatch } from './openai.mjs';
import { emitterMismatch, installCardProgress } from './acp-progress.mjs';
import { idleLimitReader } from './idle-limit.mjs';
import { progressSetting } from './progress-setting.mjs';

const require = createRequire(import.meta.url);

/** Counters for the report: streams converted from the raw body or from SDK objects. */
export const newStats = () => ({
  anthropic: { bytes: 0, objects: 0 },
  openai: { bytes: 0, chunks: 0 },
  openaiResponses: { bytes: 0 },
  fallbacks: 0,
});

/** The providers the preload serves, by their key in a decision, and their names in a line. */
export const PROVIDERS = [
  ['anthropic', 'Anthropic'],
  ['openai', 'OpenAI-compatible'],
  ['openaiResponses', 'OpenAI Responses'],
];

const stock = (reason, decision) => ({
  anthropic: { served: false, reason },
  openai: { served: false, reason },
  // A release without the Responses generator says so, whatever else stops the preload.
  openaiResponses: decision?.openaiResponses?.absent ? decision.openaiResponses : { served: false, reason },
});

/**
 * Patches the Qwen Code in `pkg` (`{dir, version}`). Returns
 * `{anthropic, openai, openaiResponses, progress}`: each provider `{served: true, profile}`
 * or `{served: false, reason}`, and live progress on Qwen's preparing cards
 * `{on: true}` or `{on: false, reason, wanted}`; never throws.
 */
export async function install(pkg, stats) {
  const { checkAvailable } = require('../available.js');
  const status = checkAvailable();
  if (!status.available) return stock(`the native binary does not load: ${status.reason}`);
  const decision = inspectQwen(pkg);
  const outcome = {
    anthropic: decision.anthropic,
    openai: decision.openai,
    openaiResponses: decision.openaiResponses,
  };
  if (PROVIDERS.every(([key]) => !outcome[key].served)) return outcome;

  const wanted = [
    ...HOOK_POINTS,
    ...(outcome.anthropic.heldCallRelease === 'none' ? [] : CLASSIFIER_HOOK_POINTS),
    ...(outcome.openaiResponses.served ? RESPONSES_HOOK_POINTS : []),
  ];
  let q;
  try {
    q = await importHookPoints(decision.hookPoints, wanted, { within: pkg.dir, hashes: decision.hookHashes });
  } catch (err) {
    return stock(`the hook points could not be loaded: ${err.message}`, decision);
  }
  const missing = HOOK_POINTS.filter((name) => q[name] === undefined);
  if (missing.length) return stock(`missing hook points: ${missing.join(', ')}`, decision);
  const { progress, notePreparations } = await prepareProgress(decision, pkg);
  outcome.progress = progress;
  const host = qwenHost(q, notePreparations);

  const patches = [];
  const prepare = async (provider, make) => {
    if (!outcome[provider].served) return;
    try {
      patches.push(await make({ profile: outcome[provider].profile, host, stats }));
    } catch (err) {
      outcome[provider] = { served: false, reason: err.message };
    }
  };
  await prepare('anthropic', (options) => prepareAnthropicPatch(q, outcome.anthropic, options));
  await prepare('openai', (options) => prepareOpenAIPatch(q, outcome.openai, options));
  // Loaded only where the release has the generator. Qwen sends no
  // preparations for it: only live progress on ACP cards asks for them.
  await prepare('openaiResponses', async (options) => {
    const { prepareResponsesPatch } = await import('./openai-responses.mjs');
    return prepareResponsesPatch(q, { ...options, preparations: () => progress.on === true });
  });
  for (const patch of patches) patch();
  return outcome;
}

/**
 * Live progress on Qwen's preparing cards, when asked for in ACP mode and
 * Qwen's ToolCallEmitter is the code the wrapping knows (acp-progress.mjs).
 * Anything else leaves the cards as Qwen shows them, with the reason.
 */
async function prepareProgress(decision, pkg) {
  const setting = progressSetting();
  // A value of TOOLCALL_STREAM_QWEN_PROGRESS that is not a switch counts as
  // asked about, so that serve.mjs says it in the preload's one line.
  if (!setting.wanted) return { progress: { on: false, wanted: setting.unknown === true, reason: setting.reason } };
  let ToolCallEmitter, resolveStreamIdleTimeoutMs;
  try {
    ({ ToolCallEmitter, resolveStreamIdleTimeoutMs } = await importHookPoints(
      decision.hookPoints,
      ['ToolCallEmitter', 'resolveStreamIdleTimeoutMs'],
      { within: pkg.dir, hashes: decision.hookHashes },
    ));
  } catch (err) {
    return {
      progress: { on: false, wanted: true, reason: `Qwen's ToolCallEmitter could not be loaded: ${err.message}` },
    };
  }
  const mismatch = emitterMismatch(ToolCallEmitter);
  if (mismatch) return { progress: { on: false, wanted: true, reason: mismatch } };
  // Qwen's idle limit, where the release exports the function that computes
  // it and it is the code idle-limit.mjs knows; else cards name no deadline.
  const idleLimitOf = idleLimitReader(resolveStreamIdleTimeoutMs);
  const { notePreparations } = installCardProgress(ToolCallEmitter, true, { idleLimitOf });
  return { progress: { on: true }, notePreparations };
}

/**
 * One line saying what runs stock and why, or undefined when every provider
 * the release has is served (a release without the Responses generator has
 * nothing there to run stock).
 */
export function stockLine(pkg, outcome) {
  const stock = PROVIDERS.filter(([key]) => !outcome[key].served && !outcome[key].absent);
  if (stock.length === 0) return undefined;
  const head = `toolcall-stream/qwen: Qwen Code ${pkg.version}`;
  const present = PROVIDERS.filter(([key]) => !outcome[key].absent);
  if (stock.length === present.length) {
    const reasons = new Set(stock.map(([key]) => outcome[key].reason));
    return reasons.size === 1
      ? `${head} runs stock: ${[...reasons][0]}`
      : `${head} runs stock: ${stock.map(([key, name]) => `${name}: ${outcome[key].reason}`).join('; ')}`;
  }
  return `${head}: ${stock.map(([key, name]) => `${name} streams run stock: ${outcome[key].reason}`).join('; ')}`;
}
