// The documents' promises: every ```js example of README.md and docs/*.md
// runs and prints what the `// ...` comments beside it say; the API page
// documents every export; every relative link and every repository path a
// document cites exists. A package's pages (packages/agent/README.md,
// packages/agent/docs/) cite paths inside their package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const documents = [
  'README.md',
  'ARCHITECTURE.md',
  'BENCHMARKS.md',
  'CONTRIBUTING.md',
  'RELIABILITY.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'packages/agent/README.md',
  'packages/agent/docs/reference.md',
].filter((doc) => fs.existsSync(path.join(root, doc)));
const read = (doc) => fs.readFileSync(path.join(root, doc), 'utf8');

/** Fenced blocks: `js` runs; `-no-run` blocks and other languages are shown only. */
const RUN = 'js';
const SHOWN = new Set(['js-no-run', 'json', 'json-no-run', 'sh', 'sh-no-run', 'python', 'text', '']);
const fences = (text) => [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1], code: m[2] }));

/** What an example says it prints: `console.log(...); // out` and trailing `// out` lines. */
function promised(code) {
  const lines = [];
  for (const line of code.split('\n')) {
    const inline = /console\.log\(.*\);\s*\/\/ (.*)$/.exec(line);
    if (inline) lines.push(inline[1]);
    else if (/^\/\/ /.test(line)) lines.push(line.slice(3));
  }
  return lines;
}

/** Node prints objects across lines; compare with whitespace collapsed. */
const squash = (s) => s.replace(/\s+/g, ' ').trim();

test('every fenced block is either run or marked as shown only', () => {
  for (const doc of documents) {
    for (const { info } of fences(read(doc))) {
      assert.ok(info === RUN || SHOWN.has(info), `${doc}: a block fenced as "${info}" would be silently skipped`);
    }
  }
});

test('the API page documents every export and has an example for each', () => {
  const api = read('docs/api.md');
  const examples = fences(api)
    .filter((f) => f.info === RUN)
    .map((f) => f.code);
  const exported = Object.keys(createRequire(import.meta.url)(root));
  assert.ok(exported.length > 10, 'the package loads');
  for (const name of exported) {
    assert.ok(api.includes(`| \`${name}\` |`), `docs/api.md lists ${name} under "Every export"`);
  }
  const withoutExample = new Set(['ToolCallStreamError', 'toResponse', 'liveHandles']);
  for (const name of exported.filter((n) => !withoutExample.has(n))) {
    assert.ok(
      examples.some((e) => e.includes(name)),
      `an example of docs/api.md uses ${name}`,
    );
  }
});

for (const doc of documents) {
  fences(read(doc))
    .filter((f) => f.info === RUN)
    .forEach(({ code }, i) => {
      test(`${doc} example ${i + 1} runs and prints what it says`, () => {
        const run = spawnSync(process.execPath, ['-e', code], { cwd: root, encoding: 'utf8', timeout: 30_000 });
        assert.equal(run.status, 0, run.stderr);
        const want = promised(code);
        assert.ok(want.length > 0, 'the example states its output');
        assert.equal(squash(run.stdout), squash(want.join('\n')));
      });
    });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchors = (text) =>
  new Set(
    text
      .replace(/^```[\s\S]*?^```$/gm, '')
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, ''))),
  );

test('every relative link of the documents points to a file and heading that exist', () => {
  const broken = [];
  for (const doc of documents) {
    const text = read(doc).replace(/^```[\s\S]*?^```$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const resolved = file ? path.join(path.dirname(doc), file) : doc;
      if (!fs.existsSync(path.join(root, resolved))) broken.push(`${doc}: ${target} (no file)`);
      else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor))
        broken.push(`${doc}: ${target} (no heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test('every repository path a document cites exists', () => {
  const tops = 'core|src|lib|__test__|benchmark|scripts|agent|bin|demo|docs|fuzz|npm|packages|\\.ci|\\.github';
  const cited = new RegExp(`\`((?:${tops})/[^\`\\s<>*…{(]*)\``, 'g');
  const missing = [];
  for (const doc of documents) {
    const base = doc.startsWith('packages/') ? doc.split('/').slice(0, 2).join('/') : '';
    for (const [, cite] of read(doc).matchAll(cited)) {
      const file = cite.replace(/[,.;:]$/, '');
      // Qwen Code's own sources (packages/core, packages/cli) are cited from its repository.
      if (/^packages\/(core|cli)\//.test(file)) continue;
      if (!fs.existsSync(path.join(root, base, file))) missing.push(`${doc}: ${file}`);
    }
  }
  assert.deepEqual(missing, []);
});
