// Importing a class Qwen Code's published bundle defines but does not export
// (its chunks export only what other chunks import), so a test can drive
// Qwen's own code rather than a copy of it. A module loader hook
// (`module.register`) appends `export { Name };` to the one chunk that
// defines the name, as it is loaded; nothing else changes, and the chunk's
// imports resolve to the very module instances Qwen uses. The chunk must not
// have been imported before in the process.
//
// This file is both the helper (importUnexported, in the test's thread) and
// the hook module (initialize / load, in the loader's thread).
import fs from 'node:fs';
import path from 'node:path';
import nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';

// ---- loader thread ----------------------------------------------------------

/** Chunk URL → names to export, filled by every registration. */
const wanted = new Map();

export function initialize(data) {
  wanted.set(data.url, [...(wanted.get(data.url) ?? []), data.name]);
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const names = wanted.get(url);
  if (!names) return result;
  let source = String(result.source);
  for (const name of names) {
    // Registering the same hook module twice may run this twice on one load.
    const line = `export { ${name} };`;
    if (!source.includes(`\n${line}\n`)) source += `\n${line}\n`;
  }
  return { ...result, source };
}

// ---- test thread ------------------------------------------------------------

/** Why importUnexported cannot run here, or `undefined` (loader hooks came in Node 20.6). */
export const unexportedSkip =
  typeof nodeModule.register === 'function' ? undefined : `module.register needs Node 20.6, this is ${process.version}`;

/** The one chunk of the build in `packageDir` that defines `name` as a class or function. */
function definingChunk(packageDir, name) {
  const chunks = path.join(packageDir, 'chunks');
  const definition = new RegExp(`\\n(?:var ${name} = class\\b|function ${name}\\()`);
  const found = fs
    .readdirSync(chunks)
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(chunks, f))
    .filter((f) => definition.test(fs.readFileSync(f, 'utf8')));
  if (found.length !== 1) {
    throw new Error(`${name} is defined in ${found.length} chunks of ${packageDir}, expected exactly one`);
  }
  return found[0];
}

/** Qwen's own `name` from the build in `packageDir`, imported from the chunk that defines it. */
export async function importUnexported(packageDir, name) {
  const url = pathToFileURL(definingChunk(packageDir, name)).href;
  nodeModule.register(import.meta.url, { data: { url, name } });
  const chunk = await import(url);
  if (!(name in chunk)) throw new Error(`${name}: the loader hook did not export it from ${url}`);
  return chunk[name];
}
