// OpenAI tool-call ids that are not strings. Under a host's `jsToolCallIds`
// (the Qwen preload's setting) the converter takes them as Qwen's
// StreamingToolCallParser does: every truthy id, compared as `Map` and `===`
// compare it, and written as it came; the outputs must be the published
// builds' (fixtures/js-tool-call-ids, both releases), from objects, JSON text
// and bytes. Without it, ids are strings: a number by its text, other types
// ignored (RELIABILITY.md, "Deliberate differences").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PROFILES, openaiSse } from './helpers/corpus.mjs';
import { record, errorLine, compare } from './helpers/oracle-lines.mjs';

const require = createRequire(import.meta.url);
const { OpenAIConverter, getToolCallPreparations } = require('../index.js');
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'js-tool-call-ids');
const read = (...p) => fs.readFileSync(path.join(dir, ...p), 'utf8');
const names = fs
  .readdirSync(path.join(dir, 'streams'))
  .sort()
  .map((f) => f.replace(/\.json$/, ''));
function convert(items, profile, form) {
  // The host's own store receives the preparations as they are (this
  // package's store keeps `callId` as a string, as its type says).
  const raw = new WeakMap();
  const host = { jsToolCallIds: true, preparations: { set: (response, list) => raw.set(response, list) } };
  const c = new OpenAIConverter({ profile, host });
  const lines = [];
  const push = (r, i) => {
    const line = record('chunk', i, r);
    if (raw.has(r)) line.toolCallPreparations = raw.get(r).map((p) => ({ ...p }));
    lines.push(line);
  };
  try {
    if (form === 'bytes') {
      for (const r of c.pushBytes(Buffer.from(openaiSse(items)))) push(r);
    } else {
      items.forEach((chunk, i) => push(c.pushChunk(form === 'text' ? JSON.stringify(chunk) : chunk), i));
    }
    for (const r of c.end()) push(r);
  } catch (err) {
    lines.push(errorLine('chunk', undefined, err));
  }
  return lines;
}

test('with jsToolCallIds, ids of every type give what the published builds give', () => {
  assert.ok(names.length >= 5);
  for (const name of names) {
    const items = JSON.parse(read('streams', `${name}.json`));
    for (const [profile, release] of PROFILES) {
      const want = read(release, `${name}.expected.ndjson`)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      for (const form of ['objects', 'text']) compare(name, `${profile}, ${form}`, convert(items, profile, form), want);
      // Bytes: the same responses, without the per-chunk tags.
      const fromBytes = convert(items, profile, 'bytes').map(({ chunk, ...rest }) => rest);
      const fromObjects = convert(items, profile, 'objects').map(({ chunk, ...rest }) => rest);
      assert.equal(
        JSON.stringify(fromBytes.map((l) => l.toolCallPreparations)),
        JSON.stringify(fromObjects.map((l) => l.toolCallPreparations)),
      );
    }
  }
});

test('without it, ids are strings: a number by its text, other types ignored', () => {
  const items = JSON.parse(read('streams', 'openai-id-number-and-its-text.json'));
  const c = new OpenAIConverter();
  const preps = items.flatMap((chunk) => getToolCallPreparations(c.pushChunk(chunk)));
  // 5 and "5" are one id here: announced once.
  assert.deepEqual(preps, [{ callId: '5', toolName: 'read_file' }]);
  const truthy = JSON.parse(read('streams', 'openai-id-true.json'));
  const d = new OpenAIConverter();
  const responses = truthy.map((chunk) => d.pushChunk(chunk));
  assert.deepEqual(
    responses.flatMap((r) => getToolCallPreparations(r)),
    [],
  );
  const call = responses.at(-1).candidates[0].content.parts[0].functionCall;
  assert.equal(typeof call.id, 'string');
  assert.match(call.id, /^call_/);
});

test('a host must give jsToolCallIds as a boolean', () => {
  assert.throws(() => new OpenAIConverter({ host: { jsToolCallIds: 'yes' } }), { code: 'INVALID_ARGUMENT' });
});
