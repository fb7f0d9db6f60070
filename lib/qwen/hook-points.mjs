// Importing Qwen Code's hook points: the bundle is esbuild ESM, code-split
// into `chunks/*.js` whose names are content hashes, and inspect.mjs has
// found which chunk exports each name. Importing that chunk by the very URL
// `cli.js` imports it gives the very module instance Qwen uses (Node keeps
// one instance per resolved URL, and resolves a file URL to its real path).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `{name: value}` for each of `wanted` that `files` (`{name: chunk file}`)
 * locates and its chunk exports; nothing else. With `within` (the Qwen
 * package folder), a file whose real path is not inside that folder's real
 * path, at the moment it is imported, is not imported: this throws.
 */
export async function importHookPoints(files, wanted, { within } = {}) {
  const out = {};
  const modules = new Map();
  const root = within === undefined ? undefined : fs.realpathSync(within);
  for (const name of wanted) {
    const file = files[name];
    if (typeof file !== 'string') continue;
    if (!modules.has(file)) modules.set(file, import(pathToFileURL(root ? realPathInside(root, file) : file).href));
    const mod = await modules.get(file);
    if (name in mod) out[name] = mod[name];
  }
  return out;
}

/** The real path of `file` when it is inside the folder whose real path is `root`; throws otherwise. */
function realPathInside(root, file) {
  const real = fs.realpathSync(file);
  const rel = path.relative(root, real);
  if (rel === '' || path.isAbsolute(rel) || rel.split(path.sep)[0] === '..')
    throw new Error(`${file} is not inside Qwen Code's package ${root}`);
  return real;
}
