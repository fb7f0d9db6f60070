// What a Qwen Code bundle's code is, as opposed to what its version number
// says. The preload replaces a few of Qwen's functions with native ones; it
// may do so only where the running bundle's functions are ones whose
// behaviour the native converters reproduce. A function's fingerprint is a
// hash of its syntax tree and of every function of the bundle it reaches
// (module-level functions and classes, in its own chunk and through the
// chunks it imports from, and the methods of its class it calls on `this`),
// normalised so that what esbuild varies between two builds of the same
// source does not count:
//   - comments and `/* @__PURE__ */` marks, and parentheses (a syntax tree has
//     none: `(function(){})()` and `(function(){}())` are one call);
//   - the digits esbuild appends to a local it renames (`debugLogger2`);
//   - content-hashed chunk names in strings (`chunk-N3HID7XO.js`);
//   - install paths of bundled dependencies (`node_modules/.pnpm/x@1/…`).
// Everything else — every operator, literal, property name and call — counts.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const acorn = require('acorn');

/** A parsed chunk: its top-level declarations and imports by local name. */
class Chunk {
  constructor(file, text) {
    this.file = file;
    this.ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' });
    /** local name → declaration node (function, class, or a variable's initialiser) */
    this.declarations = new Map();
    /** local name → { source, imported } */
    this.imports = new Map();
    /** exported name → local name */
    this.exports = new Map();
    for (const node of this.ast.body) this.#index(node);
  }

  #index(node) {
    switch (node.type) {
      case 'FunctionDeclaration':
      case 'ClassDeclaration':
        if (node.id) this.declarations.set(node.id.name, node);
        break;
      case 'VariableDeclaration':
        for (const d of node.declarations)
          if (d.id.type === 'Identifier' && d.init) this.declarations.set(d.id.name, d);
        break;
      case 'ImportDeclaration':
        for (const s of node.specifiers)
          if (s.type === 'ImportSpecifier')
            this.imports.set(s.local.name, { source: node.source.value, imported: nameOf(s.imported) });
        break;
      case 'ExportNamedDeclaration':
        if (node.declaration) this.#index(node.declaration);
        for (const s of node.specifiers) this.exports.set(nameOf(s.exported), nameOf(s.local));
        break;
    }
  }

  /** The class declared under `className` (a `class X {}` or `var X = class {}`). */
  classBody(className) {
    const d = this.declarations.get(className);
    const node = d?.type === 'VariableDeclarator' ? d.init : d;
    return node?.type === 'ClassDeclaration' || node?.type === 'ClassExpression' ? node : undefined;
  }
}

const nameOf = (node) => (node.type === 'Literal' ? String(node.value) : node.name);

/** esbuild's renaming suffix and content hashes do not count. */
function normalName(name) {
  return name.replace(/^(.*[^\d])\d+$/, '$1');
}
function normalString(value) {
  return value
    .replace(/\b([A-Za-z][\w-]*?)-[A-Z0-9]{8}\.js\b/g, '$1-#.js')
    .replace(/(?:[\w.@/+-]*\/)?node_modules\/[^\s'"`)]*/g, 'node_modules/#');
}

const SKIPPED_KEYS = new Set(['start', 'end', 'loc', 'range', 'raw', 'sourceType']);

/** A node that stands on a line of its own in source: a statement or a declaration. */
const isStatement = (n) => /(?:Statement|Declaration)$/.test(n.type);

/**
 * The canonical text of a syntax tree; calls `reach(name)` for every
 * identifier it meets and `reachMethod(name)` for every `this.name`.
 * `shallow` writes each statement nested in `node` as `§`: the text of
 * `node`'s own line.
 */
function canonical(node, visit, { shallow = false } = {}) {
  const out = [];
  // `name` in `a.name` and `{name: v}` is a property, not a reference.
  const walk = (n, isProperty = false) => {
    if (n === null || n === undefined) return out.push('_');
    if (Array.isArray(n)) {
      out.push('[');
      for (const item of n) walk(item);
      return out.push(']');
    }
    if (typeof n !== 'object') return out.push(JSON.stringify(n));
    if (shallow && n !== node && isStatement(n)) return out.push('§');
    if (n.type === 'Identifier') {
      if (!isProperty) visit.reach?.(n.name);
      return out.push(`#${isProperty ? n.name : normalName(n.name)}`);
    }
    if (n.type === 'Literal') {
      if (typeof n.value === 'string') return out.push(JSON.stringify(normalString(n.value)));
      if (n.regex) return out.push(`/${n.regex.pattern}/${n.regex.flags}`);
      return out.push(String(n.value));
    }
    if (n.type === 'TemplateElement') return out.push(JSON.stringify(normalString(n.value.cooked ?? n.value.raw)));
    if (n.type === 'MemberExpression' && n.object.type === 'ThisExpression' && !n.computed)
      visit.reachMethod?.(nameOf(n.property));
    out.push(`(${n.type}`);
    for (const key of Object.keys(n)) {
      if (key === 'type' || SKIPPED_KEYS.has(key)) continue;
      out.push(` ${key}:`);
      const keyIsProperty =
        (key === 'property' && n.type === 'MemberExpression' && !n.computed) || (key === 'key' && !n.computed);
      walk(n[key], keyIsProperty);
    }
    out.push(')');
  };
  walk(node);
  return out.join('');
}

/**
 * The lines of a function: a short hash of the canonical text of the
 * function's head and of each statement in it, nested statements left out
 * (`shallow`), in source order. One statement changed changes one line, so
 * two versions of a function can be compared by how many lines they share.
 */
function lineHashes(node) {
  const lines = [];
  const walk = (n) => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    if (n === node || isStatement(n))
      lines.push(
        createHash('sha256')
          .update(canonical(n, {}, { shallow: true }))
          .digest('hex')
          .slice(0, 8),
      );
    for (const key of Object.keys(n)) if (key !== 'type' && !SKIPPED_KEYS.has(key)) walk(n[key]);
  };
  walk(node);
  return lines;
}

/**
 * How much of `a` and `b`, two `{function name: lines}` maps, is the same
 * code: the lines they share (by function, counted with repeats) over the
 * lines either has, from 0 to 1.
 */
export function linesShared(a, b) {
  let shared = 0;
  let all = 0;
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const counts = new Map();
    for (const line of a[name] ?? []) counts.set(line, (counts.get(line) ?? 0) + 1);
    let common = 0;
    for (const line of b[name] ?? []) {
      const n = counts.get(line) ?? 0;
      if (n > 0) {
        common++;
        counts.set(line, n - 1);
      }
    }
    shared += common;
    all += (a[name]?.length ?? 0) + (b[name]?.length ?? 0) - common;
  }
  return all === 0 ? 1 : shared / all;
}

/** Reads and parses the chunks of one bundle, each once. */
export class Bundle {
  #chunks = new Map();

  constructor(packageDir) {
    this.dir = path.join(packageDir, 'chunks');
  }

  /** The chunk files whose code this bundle has parsed: what its fingerprints were read from. */
  get files() {
    return [...this.#chunks.keys()];
  }

  chunk(file) {
    let c = this.#chunks.get(file);
    if (!c) {
      c = new Chunk(file, fs.readFileSync(file, 'utf8'));
      this.#chunks.set(file, c);
    }
    return c;
  }

  /** The chunk files whose text contains `needle`. */
  filesContaining(needle) {
    const found = [];
    for (const f of fs.readdirSync(this.dir).sort()) {
      if (!f.endsWith('.js')) continue;
      const full = path.join(this.dir, f);
      if (fs.readFileSync(full, 'utf8').includes(needle)) found.push(full);
    }
    return found;
  }

  /**
   * The fingerprint of `target` (`{file, className?, name}`): `hash` covers
   * its canonical text and everything it reaches, in the order first reached;
   * `functions` has each reached function's own hash by name, so that a
   * changed fingerprint can name the function that changed; `lines()` each
   * one's lines (lineHashes), to tell how close changed code is to known code. Names in `stop`
   * (the host's own functions the preload calls rather than replaces) are not
   * followed.
   */
  fingerprint(target, { stop = new Set() } = {}) {
    const seen = new Set();
    const queue = [];
    const functions = {};
    const nodes = {};
    const whole = createHash('sha256');
    const enqueue = (chunk, name, className) => {
      const key = `${chunk.file}\0${className ?? ''}\0${name}`;
      if (seen.has(key)) return;
      seen.add(key);
      queue.push({ chunk, name, className });
    };
    enqueue(this.chunk(target.file), target.name, target.className);
    while (queue.length) {
      const { chunk, name, className } = queue.shift();
      const node = className ? methodOf(chunk.classBody(className), name) : chunk.declarations.get(name);
      const label = `${className ? `${normalName(className)}.` : ''}${normalName(name)}`;
      if (!node) {
        // A `this.x` that is a field, not a method, is data; the target itself must exist.
        if (seen.size === 1) throw new Error(`${label} is not in ${path.basename(chunk.file)}`);
        continue;
      }
      const visit = {
        reach: (id) => {
          if (stop.has(normalName(id))) return;
          const r = this.#locate(chunk, id);
          if (r) enqueue(r.chunk, r.name);
        },
        reachMethod: className ? (m) => enqueue(chunk, m, className) : undefined,
      };
      const text = canonical(node, visit);
      let key = label;
      for (let i = 2; key in functions; i++) key = `${label}#${i}`;
      functions[key] = createHash('sha256').update(text).digest('hex').slice(0, 16);
      nodes[key] = node;
      whole.update(`${key}=${text}\n`);
    }
    // The lines are wanted only to compare code that is not known, so made on demand.
    const lines = () => Object.fromEntries(Object.entries(nodes).map(([key, node]) => [key, lineHashes(node)]));
    return { hash: whole.digest('hex').slice(0, 16), functions, lines };
  }

  /** Where a name used in `chunk` is declared as a function or class, following imports. */
  #locate(chunk, name, depth = 0) {
    if (depth > 8) return undefined;
    const d = chunk.declarations.get(name);
    if (d) return isCode(d) ? { chunk, name } : undefined;
    const imp = chunk.imports.get(name);
    if (!imp || !imp.source.startsWith('.')) return undefined;
    const file = path.resolve(path.dirname(chunk.file), imp.source);
    if (!fs.existsSync(file)) return undefined;
    const from = this.chunk(file);
    const local = from.exports.get(imp.imported) ?? imp.imported;
    return this.#locate(from, local, depth + 1);
  }
}

/** A declaration that is code: a function or a class (not data, not an object of many things). */
function isCode(d) {
  const node = d.type === 'VariableDeclarator' ? unwrapName(d.init) : d;
  return (
    node?.type === 'FunctionDeclaration' ||
    node?.type === 'ClassDeclaration' ||
    node?.type === 'FunctionExpression' ||
    node?.type === 'ArrowFunctionExpression' ||
    node?.type === 'ClassExpression'
  );
}

/** `__name(fn, "x")`, esbuild's keep-names wrapper, stands for `fn`. */
function unwrapName(node) {
  if (node?.type === 'CallExpression' && node.callee.type === 'Identifier' && /^__name\d*$/.test(node.callee.name))
    return node.arguments[0];
  return node;
}

function methodOf(cls, name) {
  return cls?.body.body.find((m) => m.type === 'MethodDefinition' && !m.computed && nameOf(m.key) === name);
}

/** The parameter names of a class method, or undefined when it is missing. */
export function methodParams(bundle, file, className, name) {
  const m = methodOf(bundle.chunk(file).classBody(className), name);
  return m?.value.params.map((p) => (p.type === 'Identifier' ? normalName(p.name) : p.type));
}
