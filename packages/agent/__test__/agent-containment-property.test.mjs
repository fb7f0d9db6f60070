// The file tools against random trees of files, folders, symbolic links and
// hard links, each answer held to the kernel's own. A tree lives in `<outer>`:
// the workspace `ws` beside an outside folder `out`; link targets are
// relative or absolute, hold `..`, `.`, missing names, and form chains, loops
// and dangling links. For every generated path, read_file, list_directory and
// write_file run at the tools layer (CHECKS, then TOOLS, as tool-call.js runs
// them), and the kernel answers the same question independently: a real
// open(2) / opendir(3) of the path joined as text (no normalisation) in an
// identical copy of the tree, its location read back from /proc/self/fd.
//
// What must hold:
// - a read returns exactly what the kernel reads there, and only where the
//   kernel reaches a regular file inside the workspace; else it is refused;
// - a listing is the kernel's listing of a folder inside; else refused;
// - a write changes exactly one file, inside, where the kernel's open(O_CREAT)
//   puts it once the folders the tool created exist (and nothing else but
//   those folders, all inside); a refused write changes nothing anywhere, and
//   is one where the kernel fails, leaves the workspace, or meets a file with
//   more than one name.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import fc from 'fast-check';

const require = createRequire(import.meta.url);
const { TOOLS, CHECKS } = require('../lib/tools.js');
const { ToolError } = require('../lib/workspace.js');

const { O_RDONLY, O_WRONLY, O_CREAT, O_NONBLOCK } = fs.constants;

// Five folders below the test's own folder: a link's target climbs at most
// five levels (STEP, pathArb), and no name it could take next exists above
// `<outer>`, so whatever a walk out of the workspace reaches (the defect
// this guards against) lies in a folder the test snapshots and removes.
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-containment-prop-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
const PAD = 'p0/p1/p2/p3/p4';
let trees = 0;

const NAMES = ['a', 'b'];
/**
 * What a link target or a tool path is made of: names that exist or not,
 * `.`, `..`, the tree's own folders, and the pairs that make escapes likely
 * (a missing name then `..`; a climb into `out`).
 */
const STEP = fc.constantFrom('a', 'b', 'nope', 'nope/..', '.', '..', '../out', 'ws', 'out');
/** A path: relative, or absolute from `<outer>`. */
const pathArb = fc.record({
  absolute: fc.boolean(),
  steps: fc.array(STEP, { minLength: 1, maxLength: 3, size: 'max' }),
  slash: fc.boolean(),
});
/**
 * A link's target: any path, or one of the two shapes escapes are made of,
 * each as likely: straight out (`../out`, `<outer>/out`), or through a
 * missing name and back (`nope/../a`).
 */
const targetArb = fc.oneof(
  pathArb,
  fc
    .record({ absolute: fc.boolean(), slash: fc.boolean() })
    .map((t) => ({ ...t, steps: t.absolute ? ['out'] : ['..', 'out'] })),
  fc.record({
    absolute: fc.constant(false),
    steps: fc.tuple(fc.constantFrom('nope', 'nope/nope'), fc.constantFrom('..', '../..'), fc.constantFrom(...NAMES)),
    slash: fc.boolean(),
  }),
);
const entryArb = fc.record({
  // The workspace itself half of the time: most escapes start at its top.
  parent: fc.oneof(fc.constant(0), fc.nat()),
  name: fc.constantFrom(...NAMES),
  kind: fc.constantFrom('file', 'dir', 'link', 'link', 'link', 'hardlink'),
  target: targetArb,
  source: fc.nat(),
});
const caseArb = fc.record({
  entries: fc.array(entryArb, { minLength: 3, maxLength: 14 }),
  paths: fc.array(pathArb, { minLength: 1, maxLength: 4 }),
});

/** A generated path as text: absolute ones start at `outer`. */
function pathText(outer, { absolute, steps, slash }) {
  const rel = steps.join('/') + (slash ? '/' : '');
  return absolute ? `${outer}/${rel}` : rel;
}

/** Builds the tree in a fresh `<pad>/outer`; returns its folder. Same entries, same tree. */
function build(entries) {
  const root = path.join(base, String(++trees));
  const outer = path.join(root, PAD, 'outer');
  fs.mkdirSync(path.join(outer, 'ws'), { recursive: true });
  fs.mkdirSync(path.join(outer, 'out'));
  fs.writeFileSync(path.join(outer, 'out', 'secret'), 'id:out/secret');
  fs.writeFileSync(path.join(outer, 'ws', '.in-ws'), '');
  fs.writeFileSync(path.join(outer, 'out', '.in-out'), '');
  const dirs = ['ws', 'out'];
  const files = ['out/secret'];
  for (const e of entries) {
    const rel = `${dirs[e.parent % dirs.length]}/${e.name}`;
    const abs = path.join(outer, rel);
    if (fs.existsSync(abs) || isLink(abs)) continue;
    if (e.kind === 'file') {
      fs.writeFileSync(abs, `id:${rel}`);
      files.push(rel);
    } else if (e.kind === 'dir') {
      fs.mkdirSync(abs);
      fs.writeFileSync(path.join(abs, `.in-${rel.replaceAll('/', '-')}`), '');
      dirs.push(rel);
    } else if (e.kind === 'link') {
      fs.symlinkSync(pathText(outer, e.target), abs);
    } else {
      fs.linkSync(path.join(outer, files[e.source % files.length]), abs);
    }
  }
  return { root, outer, ws: path.join(outer, 'ws') };
}

function isLink(abs) {
  try {
    return fs.lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Everything under `dir`, without following links: relative path → what it is. */
function snapshot(dir, into = new Map(), rel = '') {
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${entry.name}` : entry.name;
    const abs = path.join(dir, r);
    if (entry.isSymbolicLink()) into.set(r, `link:${fs.readlinkSync(abs)}`);
    else if (entry.isDirectory()) {
      into.set(r, 'dir');
      snapshot(dir, into, r);
    } else into.set(r, `file:${fs.readFileSync(abs, 'utf8')}`);
  }
  return into;
}

/** The kernel's open(2) of `p` as given: its real location (from /proc/self/fd) and fstat, or its error code. */
function kernelOpen(p, flags) {
  let fd;
  try {
    fd = fs.openSync(p, flags | O_NONBLOCK, 0o666);
  } catch (err) {
    return { error: err.code };
  }
  // The caller reads what it needs and closes `fd`.
  return { real: fs.readlinkSync(`/proc/self/fd/${fd}`), stat: fs.fstatSync(fd), fd };
}

/** The tool path as the kernel gets it: joined as text to the workspace, never normalised. */
const kernelPath = (ws, p) => (path.isAbsolute(p) ? p : `${ws}/${p}`);
const inside = (ws, real) => real === ws || real.startsWith(`${ws}/`);

/** CHECKS, then TOOLS, as tool-call.js runs a call: {output} or {refused: message}. */
async function runTool(name, ws, args) {
  try {
    const checked = await CHECKS.get(name)(ws, args, {});
    const result = await TOOLS.get(name)(ws, args, { textBudget: 1 << 20, plan: checked });
    return { output: result.output };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return { refused: err.message };
  }
}

/** A folder's listing as list_directory writes it. */
const listingOf = (real) =>
  fs
    .readdirSync(real, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort()
    .join('\n') || '(empty directory)';

/**
 * What the tools may show of `tree`: the text of every regular file inside
 * the workspace (a hard link's shared text included) and the listing of
 * every folder inside. Each folder holds a marker named after it, so no
 * listing outside equals one inside.
 */
function insideView(tree) {
  const texts = new Set();
  const listings = new Set([listingOf(tree.ws)]);
  for (const [rel, what] of snapshot(tree.ws)) {
    if (what === 'dir') listings.add(listingOf(path.join(tree.ws, rel)));
    else if (what.startsWith('file:')) texts.add(what.slice('file:'.length));
  }
  return { texts, listings };
}

/** read_file and list_directory of `p`: what they show lies inside; with `kernel`, it is exactly the kernel's answer. */
async function checkReadAndList(tree, view, p, kernel) {
  const read = await runTool('read_file', tree.ws, { path: p });
  if (read.output !== undefined)
    assert.ok(view.texts.has(read.output), `read_file ${p} returned ${read.output}, no file inside holds that`);
  const list = await runTool('list_directory', tree.ws, { path: p });
  if (list.output !== undefined)
    assert.ok(view.listings.has(list.output), `list_directory ${p} listed a folder outside: ${list.output}`);
  if (!kernel) return;

  const k = kernelOpen(kernelPath(tree.ws, p), O_RDONLY);
  let text = null;
  if (!k.error) {
    if (k.stat.isFile() && inside(tree.ws, k.real)) text = fs.readFileSync(k.fd, 'utf8');
    fs.closeSync(k.fd);
  }
  if (text === null)
    assert.ok(read.refused, `read_file ${p}: the kernel reads nothing inside (${k.error ?? k.real}), the tool read`);
  else assert.equal(read.output, text, `read_file ${p}: the kernel reads ${k.real}; the tool: ${read.refused}`);

  let listing = null;
  let real;
  try {
    fs.opendirSync(kernelPath(tree.ws, p)).closeSync();
    real = fs.realpathSync.native(kernelPath(tree.ws, p));
    if (inside(tree.ws, real)) listing = listingOf(real);
  } catch (err) {
    real = err.code;
  }
  if (listing === null)
    assert.ok(list.refused, `list_directory ${p}: the kernel lists nothing inside (${real}), the tool listed`);
  else assert.equal(list.output, listing, `list_directory ${p}: the kernel lists ${real}; the tool: ${list.refused}`);
}

/** write_file of the path `spec` in a fresh pair of identical trees: `a` for the tool, `b` for the kernel. */
async function checkWrite(entries, spec) {
  const a = build(entries);
  const b = build(entries);
  try {
    await compareWrite(a, b, pathText(a.outer, spec), pathText(b.outer, spec));
  } finally {
    fs.rmSync(a.root, { recursive: true, force: true });
    fs.rmSync(b.root, { recursive: true, force: true });
  }
}

/**
 * write_file of `p` in `a`: changes only inside, and (refused) nothing at
 * all; held to the kernel when `b` is given (`pb` is `p` there).
 */
async function compareWrite(a, b, p, pb, content = 'written') {
  const before = snapshot(a.root);
  const got = await runTool('write_file', a.ws, { path: p, content });
  const afterWrite = snapshot(a.root);
  const changed = [...afterWrite].filter(([k, v]) => before.get(k) !== v).map(([k]) => k);
  const gone = [...before.keys()].filter((k) => !afterWrite.has(k));
  assert.deepEqual(gone, [], 'nothing disappears');
  const wsRel = path.relative(a.root, a.ws);
  for (const k of changed) assert.ok(k.startsWith(`${wsRel}/`), `write_file ${p} changed ${k}, outside the workspace`);
  if (got.refused) {
    assert.deepEqual(changed, [], `write_file ${p} was refused (${got.refused}) but changed ${changed}`);
    if (!b) return;
    const k = kernelOpen(kernelPath(b.ws, pb), O_WRONLY | O_CREAT);
    if (!k.error) {
      fs.closeSync(k.fd);
      assert.ok(
        !inside(b.ws, k.real) || !k.stat.isFile() || k.stat.nlink > 1,
        `write_file ${p} was refused (${got.refused}), but the kernel writes ${k.real}, a file inside with one name`,
      );
    }
    return;
  }
  const files = changed.filter((k) => afterWrite.get(k).startsWith('file:'));
  const folders = changed.filter((k) => afterWrite.get(k) === 'dir');
  assert.equal(files.length, 1, `write_file ${p} changed one file: ${changed}`);
  assert.equal(afterWrite.get(files[0]), `file:${content}`);
  assert.equal(changed.length, files.length + folders.length, `only the file and new folders changed: ${changed}`);
  if (!b) return;
  // The kernel, given the folders the tool made, opens the very file the tool wrote.
  for (const k of folders.sort((x, y) => x.length - y.length)) fs.mkdirSync(path.join(b.root, k));
  const k = kernelOpen(kernelPath(b.ws, pb), O_WRONLY | O_CREAT);
  assert.equal(k.error, undefined, `write_file ${p} wrote ${files[0]}, where the kernel fails: ${k.error}`);
  fs.closeSync(k.fd);
  assert.equal(path.relative(b.root, k.real), files[0], `write_file ${p}: the kernel writes ${k.real}`);
}

/**
 * Every path of the case through all three tools. Held to the kernel, each
 * write gets a fresh pair of trees; otherwise the writes follow each other in
 * the one tree.
 */
async function checkCase({ entries, paths }, kernel) {
  const tree = build(entries);
  try {
    const view = insideView(tree);
    for (const spec of paths) await checkReadAndList(tree, view, pathText(tree.outer, spec), kernel);
    if (kernel) for (const spec of paths) await checkWrite(entries, spec);
    else
      for (const [i, spec] of paths.entries())
        await compareWrite(tree, null, pathText(tree.outer, spec), null, `written ${i}`);
  } finally {
    fs.rmSync(tree.root, { recursive: true, force: true });
  }
}

const LINUX_ONLY = !fs.existsSync('/proc/self/fd') && 'the kernel answer is read from /proc/self/fd (Linux)';

/** A path of plain names, relative. */
const named = (...steps) => ({ absolute: false, steps, slash: false });
const link = (name, target) => ({ parent: 0, name, kind: 'link', target, source: 0 });
/**
 * Known escapes, tried first on every run: `a -> nope/../b` with
 * `b -> ../out` (a missing name, then `..` back into the workspace and out
 * through a real link), and a hard link to the outside file `out/secret`.
 */
const KNOWN = [
  [
    {
      entries: [link('a', named('nope', '..', 'b')), link('b', named('..', 'out'))],
      paths: [named('a', 'secret'), named('a'), named('a', 'pwned')],
    },
  ],
  [{ entries: [{ ...link('a', named('a')), kind: 'hardlink' }], paths: [named('a')] }],
];

test('random trees of files, folders and links: nothing outside the workspace is read, listed or written', async () => {
  await fc.assert(
    fc.asyncProperty(caseArb, (c) => checkCase(c, false)),
    { numRuns: 300, examples: KNOWN },
  );
});

test(
  'random trees of files, folders and links: each tool does what the kernel does inside, and refuses only where it fails or leaves',
  { skip: LINUX_ONLY },
  async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, (c) => checkCase(c, true)),
      { numRuns: 100, examples: KNOWN },
    );
  },
);
