// scripts/check-doc-paths.mjs over a small checkout of its own: it passes
// when every cited path, section and anchor exists, and fails, naming the
// citation, when one dangles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'check-doc-paths.mjs');

const BEHAVIOUR = `# Reference behaviour

## 2. Anthropic

- **§2.1 Wrapping.** The SDK skips \`ping\`.
- **§2.4 Finish reasons**: \`end_turn\` → \`STOP\`.

## 3. OpenAI-compatible providers

- **§3.2 Converter**:
  - **§3.2.1 Visible text** through the normaliser (§3.2).

## Usage: \`usage.ts\` / \`buildUsage\`

## Usage: \`usage.ts\` / \`buildUsage\`
`;

/** A checkout holding `files` (path → text); the script's exit status and output over it. */
function check(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-doc-paths-'));
  try {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    for (const [file, text] of Object.entries({ 'docs/behaviour.md': BEHAVIOUR, ...files })) {
      fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const run = spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const GOOD = {
  'core/src/lib.rs': [
    '//! Wrapping as the SDK wraps (docs/behaviour.md §2.1); the finish',
    '//! reasons of docs/behaviour.md',
    '//! §2.4, §3.2.1 and §3 (a citation wrapped onto the next line).',
    '',
  ].join('\n'),
  'lib/a.js': '// docs/behaviour.md §2 and docs/behaviour.md#2-anthropic\n',
  'README.md': [
    '# Read me',
    '',
    'See [docs/behaviour.md §3.2](docs/behaviour.md#3-openai-compatible-providers),',
    '[usage](docs/behaviour.md#usage-usagets--buildusage),',
    '[usage again](docs/behaviour.md#usage-usagets--buildusage-1) and [above](#read-me).',
    '',
  ].join('\n'),
};

test('passes when every cited section and anchor exists', () => {
  const { status, output } = check(GOOD);
  assert.equal(status, 0, output);
  assert.match(output, /every cited repository path, section and anchor exists/);
});

test('fails on a section the cited document does not have', () => {
  const { status, output } = check({ ...GOOD, 'core/src/b.rs': '/// One context (docs/behaviour.md §3.1, §7).\n' });
  assert.equal(status, 1);
  assert.match(output, /core\/src\/b\.rs:1: docs\/behaviour\.md §3\.1 does not exist/);
  assert.match(output, /core\/src\/b\.rs:1: docs\/behaviour\.md §7 does not exist/);
});

test('fails on a bare section number, in code or in a document without sections, that the reference lacks', () => {
  const { status, output } = check({ ...GOOD, 'lib/b.js': '/* Reasoning (§3.2.2). */\n', 'NOTES.md': 'As in §2.9.\n' });
  assert.equal(status, 1);
  assert.match(output, /lib\/b\.js:1: docs\/behaviour\.md §3\.2\.2 does not exist/);
  assert.match(output, /NOTES\.md:1: docs\/behaviour\.md §2\.9 does not exist/);
});

test('fails on a section of a document outside the repository', () => {
  const { status, output } = check({ ...GOOD, 'core/src/b.rs': '//! Zed shows a failed card (quirks §2.1).\n' });
  assert.equal(status, 1);
  assert.match(output, /core\/src\/b\.rs:1: quirks §2\.1 \(a document outside the repository\)/);
});

test('fails on an anchor that names no heading, in a link, within a document, or in a comment', () => {
  const { status, output } = check({
    ...GOOD,
    'docs/api.md': '# API\n\n[gone](behaviour.md#3-openai) and [here](#api-1).\n',
    'lib/b.js': '// docs/behaviour.md#wrapping\n',
  });
  assert.equal(status, 1);
  assert.match(output, /docs\/api\.md:3: docs\/behaviour\.md#3-openai does not exist/);
  assert.match(output, /docs\/api\.md:3: docs\/api\.md#api-1 does not exist/);
  assert.match(output, /lib\/b\.js:1: docs\/behaviour\.md#wrapping does not exist/);
});

test('fails on a section of a document that does not exist', () => {
  const { status, output } = check({ ...GOOD, 'README.md': 'As [gone.md §1](gone.md#one) says.\n' });
  assert.equal(status, 1);
  assert.match(output, /README\.md:1: gone\.md §1 \(no such document\)/);
  assert.match(output, /README\.md:1: gone\.md#one \(no such document\)/);
});
