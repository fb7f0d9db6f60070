// The launcher's decision cache (lib/qwen/cache.mjs) is data, never a list
// of modules: whoever can write a cache entry cannot make the preload import
// their code. An entry planted in the project folder (a relative
// XDG_CACHE_HOME), one forged in the user's own cache, a cache folder that is
// someone else's, writable by others or a link, and links in place of an
// entry or its temporary file: in each, no foreign code runs and the real
// Qwen Code 0.24.4 starts through toolcall-stream-qwen, served.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { inspectQwen } from '../lib/qwen/inspect.mjs';
import { cacheDir } from '../lib/qwen/cache.mjs';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const latest = qwenBuildOrSkip('0.24.4');
const posix = process.platform !== 'win32';
const skip = latest.skip ?? (posix ? false : 'POSIX owners, modes and links');
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-cache-trust-')));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const savedCacheHome = process.env.XDG_CACHE_HOME;
after(() => {
  if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCacheHome;
});

const home = path.join(tmp, 'home');
fs.mkdirSync(home);
const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/**
 * A copy of 0.24.4 that Qwen runs from: its own package.json, entries and
 * chunks (so a file can be put inside it), the rest linked to the release.
 */
function qwenCopy(name = 'qwen') {
  const dir = path.join(tmp, name);
  if (fs.existsSync(dir)) return dir;
  fs.mkdirSync(dir);
  for (const f of fs.readdirSync(latest.dir)) {
    if (['package.json', 'cli.js', 'cli-entry.js', 'chunks'].includes(f))
      fs.cpSync(path.join(latest.dir, f), path.join(dir, f), { recursive: true });
    else fs.symlinkSync(path.join(latest.dir, f), path.join(dir, f));
  }
  return dir;
}

/** The module of an attacker: importing it writes `marker`. */
function attackerModule(file, marker) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, 'foreign code ran');\nexport class GenerateContentResponse {}\n`,
  );
  return file;
}

/**
 * The entry this package writes for the bundle at `dir` (its file name and
 * JSON), made by a real inspection into a scratch cache: every field of it
 * can be predicted for a given release.
 */
function genuineEntry(dir) {
  process.env.XDG_CACHE_HOME = fs.mkdtempSync(path.join(tmp, 'scratch-cache-'));
  inspectQwen({ dir, version: '0.24.4' });
  const [name] = fs.readdirSync(cacheDir());
  const entry = JSON.parse(fs.readFileSync(path.join(cacheDir(), name), 'utf8'));
  assert.equal(entry.decision.anthropic.served, true);
  return { name, entry };
}

/** `entry` with its GenerateContentResponse hook point at `file`; `covered` adds the file to the hashed code. */
function forged(entry, file, { covered, hash = covered && sha256(fs.readFileSync(file)) }) {
  const e = structuredClone(entry);
  e.decision.hookPoints.GenerateContentResponse = file;
  if (covered) e.identity.code = [...e.identity.code, [file, hash]].sort((a, b) => a[0].localeCompare(b[0]));
  return e;
}

const writeEntry = (dir, name, entry) => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, name), JSON.stringify(entry), { mode: 0o600 });
};

const ownLines = (stderr) => stderr.split('\n').filter((l) => l.startsWith('toolcall-stream'));

/**
 * The real Qwen started through the launcher in ACP mode in `cwd` with
 * `env`, its stdin at an end at once (it starts, relaunches cli.js, exits);
 * asserts that each cli.js process was served and that the preload had
 * nothing to say, and that `--check` there says served.
 */
function startServed(qwen, { cwd, env }) {
  const report = path.join(tmp, `report-${Math.random().toString(36).slice(2)}.ndjson`);
  const run = (args) =>
    spawnSync(process.execPath, [launcher, '--qwen', qwen, ...args], {
      cwd,
      env: {
        HOME: home,
        PATH: path.dirname(process.execPath),
        TOOLCALL_STREAM_QWEN_REPORT: report,
        npm_config_update_notifier: 'false',
        ...env,
      },
      input: '',
      encoding: 'utf8',
    });
  const r = run(['--acp']);
  assert.equal(r.status, 0, r.stderr);
  const lines = fs
    .readFileSync(report, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(lines.length >= 1);
  for (const line of lines)
    assert.deepEqual(line.providers, {
      anthropic: { served: true, profile: 'qwen-0.24' },
      openai: { served: true, profile: 'qwen-0.24' },
      openaiResponses: { served: true, profile: 'qwen-0.24' },
    });
  assert.deepEqual(ownLines(r.stderr), [], r.stderr);
  const c = run(['--check']);
  assert.equal(c.status, 0, c.stderr);
  assert.match(c.stdout, /^Anthropic: served, profile qwen-0\.24\nOpenAI-compatible: served, profile qwen-0\.24$/m);
}

test('a relative XDG_CACHE_HOME is ignored: the cache is under ~/.cache', () => {
  const homeCache = path.join(os.homedir(), '.cache', 'toolcall-stream');
  for (const xdg of ['.cache', 'cache', './x', '../x', ''])
    assert.equal(cacheDir({ XDG_CACHE_HOME: xdg }), homeCache, JSON.stringify(xdg));
  assert.equal(cacheDir({}), homeCache);
  const absolute = path.join(tmp, 'xdg');
  assert.equal(cacheDir({ XDG_CACHE_HOME: absolute }), path.join(absolute, 'toolcall-stream'));
});

test(
  "an entry planted in the project folder, with XDG_CACHE_HOME=.cache, runs none of the project's code: Qwen starts served",
  { skip, timeout: 120_000 },
  () => {
    const qwen = qwenCopy();
    const project = path.join(tmp, 'project');
    const marker = path.join(tmp, 'planted-marker');
    const evil = attackerModule(path.join(project, 'tools', 'evil.mjs'), marker);
    const { name, entry } = genuineEntry(qwen);
    // The best forgery: the attacker's module is among the hashed code, with its real hash.
    const plantedDir = path.join(project, '.cache', 'toolcall-stream');
    const planted = forged(entry, evil, { covered: true });
    writeEntry(plantedDir, name, planted);

    startServed(qwen, { cwd: project, env: { XDG_CACHE_HOME: '.cache' } });
    assert.equal(fs.existsSync(marker), false, "the project's module was imported");
    assert.deepEqual(fs.readdirSync(plantedDir), [name], 'nothing written in the project');
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(plantedDir, name), 'utf8')), planted);
    // The entry kept is the user's own, under ~/.cache.
    assert.deepEqual(fs.readdirSync(path.join(home, '.cache', 'toolcall-stream')), [name]);
  },
);

test(
  "an entry forged in the user's own cache imports only hashed code inside Qwen's package: anything else is inspected again and rewritten",
  { skip, timeout: 180_000 },
  () => {
    const qwen = qwenCopy();
    const { name, entry } = genuineEntry(qwen);
    const cache = path.join(tmp, 'user-cache');
    const marker = path.join(tmp, 'forged-marker');
    const outside = attackerModule(path.join(tmp, 'attacker', 'evil.mjs'), marker);
    const inside = attackerModule(path.join(qwen, 'evil.mjs'), marker);
    const changed = path.join(qwen, 'changed.mjs');
    fs.writeFileSync(changed, 'export class GenerateContentResponse {}\n');
    const changedEntry = forged(entry, changed, { covered: true });
    attackerModule(changed, marker);
    // Files put beside the package's own (not in chunks/, whose names the entry's key holds).
    const linked = path.join(qwen, 'linked.mjs');
    fs.symlinkSync(outside, linked);
    const cases = {
      'outside the package, its hash covered': forged(entry, outside, { covered: true }),
      'inside the package, not covered by the hashes': forged(entry, inside, { covered: false }),
      'covered, its content changed after the hash': changedEntry,
      'a link inside the package to a file outside': forged(entry, linked, { covered: true }),
      'a path through .. out of the package': forged(entry, `${qwen}/../attacker/evil.mjs`, {
        covered: true,
      }),
    };
    for (const [label, e] of Object.entries(cases)) {
      writeEntry(path.join(cache, 'toolcall-stream'), name, e);
      startServed(qwen, { cwd: tmp, env: { XDG_CACHE_HOME: cache } });
      assert.equal(fs.existsSync(marker), false, `${label}: foreign code ran`);
      const rewritten = JSON.parse(fs.readFileSync(path.join(cache, 'toolcall-stream', name), 'utf8'));
      assert.deepEqual(rewritten.decision.hookPoints, entry.decision.hookPoints, `${label}: rewritten`);
    }
  },
);

test('the hook points are imported only from inside the package, checked as they are imported', { skip }, async () => {
  const qwen = qwenCopy();
  const marker = path.join(tmp, 'import-marker');
  const outside = attackerModule(path.join(tmp, 'attacker-2', 'evil.mjs'), marker);
  const link = path.join(qwen, 'link-at-import.mjs');
  fs.symlinkSync(outside, link);
  for (const file of [outside, link])
    await assert.rejects(
      importHookPoints({ GenerateContentResponse: file }, ['GenerateContentResponse'], { within: qwen }),
      /is not inside Qwen Code's package/,
    );
  assert.equal(fs.existsSync(marker), false);
});

test('a hook chunk changed after the cached entry was read, before its import, is not imported', { skip }, async () => {
  const qwen = qwenCopy('qwen-changed-at-import');
  process.env.XDG_CACHE_HOME = path.join(tmp, 'changed-at-import');
  const pkg = { dir: qwen, version: '0.24.4' };
  inspectQwen(pkg);
  const hit = inspectQwen(pkg);
  assert.ok(hit.hookHashes, 'read from the cache');
  const file = hit.hookPoints.GenerateContentResponse;
  const marker = path.join(tmp, 'changed-at-import-marker');
  fs.writeFileSync(
    file,
    `import { writeFileSync as w } from 'node:fs';\nw(${JSON.stringify(marker)}, 'ran');\n${fs.readFileSync(file, 'utf8')}`,
  );
  await assert.rejects(
    importHookPoints(hit.hookPoints, ['GenerateContentResponse'], { within: qwen, hashes: hit.hookHashes }),
    /changed since its hash was taken/,
  );
  assert.equal(fs.existsSync(marker), false);
});

/** A cache folder for `label` holding the genuine entry with its Anthropic decision marked, so a use shows. */
function markedCache(label, name, entry) {
  const xdg = path.join(tmp, label);
  const dir = path.join(xdg, 'toolcall-stream');
  const marked = structuredClone(entry);
  marked.decision.anthropic = { served: false, reason: 'from the cache' };
  writeEntry(dir, name, marked);
  return { xdg, dir, marked };
}

const listing = (dir) =>
  fs
    .readdirSync(dir)
    .sort()
    .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]);

test(
  "a cache folder that is someone else's, writable by others, or a link is not used: nothing read or written there; Qwen starts served",
  { skip: skip || (process.getuid() !== 0 ? 'changing an owner needs root' : false), timeout: 180_000 },
  () => {
    const qwen = qwenCopy();
    const { name, entry } = genuineEntry(qwen);
    // Each spoiling, and why `--check` says the folder is not used.
    const cases = {
      "someone else's (uid 65534)": [(dir) => fs.chownSync(dir, 65534, 65534), "it is someone else's"],
      'writable by others (0777)': [(dir) => fs.chmodSync(dir, 0o777), 'others can write it'],
      'writable by its group (0770)': [(dir) => fs.chmodSync(dir, 0o770), 'its group can write it'],
      'a link to a private folder': [
        (dir) => {
          const real = `${dir}-real`;
          fs.renameSync(dir, real);
          fs.symlinkSync(real, dir);
        },
        'it is a link',
      ],
    };
    for (const [label, [spoil, why]] of Object.entries(cases)) {
      const { xdg, dir } = markedCache(`refused-${label.replace(/\W+/g, '-')}`, name, entry);
      spoil(dir);
      const before = listing(dir);
      process.env.XDG_CACHE_HOME = xdg;
      const d = inspectQwen({ dir: qwen, version: '0.24.4' });
      assert.equal(d.anthropic.served, true, `${label}: the entry was used`);
      startServed(qwen, { cwd: tmp, env: { XDG_CACHE_HOME: xdg } });
      assert.deepEqual(listing(dir), before, `${label}: written to`);
      const check = spawnSync(process.execPath, [launcher, '--qwen', qwen, '--check'], {
        cwd: tmp,
        env: { HOME: home, PATH: path.dirname(process.execPath), XDG_CACHE_HOME: xdg },
        encoding: 'utf8',
      });
      assert.equal(check.status, 0, check.stderr);
      assert.ok(
        check.stdout.includes(`decision cache: ${dir}: not used, ${why}; each start reads Qwen's code again`),
        `${label}: --check says\n${check.stdout}`,
      );
      assert.match(check.stdout, /^Anthropic: served, profile qwen-0\.24$/m, label);
    }
  },
);

test('a new cache folder is private to the user (0700), and its entries 0600', { skip }, () => {
  const qwen = qwenCopy();
  const xdg = path.join(tmp, 'fresh');
  process.env.XDG_CACHE_HOME = xdg;
  inspectQwen({ dir: qwen, version: '0.24.4' });
  assert.equal(fs.statSync(cacheDir()).mode & 0o777, 0o700);
  const files = fs.readdirSync(cacheDir());
  assert.equal(files.length, 1, 'no temporary file left behind');
  assert.equal(fs.statSync(path.join(cacheDir(), files[0])).mode & 0o777, 0o600);
});

test(
  'a link in place of the entry is neither read nor written through; one at the temporary name the cache used to write is not followed',
  { skip, timeout: 120_000 },
  () => {
    const qwen = qwenCopy();
    const { name, entry } = genuineEntry(qwen);

    // The entry a link to a valid entry elsewhere, marked: not read, replaced.
    const { xdg, dir, marked } = markedCache('linked-entry', name, entry);
    const elsewhere = path.join(tmp, 'elsewhere.json');
    fs.renameSync(path.join(dir, name), elsewhere);
    fs.symlinkSync(elsewhere, path.join(dir, name));
    process.env.XDG_CACHE_HOME = xdg;
    assert.equal(inspectQwen({ dir: qwen, version: '0.24.4' }).anthropic.served, true, 'read through the link');
    assert.equal(fs.lstatSync(path.join(dir, name)).isFile(), true, 'the link is replaced by an entry');
    assert.deepEqual(JSON.parse(fs.readFileSync(elsewhere, 'utf8')), marked, 'written through the link');

    // The entry a link to a file of the user's: left as it is, in a real start too.
    const victim = path.join(tmp, 'victim.txt');
    fs.writeFileSync(victim, 'the user file\n');
    fs.rmSync(path.join(dir, name));
    fs.symlinkSync(victim, path.join(dir, name));
    startServed(qwen, { cwd: tmp, env: { XDG_CACHE_HOME: xdg } });
    assert.equal(fs.readFileSync(victim, 'utf8'), 'the user file\n');
    assert.equal(fs.lstatSync(path.join(dir, name)).isFile(), true);

    // A link at `<entry>.<pid>.tmp`, the name a write of this process would once have used.
    fs.rmSync(path.join(dir, name));
    const predictable = path.join(dir, `${name}.${process.pid}.tmp`);
    fs.symlinkSync(victim, predictable);
    assert.equal(inspectQwen({ dir: qwen, version: '0.24.4' }).anthropic.served, true);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'the user file\n', 'written through the link');
    assert.equal(fs.readlinkSync(predictable), victim);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')).decision.hookPoints,
      entry.decision.hookPoints,
    );
    assert.deepEqual(fs.readdirSync(dir).sort(), [name, path.basename(predictable)].sort(), 'no temporary file left');
  },
);
