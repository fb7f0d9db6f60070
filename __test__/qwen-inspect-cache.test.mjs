// The decision inspect.mjs makes for a bundle is cached between runs
// (lib/qwen/cache.mjs): keyed by this package's version and the bundle's
// identity, down to the content of each chunk whose code the decision read,
// and never fatal. The hook points imported are exactly the names
// asked for. Checked on a copy of the published 0.21.2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { inspectQwen } from '../lib/qwen/inspect.mjs';
import { cacheDir } from '../lib/qwen/cache.mjs';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';

const build = qwenBuildOrSkip('0.21.2');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-cache-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const savedCacheHome = process.env.XDG_CACHE_HOME;
after(() => {
  if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCacheHome;
});

/** A fresh copy of the release and a fresh cache folder for one test. */
function setUp(name) {
  const dir = path.join(tmp, name, 'package');
  fs.cpSync(build.dir, dir, { recursive: true });
  process.env.XDG_CACHE_HOME = path.join(tmp, name, 'cache');
  return { dir: fs.realpathSync(dir), version: '0.21.2' };
}

const cacheFiles = () =>
  fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()).map((f) => path.join(cacheDir(), f)) : [];

/** Replaces the cached decision, keeping its key, so a hit shows. */
function poisonCache(edit) {
  const [file] = cacheFiles();
  const entry = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(entry);
  fs.writeFileSync(file, JSON.stringify(entry));
}
const markHit = (entry) => {
  entry.decision.anthropic.reason = 'from the cache';
};

test(
  'a second inspection of the same bundle by the same package version is read from the cache',
  { skip: build.skip },
  () => {
    const pkg = setUp('hit');
    const first = inspectQwen(pkg);
    assert.equal(first.anthropic.served, true);
    assert.equal(cacheFiles().length, 1);
    poisonCache(markHit);
    assert.equal(inspectQwen(pkg).anthropic.reason, 'from the cache');
  },
);

test('another version of this package does not use the entry: it inspects again', { skip: build.skip }, () => {
  const pkg = setUp('version');
  inspectQwen(pkg);
  poisonCache((entry) => {
    markHit(entry);
    entry.identity.toolcallStream = '0.0.1';
  });
  const again = inspectQwen(pkg);
  assert.equal(again.anthropic.reason, undefined);
  assert.equal(again.anthropic.served, true);
});

test('a changed bundle (another size or time of its files) does not use the entry', { skip: build.skip }, () => {
  const pkg = setUp('bundle');
  inspectQwen(pkg);
  poisonCache(markHit);
  const cli = path.join(pkg.dir, 'cli.js');
  const later = new Date(fs.statSync(cli).mtimeMs + 5000);
  fs.utimesSync(cli, later, later);
  assert.equal(inspectQwen(pkg).anthropic.reason, undefined);
});

test(
  'a chunk the decision read, edited in place with its size and time kept, does not use the entry',
  { skip: build.skip },
  () => {
    const pkg = setUp('edited-chunk');
    // Every file with the time npm unpacks a package with.
    const npmTime = new Date('1985-10-26T08:15:00Z');
    const chunks = fs.readdirSync(path.join(pkg.dir, 'chunks')).map((f) => path.join(pkg.dir, 'chunks', f));
    for (const f of chunks) fs.utimesSync(f, npmTime, npmTime);
    assert.equal(inspectQwen(pkg).anthropic.served, true);
    poisonCache(markHit);
    // One operator of buildAnthropicUsageMetadata, which processStream reaches: the same size,
    // and the time put back as npm, tar or `cp -p` leave it.
    const needle = 'inputTokens >= cacheReadTokens';
    const file = chunks.find((f) => fs.readFileSync(f, 'utf8').includes(needle));
    const before = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(needle, 'inputTokens <= cacheReadTokens'));
    fs.utimesSync(file, npmTime, npmTime);
    assert.equal(fs.statSync(file).size, before.size);
    assert.equal(fs.statSync(file).mtimeMs, before.mtimeMs);
    const again = inspectQwen(pkg);
    assert.equal(again.anthropic.served, false);
    assert.match(
      again.anthropic.reason,
      /^AnthropicContentGenerator\.processStream is code this package does not know/,
    );
    assert.equal(again.openai.served, true);
    // And the new decision is kept: the next inspection is a hit.
    poisonCache(markHit);
    assert.equal(inspectQwen(pkg).anthropic.reason, 'from the cache');
  },
);

test('a chunk added to the bundle does not use the entry', { skip: build.skip }, () => {
  const pkg = setUp('added-chunk');
  inspectQwen(pkg);
  poisonCache(markHit);
  fs.writeFileSync(path.join(pkg.dir, 'chunks', 'chunk-ADDED000.js'), 'export {};\n');
  assert.equal(inspectQwen(pkg).anthropic.reason, undefined);
});

test('a corrupt cache is ignored and replaced', { skip: build.skip }, () => {
  const pkg = setUp('corrupt');
  inspectQwen(pkg);
  const [file] = cacheFiles();
  for (const garbage of ['{not json', '', 'null', '{"identity":1,"decision":{"hookPoints":5}}']) {
    fs.writeFileSync(file, garbage);
    const d = inspectQwen(pkg);
    assert.equal(d.anthropic.served, true, garbage);
    assert.equal(d.openai.served, true, garbage);
  }
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).decision.anthropic.served, true, 'rewritten');
});

test('an unwritable cache is ignored: every inspection still decides', { skip: build.skip }, () => {
  const pkg = setUp('unwritable');
  // The cache folder's parent is a file, so nothing can be created there.
  const blocker = path.join(tmp, 'unwritable', 'blocker');
  fs.writeFileSync(blocker, '');
  process.env.XDG_CACHE_HOME = path.join(blocker, 'cache');
  for (let i = 0; i < 2; i++) {
    const d = inspectQwen(pkg);
    assert.deepEqual([d.anthropic.served, d.openai.served], [true, true]);
  }
});

test('the hook points imported are exactly the names asked for', { skip: build.skip }, async () => {
  const pkg = setUp('names');
  const { hookPoints } = inspectQwen(pkg);
  assert.ok(Object.keys(hookPoints).length > 3);
  const q = await importHookPoints(hookPoints, ['GenerateContentResponse', 'InvalidStreamError', 'notAHookPoint']);
  assert.deepEqual(Object.keys(q).sort(), ['GenerateContentResponse', 'InvalidStreamError']);
  assert.equal(typeof q.GenerateContentResponse, 'function');
});
