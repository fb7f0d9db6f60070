// Finding Qwen Code's hook points in its published bundle. The bundle is
// esbuild ESM, code-split into `chunks/*.js` whose names are content hashes
// that change every release, so each name is found by the chunk that exports
// it. Importing that chunk by the very URL `cli.js` imports it gives the very
// module instance Qwen uses (Node keeps one instance per resolved URL). The
// result is cached per Qwen version and bundle path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const EXPORT_BLOCK = /\nexport \{([^}]*)\};?/g;

/** The names a chunk's `export { … }` blocks export (`a as b` exports b). */
function exportedNames(text) {
  const names = [];
  for (const m of text.matchAll(EXPORT_BLOCK)) {
    for (const item of m[1].split(',')) {
      const name = item
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) names.push(name);
    }
  }
  return names;
}

function cacheFile(packageDir, version) {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const key = createHash('sha256').update(packageDir).digest('hex').slice(0, 16);
  return path.join(base, 'toolcall-stream', `qwen-${version}-${key}.json`);
}

/**
 * `{name: chunk file}` for every wanted name some chunk exports (a name no
 * chunk exports is absent).
 */
export function findExporters(packageDir, version, wanted) {
  const file = cacheFile(packageDir, version);
  let cached = {};
  try {
    cached = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (wanted.every((w) => w in cached && fs.existsSync(cached[w]))) return cached;
  } catch {
    // No cache yet: scan.
  }
  const chunksDir = path.join(packageDir, 'chunks');
  const found = { ...cached };
  const rest = new Set(wanted.filter((w) => !(w in found && fs.existsSync(found[w]))));
  for (const f of fs.readdirSync(chunksDir).sort()) {
    if (rest.size === 0) break;
    if (!f.endsWith('.js')) continue;
    const full = path.join(chunksDir, f);
    for (const name of exportedNames(fs.readFileSync(full, 'utf8'))) {
      if (rest.delete(name)) found[name] = full;
    }
  }
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(found));
  } catch {
    // A read-only home: scan again next time.
  }
  return found;
}

/** Imports the chunks that export `wanted`; returns `{name: value}` of those found. */
export async function importHookPoints(packageDir, version, wanted) {
  const files = findExporters(packageDir, version, wanted);
  const out = {};
  const modules = new Map();
  for (const [name, file] of Object.entries(files)) {
    if (!modules.has(file)) modules.set(file, import(pathToFileURL(file).href));
    const mod = await modules.get(file);
    if (name in mod) out[name] = mod[name];
  }
  return out;
}
