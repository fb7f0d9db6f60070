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
// Sections and anchors are checked too, in the same places:
// - `FILE.md §N` names a section of that document: a numbered heading
//   (`## 3. …` is §3) or a bold label (`**§3.2 …**` is §3.2). A `§N` with no
//   document before it (a list such as `§2.4, §2.5`, or a citation wrapped
//   onto the next line) is a section of docs/behaviour.md, the one document
//   the code cites by section, or of the citing document itself when that
//   document has numbered sections. A `§N` after `spec` or `quirks` cites a
//   document outside the repository and always fails.
// - `docs/qwen.md#how-it-hooks-in` (a Markdown link, or a path in a comment) and `(#anchor)`
//   (a link within the document) name a heading of that document, by
//   GitHub's slug: lower case, punctuation dropped, each space a hyphen, a
//   repeated heading suffixed `-1`, `-2`, ….
//
//   node scripts/check-doc-paths.mjs          # prints each missing citation, exits 1 if any
//   node scripts/check-doc-paths.mjs <root>   # the same over another checkout (the tests' fixtures)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2]
  ? path.resolve(process.argv[2])
  : path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

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
const ownPackages = fs.existsSync(path.join(root, 'packages'))
  ? fs
      .readdirSync(path.join(root, 'packages'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `packages/${d.name}`)
  : [];

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

/** GitHub's anchor of a heading: its text lower-cased, punctuation dropped, each space a hyphen. */
function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** A document's numbered sections and heading anchors (`null` when it is no file of the checkout). */
const documents = new Map();
function documentAt(file) {
  if (documents.has(file)) return documents.get(file);
  const full = path.join(root, file);
  let doc = null;
  if (fs.existsSync(full) && fs.statSync(full).isFile()) {
    doc = { sections: new Set(), anchors: new Set() };
    const seen = new Map();
    let fenced = false;
    for (const line of fs.readFileSync(full, 'utf8').split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced) continue;
      const heading = /^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
      if (heading) {
        const number = /^§?(\d+(?:\.\d+)*)\.?(?:\s|$)/.exec(heading[1]);
        if (number) doc.sections.add(number[1]);
        const base = slug(heading[1]);
        const count = seen.get(base) ?? 0;
        doc.anchors.add(count ? `${base}-${count}` : base);
        seen.set(base, count + 1);
      }
      for (const m of line.matchAll(/\*\*§(\d+(?:\.\d+)*)/g)) doc.sections.add(m[1]);
    }
  }
  documents.set(file, doc);
  return doc;
}

/**
 * The document a citation names, relative to the repository root: a link in
 * a Markdown file is relative to that file's folder; otherwise the root, the
 * citing package, then the citing file's folder. `null` when none exists.
 */
function documentPath(cite, file) {
  const own = ownPackages.find((p) => file.startsWith(`${p}/`));
  const dir = path.dirname(file);
  const bases = file.endsWith('.md') ? [dir, '', own] : ['', own, dir];
  for (const base of bases) {
    if (base === undefined) continue;
    const rel = path.normalize(path.join(base, cite));
    if (!rel.startsWith('..') && documentAt(rel)) return rel;
  }
  return null;
}

/** The document a `§N` with no document before it belongs to. */
const DEFAULT_DOCUMENT = 'docs/behaviour.md';
function defaultDocument(file) {
  return file.endsWith('.md') && documentAt(file)?.sections.size ? file : DEFAULT_DOCUMENT;
}

const SECTION = /§(\d+(?:\.\d+)*)/g;
/** A Markdown link with an anchor: `[text](file.md#anchor)` or `[text](#anchor)`. */
const LINK_ANCHOR = /\]\(([^)\s#]*)#([^)\s]+)\)/g;
/** A document and anchor outside a link: `docs/qwen.md#how-it-hooks-in`. */
const PATH_ANCHOR = /(?<!\]\()(?<![\w./-])([\w./-]+\.md)#([\w-]+)/g;

/** Dangling sections and anchors in one line of a file. */
function danglingReferences(file, line) {
  const out = [];
  for (const m of line.matchAll(SECTION)) {
    const before = line.slice(0, m.index);
    if (/\b(spec|quirks)\s*$/i.test(before)) {
      out.push(`${before.match(/\b(spec|quirks)\s*$/i)[1]} §${m[1]} (a document outside the repository)`);
      continue;
    }
    const named = /([\w./-]+\.md)\s*$/.exec(before)?.[1];
    const doc = named ? documentPath(named, file) : defaultDocument(file);
    if (!doc) out.push(`${named} §${m[1]} (no such document)`);
    else if (!documentAt(doc).sections.has(m[1])) out.push(`${doc} §${m[1]}`);
  }
  const anchored = [];
  if (file.endsWith('.md')) for (const m of line.matchAll(LINK_ANCHOR)) anchored.push([m[1], m[2]]);
  for (const m of line.matchAll(PATH_ANCHOR)) {
    if (!/https?:\/\/\S*$/.test(line.slice(0, m.index))) anchored.push([m[1], m[2]]);
  }
  for (const [target, anchor] of anchored) {
    if (/^[a-z]+:/i.test(target)) continue; // a URL
    if (target && !target.endsWith('.md')) continue;
    const doc = target ? documentPath(target, file) : file;
    if (!doc) out.push(`${target}#${anchor} (no such document)`);
    else if (!documentAt(doc).anchors.has(decodeURIComponent(anchor))) out.push(`${doc}#${anchor}`);
  }
  return out;
}

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
    for (const cite of danglingReferences(file, line)) missing.push(`${file}:${n}: ${cite}`);
  }
}
for (const m of missing) console.error(`check-doc-paths: ${m} does not exist`);
if (missing.length) process.exit(1);
console.log('check-doc-paths: every cited repository path, section and anchor exists');
