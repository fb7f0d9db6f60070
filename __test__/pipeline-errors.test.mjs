// The OpenAI pipeline's error path (Qwen Code pipeline.ts,
// `processStreamWithLogging`'s catch; docs/behaviour.md §3.1) against the published
// pipeline's outputs in fixtures/pipeline-errors (generate.mjs there): a
// source that throws, is aborted or times out, or carries an `error_finish`
// chunk, while a closing thinking-tag candidate is pending or a finish is
// held; at both releases, under the matching profile and the provider's
// response parsing, with the source's chunks as objects, as JSON text and as
// SSE bytes split at random points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mask } from './helpers/corpus.mjs';
import { record } from './helpers/oracle-lines.mjs';
import { rng } from '../devtools/random.mjs';

const require = createRequire(import.meta.url);
const { convertOpenAIStream, OpenAIConverter, ToolCallStreamError } = require('../index.js');

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'pipeline-errors');
const cases = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'));
const RELEASES = [
  ['0.21.2', 'qwen-0.21', 'expected'],
  ['0.24.4', 'qwen-0.24', 'expected-0.24.4'],
];

const lines = (file) =>
  fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** The error a source throws for `{"__throw__": …}`. */
function sourceError({ message, code, name }) {
  const err = new Error(message);
  if (code) err.code = code;
  if (name) err.name = name;
  return err;
}

/** The source in one form: objects, JSON text, or SSE bytes cut at `cuts` (then the throw). */
function source(items, form, controller, abort, random) {
  const at = items.findIndex((i) => i?.__throw__);
  const chunks = at < 0 ? items : items.slice(0, at);
  const fail = () => {
    if (abort) controller.abort();
    throw sourceError(items[at].__throw__);
  };
  let current = -1;
  const feed = async function* () {
    if (form === 'bytes') {
      // No [DONE]: the body breaks off, or ends after its last chunk.
      const body = Buffer.from(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join(''));
      const cuts = [
        ...new Set(Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * body.length))),
      ].sort((a, b) => a - b);
      let from = 0;
      for (const cut of [...cuts, body.length]) {
        yield body.subarray(from, cut);
        from = cut;
      }
    } else {
      for (let i = 0; i < chunks.length; i++) {
        current = i;
        yield form === 'text' ? JSON.stringify(chunks[i]) : chunks[i];
      }
    }
    current = at < 0 ? 'end' : at;
    if (at >= 0) fail();
  };
  return { feed: feed(), tag: () => (form === 'bytes' ? undefined : current) };
}

async function run(items, form, options, abort, random) {
  const controller = new AbortController();
  const { feed, tag } = source(items, form, controller, abort, random);
  const out = [];
  try {
    for await (const r of convertOpenAIStream(feed, { ...options, signal: controller.signal })) {
      out.push(record('chunk', tag(), r));
    }
  } catch (err) {
    // This package's own errors carry the reference's name and message (a
    // StreamContentError has no type there; here its code is STREAM_ERROR);
    // a source's error is the source's own object.
    const error =
      err.name === 'StreamContentError'
        ? { name: err.name, message: err.message }
        : { name: err.name, type: err.type ?? err.code };
    if (err.code === 'PROTOCOL_TAG_LEAK') error.message = err.message;
    out.push({ chunk: tag(), error });
  }
  return out;
}

function want(file) {
  return lines(file).map((l) => {
    if (!l.error) return l;
    const error =
      l.error.name === 'StreamContentError'
        ? { name: l.error.name, message: l.error.message }
        : { name: l.error.name, type: l.error.type ?? l.error.code };
    if (l.error.type === 'PROTOCOL_TAG_LEAK') error.message = l.error.message;
    return { chunk: l.chunk, error };
  });
}

function same(name, got, expected) {
  const gotIds = new Map();
  const wantIds = new Map();
  const view = (l, ids, withTag) => ({
    ...(withTag ? { chunk: l.chunk } : {}),
    ...(l.error ? { error: l.error } : { response: mask(l.response, ids), preparations: l.toolCallPreparations ?? [] }),
  });
  const withTag = got.some((l) => l.chunk !== undefined);
  assert.deepEqual(
    got.map((l) => view(l, gotIds, withTag)),
    expected.map((l) => view(l, wantIds, withTag)),
    name,
  );
}

for (const [key, { stream, abort, responseParsing }] of Object.entries(cases)) {
  const items = JSON.parse(fs.readFileSync(path.join(dir, 'streams', `${stream}.json`), 'utf8'));
  for (const [version, profile, expectedDir] of RELEASES) {
    if (!(version in responseParsing)) continue;
    const options = { profile, responseParsing: responseParsing[version] };
    const expected = want(`${expectedDir}/${key}.pipeline.expected.ndjson`);
    test(`pipeline error path ${key} (${profile}): objects, JSON text, bytes split anywhere`, async () => {
      same(`${key} (${profile}) objects`, await run(items, 'objects', options, abort), expected);
      same(`${key} (${profile}) JSON text`, await run(items, 'text', options, abort), expected);
      const random = rng(key.length * 7919 + profile.length);
      for (let i = 0; i < 8; i++) {
        same(`${key} (${profile}) bytes #${i}`, await run(items, 'bytes', options, abort, random), expected);
      }
    });
  }
}

test('the fixtures exercise every branch of the catch', () => {
  const all = RELEASES.flatMap(([, , d]) =>
    Object.keys(cases)
      .filter((key) => fs.existsSync(path.join(dir, d, `${key}.pipeline.expected.ndjson`)))
      .map((key) => ({ key, d, last: lines(`${d}/${key}.pipeline.expected.ndjson`).at(-1) })),
  );
  const errors = all.map((c) => c.last?.error).filter(Boolean);
  assert.ok(
    errors.some((e) => e.type === 'PROTOCOL_TAG_LEAK'),
    'a transport error becomes PROTOCOL_TAG_LEAK',
  );
  assert.ok(
    errors.some((e) => e.code === 'ECONNRESET'),
    'a transport error kept',
  );
  assert.ok(
    errors.some((e) => e.name === 'StreamContentError'),
    'a StreamContentError kept',
  );
  assert.ok(
    errors.some((e) => e.name === 'StreamInactivityTimeoutError'),
    'a stream timeout kept',
  );
  // 0.24.4 yields a held finish before rethrowing; 0.21.2 never does.
  const flushed = (d) =>
    Object.keys(cases).filter((key) => {
      if (!fs.existsSync(path.join(dir, d, `${key}.pipeline.expected.ndjson`))) return false;
      const l = lines(`${d}/${key}.pipeline.expected.ndjson`);
      return (
        l.length > 1 &&
        l.at(-1).error &&
        l.at(-2).response?.candidates?.[0]?.finishReason &&
        l.at(-2).chunk === l.at(-1).chunk
      );
    });
  assert.deepEqual(flushed('expected'), []);
  assert.ok(flushed('expected-0.24.4').length >= 3, flushed('expected-0.24.4').join());
});

test('options.signal must be an AbortSignal', async () => {
  for (const signal of [true, 'aborted', {}]) {
    await assert.rejects(
      async () => {
        for await (const r of convertOpenAIStream([], { signal })) void r;
      },
      (err) => err.code === 'INVALID_ARGUMENT',
      String(signal),
    );
  }
  const c = new OpenAIConverter({ throwOnErrorFinish: false });
  assert.equal(c.finished, false);
  assert.throws(
    () => new OpenAIConverter({ throwOnErrorFinish: 'yes' }),
    (err) => err.code === 'INVALID_ARGUMENT',
  );
  assert.throws(
    () => new OpenAIConverter({ dropEmptyResponses: 1 }),
    (err) =>
      err instanceof ToolCallStreamError && err.code === 'INVALID_ARGUMENT' && /dropEmptyResponses/.test(err.message),
  );
});

test('an abort after the source failed still keeps the original error (the signal is read when the error arrives)', async () => {
  // A closing-tag candidate pending; the source throws, the signal is not aborted: PROTOCOL_TAG_LEAK.
  const items = JSON.parse(
    fs.readFileSync(path.join(dir, 'streams', 'openai-closing-tag-then-transport-error.json'), 'utf8'),
  );
  const got = await run(items, 'objects', {}, false);
  assert.equal(got.at(-1).error.type, 'PROTOCOL_TAG_LEAK');
  const aborted = await run(items, 'objects', {}, true);
  assert.equal(aborted.at(-1).error.type, 'ECONNRESET');
});
