// Fails when a document or a code comment cites a path of this repository
// that does not exist: `core/src/…`, `lib/…`, `src/…`, `__test__/…`,
// `scripts/…`, `docs/…`, `packages/…`, in every tracked `.md` file and in the
// comments of every tracked source file (.js, .mjs, .cjs, .ts, .mts, .rs);
// and a Rust file named alone (a `.rs` name in backticks) that no file of the
// repository is called. Part of `npm run lint`.
//
// A path is resolved from the repository root, from the package it is
// written in (a file in packages/agent/ citing `lib/…` names
// packages/agent/lib/), or from the citing file's folder. Not citations of
// this repository: URLs, `../shared/…` paths, globs and patterns (`…-*`,
// `{a,b}`, `<name>`), Qwen Code's own sources (`packages/core/…`,
// `packages/cli/…`, any `packages/` folder this repository does not have),
// and another project's TypeScript sources (`src/….ts` of jsonrepair: this
// repository's `src/` is Rust). Fixtures and generated files are not read.
//
//   node scripts/check-doc-paths.mjs   # prints each missing citation, exits 1 if any
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const SOURCE = /\.(c|m)?js$|\.(m)?ts$|\.rs$/;
const SKIPPED = [/^__test__\/fixtures\//, /^lib\/generated\//, /(^|\/)node_modules\//, /^fuzz\/corpus\//];

/** A cited path: one of the prefixes, not inside a longer path or a URL. */
const CITATION = /(?<![\w./~:@-])((?:core\/src|lib|src|__test__|scripts|docs|packages)\/[\w.@/-]*)/g;

/** Tracked text files to read. */
function files() {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  return out
    .split('\0')
    .filter(Boolean)
    .filter((f) => (f.endsWith('.md') || SOURCE.test(f)) && !SKIPPED.some((re) => re.test(f)))
    .filter((f) => fs.existsSync(path.join(root, f)));
}

/** The comments of a source file (line, block and doc comments), one entry per line. */
function commentLines(text) {
  const lines = [];
  const pattern = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
  for (const m of text.matchAll(pattern)) {
    const token = m[0];
    if (!token.startsWith('/')) continue; // a string literal: not a comment
    const first = text.slice(0, m.index).split('\n').length;
    token.split('\n').forEach((line, i) => lines.push([first + i, line]));
  }
  return lines;
}

/** The packages of this repository (`packages/agent`), whose own `lib/…` a file inside them may cite. */
const ownPackages = fs
  .readdirSync(path.join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => `packages/${d.name}`);

function exists(cite, file) {
  const bases = [''];
  const own = ownPackages.find((p) => file.startsWith(`${p}/`));
  if (own) bases.push(own);
  if (file.includes('/')) bases.push(path.dirname(file));
  return bases.some((base) => fs.existsSync(path.join(root, base, cite)));
}

function isForeign(cite) {
  if (cite.startsWith('src/')) return /\.(c|m)?[jt]s$/.test(cite);
  // Qwen Code's sources, cited from its repository.
  if (!cite.startsWith('packages/')) return false;
  return !ownPackages.some((p) => cite === p || cite.startsWith(`${p}/`));
}

const tracked = files();
/** The names of the repository's Rust files (a `.rs` file cited by its name alone must be one). */
const rustNames = new Set(
  execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '*.rs'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean)
    .map((f) => path.basename(f)),
);
const BARE_RUST = /`([\w-]+\.rs)`/g;

const missing = [];
for (const file of tracked) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const lines = file.endsWith('.md') ? text.split('\n').map((line, i) => [i + 1, line]) : commentLines(text);
  for (const [n, line] of lines) {
    for (const m of line.matchAll(CITATION)) {
      const before = line.slice(0, m.index);
      const after = line[m.index + m[0].length] ?? '';
      if (/\.\.\/shared\/$/.test(before) || /https?:\/\/\S*$/.test(before)) continue;
      if ('*{<…'.includes(after) && after !== '') continue;
      // Trailing punctuation ends the path.
      const cite = m[1].replace(/[.,;:)]+$/, '').replace(/\/$/, '');
      if (!cite.includes('/') || isForeign(cite)) continue;
      if (!exists(cite, file)) missing.push(`${file}:${n}: ${cite}`);
    }
    for (const m of line.matchAll(BARE_RUST)) {
      if (!rustNames.has(m[1])) missing.push(`${file}:${n}: ${m[1]}`);
    }
  }
}
for (const m of missing) console.error(`check-doc-paths: ${m} does not exist`);
if (missing.length) process.exit(1);
console.log('check-doc-paths: every cited repository path exists');
