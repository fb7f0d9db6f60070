// Fails when the tests, the benchmarks, the scripts or the fuzzing drivers
// import one another: what they share lives in devtools/, which imports none
// of them (ARCHITECTURE.md, "Tests, benchmarks, fuzzing, packaging"). An
// import across makes one folder's change break another's run unseen, and
// the arrows then point both ways. Part of `npm run lint`.
//
//   node scripts/check-dev-imports.mjs          # this repository
//   node scripts/check-dev-imports.mjs DIR      # another checkout (its tests use one)
//
// A dependency is a relative `import … from`, `export … from`, `import '…'`,
// `import('…')`, `require('…')`, or a module URL (`new URL('./x.mjs',
// import.meta.url)`: a worker or child process), read from the syntax tree, so
// a path in a comment or a string is none: a script a test spawns as the thing
// under test (`scripts/check-doc-paths.mjs`) is an argument, not an import.
// TypeScript files are not read: the type tests import the package by name.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The parser the Qwen preload reads bundles with (lib/qwen/fingerprint.mjs).
const acorn = createRequire(import.meta.url)('acorn');

const root = process.argv[2]
  ? path.resolve(process.argv[2])
  : path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The folders that may import only themselves, devtools/ and the product; `recursive: false` reads only the folder's own files. */
const GROUPS = [
  { name: 'tests', dir: '__test__' },
  { name: 'tests', dir: path.join('packages', 'agent', '__test__') },
  { name: 'benchmark', dir: 'benchmark' },
  { name: 'scripts', dir: 'scripts' },
  { name: 'fuzz', dir: 'fuzz', recursive: false },
  { name: 'devtools', dir: 'devtools' },
];

const SOURCE = /\.(?:c|m)?js$/;

/** The group a repository path belongs to; undefined for the product (lib/, packages/agent/ outside its tests, …). */
function groupOf(rel) {
  const parts = rel.split(path.sep);
  for (const g of GROUPS) {
    const dirParts = g.dir.split(path.sep);
    if (dirParts.every((p, i) => parts[i] === p)) {
      if (g.recursive === false && parts.length !== dirParts.length + 1) return undefined;
      return g.name;
    }
  }
  return undefined;
}

function walk(dir, recursive) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive && entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...walk(full, true));
    } else if (entry.isFile() && SOURCE.test(entry.name)) out.push(full);
  }
  return out.sort();
}

/** The relative specifier a node names, when it is a string literal. */
const relative = (node) =>
  node?.type === 'Literal' && typeof node.value === 'string' && /^\.{1,2}\//.test(node.value) ? node.value : undefined;

/** The specifiers a syntax node (and everything under it) depends on. */
function specifiers(node, out = []) {
  if (!node || typeof node.type !== 'string') return out;
  let spec;
  if (
    node.type === 'ImportDeclaration' ||
    node.type === 'ExportAllDeclaration' ||
    node.type === 'ExportNamedDeclaration'
  )
    spec = relative(node.source);
  else if (node.type === 'ImportExpression') spec = relative(node.source);
  else if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'require')
    spec = relative(node.arguments[0]);
  else if (
    node.type === 'NewExpression' &&
    node.callee.type === 'Identifier' &&
    node.callee.name === 'URL' &&
    node.arguments[1]?.type === 'MemberExpression' &&
    node.arguments[1].object.type === 'MetaProperty' &&
    /\.(?:c|m)?js$/.test(relative(node.arguments[0]) ?? '')
  )
    spec = relative(node.arguments[0]);
  if (spec) out.push(spec);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const child of value) specifiers(child, out);
    else if (value && typeof value === 'object') specifiers(value, out);
  }
  return out;
}

/** The syntax tree of a file: as a module, else (CommonJS) as a script. */
function parse(file) {
  const text = fs.readFileSync(file, 'utf8');
  const options = { ecmaVersion: 'latest', allowHashBang: true };
  try {
    return acorn.parse(text, { ...options, sourceType: 'module' });
  } catch (moduleError) {
    if (file.endsWith('.mjs')) throw moduleError;
    return acorn.parse(text, { ...options, sourceType: 'script', allowReturnOutsideFunction: true });
  }
}

/** `[{from, to}]`: each relative dependency of `file`, as repository paths. */
function dependencies(file) {
  return specifiers(parse(file)).map((spec) => ({
    from: path.relative(root, file),
    to: path.relative(root, path.resolve(path.dirname(file), spec)),
  }));
}

const violations = [];
for (const g of GROUPS) {
  for (const file of walk(path.join(root, g.dir), g.recursive !== false)) {
    const from = groupOf(path.relative(root, file));
    if (from !== g.name) continue; // a nested folder that is its own group
    let deps;
    try {
      deps = dependencies(file);
    } catch (error) {
      violations.push(`${path.relative(root, file)} cannot be read as JavaScript (${error.message})`);
      continue;
    }
    for (const dep of deps) {
      const to = groupOf(dep.to);
      if (to === undefined || to === from || to === 'devtools') continue;
      violations.push(`${dep.from} imports ${dep.to} (${from} → ${to})`);
    }
  }
}

for (const v of violations) console.error(`check-dev-imports: ${v}`);
if (violations.length) {
  console.error(
    'check-dev-imports: the tests, benchmark/, scripts/ and fuzz/ import what they share from devtools/, ' +
      'and devtools/ imports none of them: move the module into devtools/',
  );
  process.exit(1);
}
console.log('check-dev-imports: tests, benchmark/, scripts/ and fuzz/ import each other only through devtools/');
