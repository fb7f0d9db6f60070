// Fails when a module depends on itself through others: in the Rust core
// (`core/src`, by its `crate::` / `super::` paths) and in the JS library
// (`lib/`, by its relative `require` and `import`). Part of `npm run lint`.
//
//   node scripts/check-cycles.mjs          # prints each cycle, exits 1 if any
//   node scripts/check-cycles.mjs --graph  # prints every module's dependencies
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

function walk(dir, keep) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full, keep));
    else if (keep(entry.name)) out.push(full);
  }
  return out.sort();
}

/** Source text without comments and string contents (a path in a doc comment is no dependency). */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
}

/** The Rust module of a file under core/src, as a path of names (`openai::template`). */
function rustModule(file, srcDir) {
  const rel = path.relative(srcDir, file).replace(/\.rs$/, '').split(path.sep);
  if (rel.at(-1) === 'mod' || rel.at(-1) === 'lib') rel.pop();
  return rel;
}

/** `{file: Set(file)}` of the Rust core: which module files each file's paths name. */
function rustGraph() {
  const srcDir = path.join(root, 'core', 'src');
  const files = walk(srcDir, (n) => n.endsWith('.rs'));
  const byModule = new Map(files.map((f) => [rustModule(f, srcDir).join('::'), f]));
  const texts = new Map(files.map((f) => [f, rustCode(fs.readFileSync(f, 'utf8'))]));
  /** A module file's `pub use` re-exports: item name → the path it names. */
  const reexports = new Map();
  for (const [file, text] of texts) {
    const self = rustModule(file, srcDir);
    const map = new Map();
    for (const m of text.matchAll(/\bpub(?:\([^)]*\))?\s+use\s+([^;]+);/g)) {
      for (const item of expandUse(m[1])) {
        const segments = absolute(item.split('::'), self, texts.get(file));
        if (segments) map.set(segments.at(-1), segments);
      }
    }
    reexports.set(file, map);
  }
  /** The file that defines what `segments` names: the longest module prefix, through re-exports. */
  const resolve = (segments, depth = 0) => {
    for (let n = segments.length; n > 0; n--) {
      const f = byModule.get(segments.slice(0, n).join('::'));
      if (!f) continue;
      const via = n < segments.length ? reexports.get(f).get(segments[n]) : undefined;
      if (via && depth < 8 && via.join('::') !== segments.join('::')) return resolve(via, depth + 1) ?? f;
      return f;
    }
    return undefined;
  };
  const graph = new Map();
  for (const file of files) {
    const self = rustModule(file, srcDir);
    const deps = new Set();
    const text = texts.get(file);
    const add = (segments) => {
      const target = segments && resolve(segments);
      if (target && target !== file) deps.add(target);
    };
    // `crate::a::b`, `super::a`, `self::a`, and a child module named bare
    // (`template::Header`), with `{a, b::{c}}` groups.
    const children = [...text.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/gm)].map((m) => m[1]);
    const heads = ['crate', 'super', 'self', ...children].join('|');
    for (const m of text.matchAll(new RegExp(`(?<![:\\w])(${heads})((?:::\\w+)*)(?:::\\{([^;]*?)\\})?`, 'g'))) {
      // `pub(crate)`, `self.x`, a child's name alone: no path.
      if (!m[2] && m[3] === undefined) continue;
      for (const g of m[3] !== undefined ? splitGroup(m[3]) : ['']) {
        add(absolute([m[1], ...m[2].split('::').filter(Boolean), ...g.split('::').filter(Boolean)], self, text));
      }
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Rust source without comments, string and character literals, and its test module. */
function rustCode(text) {
  const literals = text
    .replace(/\/\/.*$/gm, '')
    .replace(/\br(#*)"[\s\S]*?"\1/g, '""')
    .replace(/b?'(?:[^'\\\n]|\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.))'/g, "' '");
  return code(literals).split(/#\[cfg\(test\)\]\s*mod\s+\w+\s*\{/)[0];
}

/** A path from inside module `self` as a path from the crate root; undefined when it is not the crate's. */
function absolute(segments, self, text) {
  const [head, ...rest] = segments;
  if (head === 'crate') return rest;
  // A module's path already names `mod.rs` by its folder, so `self` is the
  // module and `super` its parent for both kinds of file.
  if (head === 'super') return [...self.slice(0, -1), ...rest];
  if (head === 'self') return [...self, ...rest];
  if (new RegExp(`^\\s*(?:pub(?:\\([^)]*\\))?\\s+)?mod\\s+${head}\\s*;`, 'm').test(text))
    return [...self, head, ...rest];
  return undefined;
}

/** The paths a `use` tree names (`a::{b, c::d}` → `a::b`, `a::c::d`). */
function expandUse(tree) {
  const t = tree.replace(/\s+/g, '');
  const m = t.match(/^([\w:]*?)::\{(.*)\}$/);
  if (!m) return [t.replace(/as\w+$/, '')];
  return splitGroup(m[2]).flatMap((g) => expandUse(g).map((x) => `${m[1]}::${x}`));
}

/** The top-level items of a `{a, b::{c, d}, e}` use group, nested groups flattened to paths. */
function splitGroup(text) {
  const out = [];
  let depth = 0;
  let start = 0;
  const push = (s) => {
    const t = s.trim();
    if (!t) return;
    const inner = t.match(/^([\w:]*?)::\{([\s\S]*)\}$/);
    if (inner) for (const x of splitGroup(inner[2])) out.push(`${inner[1]}::${x}`);
    else out.push(t.replace(/\s+as\s+\w+$/, ''));
  };
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}') depth--;
    else if (text[i] === ',' && depth === 0) {
      push(text.slice(start, i));
      start = i + 1;
    }
  }
  push(text.slice(start));
  return out;
}

/** `{file: Set(file)}` of the JS library: relative requires and imports. */
function jsGraph() {
  const files = walk(path.join(root, 'lib'), (n) => /\.(c|m)?js$/.test(n));
  const graph = new Map();
  for (const file of files) {
    const text = fs
      .readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const deps = new Set();
    for (const m of text.matchAll(/(?:require\(|from\s+|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = jsFile(path.resolve(path.dirname(file), m[1]));
      if (target && target !== file) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The file a relative specifier names: as written, with `.js`, or a folder's `index.js`. */
function jsFile(target) {
  for (const candidate of [target, `${target}.js`, path.join(target, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The strongly connected components of more than one module (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const visit = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) visit(v);
  return found;
}

const rel = (f) => path.relative(root, f);
let failed = false;
for (const [name, graph] of [
  ['core/src', rustGraph()],
  ['lib', jsGraph()],
]) {
  if (process.argv.includes('--graph'))
    for (const [f, deps] of graph) console.log(`${rel(f)} -> ${[...deps].map(rel).join(', ')}`);
  for (const component of cycles(graph)) {
    failed = true;
    console.error(
      `check-cycles: ${name}: an import cycle of ${component.length} modules: ${component.map(rel).join(', ')}`,
    );
  }
}
if (failed) process.exit(1);
console.log('check-cycles: no import cycle in core/src or lib');
