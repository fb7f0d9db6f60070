// Installing the Qwen Code hooks into the running CLI: find the cli.js this
// process runs, check its version against the releases known here
// (versions.mjs), import the chunks that export the hook points — the very
// module instances cli.js uses — and patch them. Anything unexpected leaves
// Qwen stock: the caller reports why.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { importHookPoints } from './locate.mjs';
import { VERSIONS, HOOK_POINTS } from './versions.mjs';
import { qwenHost } from './host.mjs';
import { prepareAnthropicPatch } from './anthropic.mjs';
import { prepareOpenAIPatch } from './openai.mjs';

const require = createRequire(import.meta.url);

/** The Qwen Code package whose cli.js is `entry`, or undefined. */
export function qwenPackageOf(entry) {
  if (!entry || path.basename(entry) !== 'cli.js') return undefined;
  let dir;
  try {
    dir = path.dirname(fs.realpathSync(entry));
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return pkg.name === '@qwen-code/qwen-code' ? { dir, version: pkg.version } : undefined;
  } catch {
    return undefined;
  }
}

/** Counters for the report: streams converted from the raw body or from SDK objects. */
export const newStats = () => ({
  anthropic: { bytes: 0, objects: 0 },
  openai: { bytes: 0, chunks: 0 },
  fallbacks: 0,
});

/**
 * Patches the Qwen Code in `pkg` (`{dir, version}`). Returns
 * `{active: true, profile}` or `{active: false, reason}`; never throws.
 */
export async function install(pkg, stats) {
  const release = VERSIONS[pkg.version];
  if (!release)
    return {
      active: false,
      reason: `Qwen Code ${pkg.version} is not a supported release (${Object.keys(VERSIONS).join(', ')})`,
    };
  const { checkAvailable } = require('../available.js');
  const status = checkAvailable();
  if (!status.available)
    return { active: false, profile: release.profile, reason: `the native binary does not load: ${status.reason}` };
  let q;
  const wanted = [...HOOK_POINTS, ...(release.extraHookPoints ?? [])];
  try {
    q = await importHookPoints(pkg.dir, pkg.version, wanted);
  } catch (err) {
    return { active: false, profile: release.profile, reason: `the hook points could not be loaded: ${err.message}` };
  }
  const missing = wanted.filter((name) => q[name] === undefined);
  if (missing.length)
    return { active: false, profile: release.profile, reason: `missing hook points: ${missing.join(', ')}` };
  const options = { profile: release.profile, host: qwenHost(q), stats };
  // Both are checked before either is patched, so a failure leaves Qwen whole.
  let patches;
  try {
    patches = [prepareAnthropicPatch(q, options), prepareOpenAIPatch(q, release, options)];
  } catch (err) {
    return { active: false, profile: release.profile, reason: err.message };
  }
  for (const patch of patches) patch();
  return { active: true, profile: release.profile };
}
