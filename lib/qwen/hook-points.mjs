// Importing Qwen Code's hook points: the bundle is esbuild ESM, code-split
// into `chunks/*.js` whose names are content hashes, and inspect.mjs has
// found which chunk exports each name. Importing that chunk by the very URL
// `cli.js` imports it gives the very module instance Qwen uses (Node keeps
// one instance per resolved URL).
import { pathToFileURL } from 'node:url';

/**
 * `{name: value}` for each of `wanted` that `files` (`{name: chunk file}`)
 * locates and its chunk exports; nothing else.
 */
export async function importHookPoints(files, wanted) {
  const out = {};
  const modules = new Map();
  for (const name of wanted) {
    const file = files[name];
    if (typeof file !== 'string') continue;
    if (!modules.has(file)) modules.set(file, import(pathToFileURL(file).href));
    const mod = await modules.get(file);
    if (name in mod) out[name] = mod[name];
  }
  return out;
}
