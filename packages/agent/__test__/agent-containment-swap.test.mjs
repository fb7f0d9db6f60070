// What happens between the check of a write and the write itself (the
// permission prompt sits there): a folder on the way swapped for a link to
// the outside, a missing folder planted as such a link, the file swapped for
// a link, a hard link made to it. Driven at the tools layer, as tool-call.js
// runs a call: CHECKS (the plan the user approves), then the change, then
// TOOLS with that plan. Each write must land where the plan said, or nowhere.
// Hard links already there at the check are refused by it; reading them is
// allowed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { TOOLS, CHECKS } = require('../lib/tools.js');
const { ToolError } = require('../lib/workspace.js');

const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-containment-swap-')));
after(() => fs.rm(tmp, { recursive: true, force: true }));

let count = 0;
/** `<n>/ws` with a folder `sub` and a file `f.txt`, beside `<n>/outside` holding `keep.txt` and a folder `deeper`. */
async function workspace() {
  const outer = path.join(tmp, String(++count));
  const ws = path.join(outer, 'ws');
  const outside = path.join(outer, 'outside');
  await fs.mkdir(path.join(ws, 'sub'), { recursive: true });
  await fs.mkdir(path.join(outside, 'deeper'), { recursive: true });
  await fs.writeFile(path.join(ws, 'f.txt'), 'inside\n');
  await fs.writeFile(path.join(outside, 'keep.txt'), 'outside\n');
  return { ws, outside };
}

/** Every path under `dir` with its contents (files) or `dir`, without following links. */
async function contents(dir) {
  const found = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const abs = path.join(entry.parentPath ?? entry.path, entry.name);
    found[path.relative(dir, abs)] = entry.isFile() ? await fs.readFile(abs, 'utf8') : 'dir';
  }
  return found;
}

/** The plan of write_file `args` (what the prompt shows), `between()`, then the run with that plan. */
async function writeAcross(ws, args, between, extra = {}) {
  const plan = await CHECKS.get('write_file')(ws, args, {});
  await between(plan);
  return TOOLS.get('write_file')(ws, args, { plan, textBudget: 1 << 20, ...extra });
}

const PAYLOAD = 'ssh-ed25519 AAAA attacker@example\n';

test('a folder swapped for a link to the outside after the check: the write is refused, nothing lands anywhere', async () => {
  const { ws, outside } = await workspace();
  const before = await contents(outside);
  let shown;
  await assert.rejects(
    writeAcross(ws, { path: 'sub/new.txt', content: PAYLOAD }, async (plan) => {
      shown = plan.abs;
      await fs.rename(path.join(ws, 'sub'), path.join(ws, 'sub-was'));
      await fs.symlink('../outside', path.join(ws, 'sub'));
    }),
    (err) =>
      err instanceof ToolError &&
      /^Refused: "sub\/new.txt" changed after it was checked: "sub" is now a symbolic link/.test(err.message),
  );
  assert.equal(shown, path.join(ws, 'sub', 'new.txt'), 'the prompt showed the real folder');
  assert.deepEqual(await contents(outside), before);
  assert.deepEqual(await fs.readdir(path.join(ws, 'sub-was')), []);
});

test('a missing folder planted as a link after the check: the write is refused, not created through it', async () => {
  const { ws, outside } = await workspace();
  const before = await contents(outside);
  await assert.rejects(
    writeAcross(ws, { path: 'fresh/deeper/new.txt', content: PAYLOAD }, () =>
      fs.symlink('../outside', path.join(ws, 'fresh')),
    ),
    (err) =>
      err instanceof ToolError && /changed after it was checked: "fresh" is now a symbolic link/.test(err.message),
  );
  assert.deepEqual(await contents(outside), before);
});

test('the missing folders of an unchanged plan are created one by one, and the file in the last', async () => {
  const { ws, outside } = await workspace();
  const result = await writeAcross(ws, { path: 'fresh/deeper/new.txt', content: 'ok\n' }, async () => {});
  assert.equal(result.rawOutput.path, path.join(ws, 'fresh', 'deeper', 'new.txt'));
  assert.equal(await fs.readFile(path.join(ws, 'fresh', 'deeper', 'new.txt'), 'utf8'), 'ok\n');
  assert.deepEqual(await contents(outside), { deeper: 'dir', 'keep.txt': 'outside\n' });
});

test('the file swapped for a link to the outside after the check: the write is refused', async () => {
  const { ws, outside } = await workspace();
  await assert.rejects(
    writeAcross(ws, { path: 'f.txt', content: PAYLOAD }, async () => {
      await fs.rm(path.join(ws, 'f.txt'));
      await fs.symlink(path.join(outside, 'keep.txt'), path.join(ws, 'f.txt'));
    }),
    (err) => err instanceof ToolError && /^Refused: "f.txt" became a symbolic link\.$/.test(err.message),
  );
  assert.equal(await fs.readFile(path.join(outside, 'keep.txt'), 'utf8'), 'outside\n');
});

test('a hard link made to the file after the check: the write is refused, the other name unchanged', async () => {
  const { ws, outside } = await workspace();
  await assert.rejects(
    writeAcross(ws, { path: 'f.txt', content: PAYLOAD }, () =>
      fs.link(path.join(ws, 'f.txt'), path.join(outside, 'alias.txt')),
    ),
    (err) => err instanceof ToolError && /^Refused: "f.txt" is a file with 2 names \(hard links\)/.test(err.message),
  );
  assert.equal(await fs.readFile(path.join(outside, 'alias.txt'), 'utf8'), 'inside\n');
});

test('a file that is a hard link to one outside: its write is refused at the check, its read allowed', async () => {
  const { ws, outside } = await workspace();
  await fs.link(path.join(outside, 'keep.txt'), path.join(ws, 'alias.txt'));
  await assert.rejects(
    CHECKS.get('write_file')(ws, { path: 'alias.txt', content: PAYLOAD }, {}),
    (err) =>
      err instanceof ToolError &&
      err.message ===
        'Refused: "alias.txt" is a file with 2 names (hard links). Writing it would change it under its other names too, which may lie outside the working directory.',
  );
  assert.equal(await fs.readFile(path.join(outside, 'keep.txt'), 'utf8'), 'outside\n');
  const read = await TOOLS.get('read_file')(ws, { path: 'alias.txt' }, { textBudget: 1 << 20 });
  assert.equal(read.output, 'outside\n');
});

test('with the editor writing (fs/write_text_file), a folder swapped after the check is refused before the editor is asked', async () => {
  const { ws, outside } = await workspace();
  const asked = [];
  await assert.rejects(
    writeAcross(
      ws,
      { path: 'sub/new.txt', content: PAYLOAD },
      async () => {
        await fs.rename(path.join(ws, 'sub'), path.join(ws, 'sub-was'));
        await fs.symlink('../outside', path.join(ws, 'sub'));
      },
      { writeTextFile: async (abs, text) => asked.push([abs, text]) },
    ),
    (err) => err instanceof ToolError && /changed after it was checked: "sub"/.test(err.message),
  );
  assert.deepEqual(asked, []);
  assert.deepEqual(await fs.readdir(outside), ['deeper', 'keep.txt']);

  // Unchanged, the editor gets the real path the prompt showed.
  await fs.rm(path.join(ws, 'sub'));
  await fs.rename(path.join(ws, 'sub-was'), path.join(ws, 'sub'));
  await writeAcross(ws, { path: 'sub/new.txt', content: 'ok\n' }, async () => {}, {
    writeTextFile: async (abs, text) => asked.push([abs, text]),
  });
  assert.deepEqual(asked, [[path.join(ws, 'sub', 'new.txt'), 'ok\n']]);
});
