// index.d.ts / index.d.mts are complete: a consumer that uses every public API
// through `import` and `require` type-checks with `tsc --strict --noEmit`, and
// every export of the runtime module has a declaration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

test('the TypeScript consumer type-checks with tsc --strict', { timeout: 120_000 }, () => {
  const tscPkg = require.resolve('typescript/package.json');
  const tsc = path.join(path.dirname(tscPkg), require(tscPkg).bin.tsc);
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, '__test__', 'types', 'tsconfig.json')], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});

test('every runtime export is declared in index.d.ts and used by the consumer', () => {
  const runtime = Object.keys(require('../index.js'));
  const dts =
    fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8') +
    fs.readFileSync(path.join(root, 'lib', 'acp.d.ts'), 'utf8');
  const consumer = fs.readFileSync(path.join(root, '__test__', 'types', 'consumer.mts'), 'utf8');
  for (const name of runtime) {
    assert.match(dts, new RegExp(`export declare (?:class|function) ${name}\\b`), `${name} has no declaration`);
    assert.match(consumer, new RegExp(`\\b${name}\\b`), `${name} is not used by the consumer`);
  }
});
