// Importing Qwen Code's hook points: the bundle is esbuild ESM, code-split
// into `chunks/*.js` whose names are content hashes, and inspect.mjs has
// found which chunk exports each name. Importing that chunk by the very URL
// `cli.js` imports it gives the very module instance Qwen uses (Node keeps
// one instance per resolved URL, and resolves a file URL to its real path).
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/**
 * `{name: value}` for each of `wanted` that `files` (`{name: chunk file}`)
 * locates and its chunk exports; nothing else. Checked as each file is
 * imported, so the checks hold at the moment of use: with `within` (the
 * Qwen package folder), its real path must be inside that folder's real
 * path; with `hashes` (`{file: sha256}`, a cached decision's), its content
 * must still be what the hash says. A file that fails either is not
 * imported: this throws.
 */
export async function importHookPoints(files, wanted, { within, hashes } = {}) {
  const out = {};
  const modules = new Map();
  const root = within === undefined ? undefined : fs.realpathSync(within);
  for (const name of wanted) {
    const file = files[name];
    if (typeof file !== 'string') continue;
    if (!modules.has(file)) {
      const real = root ? realPathInside(root, file) : file;
      if (hashes?.[file] !== undefined && sha256(fs.readFileSync(real)) !== hashes[file])
        throw new Error(`${file} changed since its hash was taken`);
      modules.set(file, import(pathToFileURL(real).href));
    }
    const mod = await modules.get(file);
    if (name in mod) out[name] = mod[name];
  }
  return out;
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The real path of `file` when it is inside the folder whose real path is `root`; throws otherwise. */
function realPathInside(root, file) {
  const real = fs.realpathSync(file);
  const rel = path.relative(root, real);
  if (rel === '' || path.isAbsolute(rel) || rel.split(path.sep)[0] === '..')
    throw new Error(`${file} is not inside Qwen Code's package ${root}`);
  return real;
}
