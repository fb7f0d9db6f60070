// The provider response parsing Qwen Code switches on by provider
// (`responseParsingOptions`: the content-only thinking-tag leak guard and
// MiniMax's tagged thinking) against the oracle's outputs in
// fixtures/parsing (generate.mjs there): each case with the options its
// provider returned at each release, under the matching profile, in every
// input form: chunk objects, their JSON text, SSE bytes split at every byte
// (LF and CRLF) and the pipeline (convertOpenAIStream).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openaiSse } from './helpers/corpus.mjs';
import { record, errorLine, compare, pipelineWithPreparations, flat } from './helpers/oracle-lines.mjs';

const require = createRequire(import.meta.url);
const { OpenAIConverter, convertOpenAIStream } = require('../index.js');

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'parsing');
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

function chunks(items, options, asText) {
  const c = new OpenAIConverter(options);
  const out = [];
  for (let i = 0; i < items.length; i++) {
    try {
      out.push(record('chunk', i, c.pushChunk(asText ? JSON.stringify(items[i]) : items[i])));
    } catch (err) {
      out.push(errorLine('chunk', i, err));
      return out;
    }
  }
  return out;
}

function bytes(pieces, options) {
  const c = new OpenAIConverter(options);
  const out = [];
  try {
    for (const p of pieces) for (const r of c.pushBytes(p)) out.push(record('chunk', undefined, r));
    for (const r of c.end()) out.push(record('chunk', undefined, r));
  } catch (err) {
    for (const r of err.responses ?? []) out.push(record('chunk', undefined, r));
    out.push(errorLine('chunk', undefined, err));
  }
  return out;
}

async function pipeline(items, options) {
  let current = -1;
  async function* feed() {
    for (let i = 0; i < items.length; i++) {
      current = i;
      yield items[i];
    }
    current = 'end';
  }
  const out = [];
  try {
    for await (const r of convertOpenAIStream(feed(), options)) out.push(record('chunk', current, r));
  } catch (err) {
    out.push(errorLine('chunk', current, err));
  }
  return out;
}

for (const [key, { stream, responseParsing }] of Object.entries(cases)) {
  const items = JSON.parse(fs.readFileSync(path.join(dir, 'streams', `${stream}.json`), 'utf8'));
  for (const [version, profile, expectedDir] of RELEASES) {
    const options = { profile, responseParsing: responseParsing[version] };
    const want = lines(`${expectedDir}/${key}.expected.ndjson`);
    const name = `${key} (${profile})`;

    test(`response parsing ${name}: pushChunk, objects and JSON text`, () => {
      compare(name, 'pushChunk', chunks(items, options, false), want);
      compare(name, 'pushChunk text', chunks(items, options, true), want);
    });

    test(`response parsing ${name}: pushBytes split at every byte`, () => {
      // Bytes end with end(): the pipeline's end-of-stream check. Without
      // it, they are the chunks' lines.
      const whole = flat(bytes([Buffer.from(openaiSse(items))], options));
      const byChunk = chunks(items, options, false);
      const pending = !byChunk.at(-1)?.error && whole.length > byChunk.length;
      assert.deepEqual(pending ? whole.slice(0, byChunk.length) : whole, flat(byChunk), `${name}: bytes equal chunks`);
      for (const body of [Buffer.from(openaiSse(items)), Buffer.from(openaiSse(items).replaceAll('\n', '\r\n'))]) {
        for (let at = 0; at <= body.length; at++) {
          assert.deepEqual(
            flat(bytes([body.subarray(0, at), body.subarray(at)], options)),
            whole,
            `${name}: split at ${at}`,
          );
        }
      }
    });

    test(`response parsing ${name}: convertOpenAIStream (pipeline)`, async () => {
      const want = pipelineWithPreparations(
        lines(`${expectedDir}/${key}.expected.ndjson`),
        lines(`${expectedDir}/${key}.pipeline.expected.ndjson`),
      );
      compare(name, 'convertOpenAIStream', await pipeline(items, options), want);
    });
  }
}

test('responseParsing: options that are on and not implemented are INVALID_ARGUMENT; off ones are ignored', () => {
  for (const responseParsing of [{ somethingNew: 1 }, { taggedThinkingTags: true, futureOption: 'on' }, 'yes']) {
    assert.throws(
      () => new OpenAIConverter({ responseParsing }),
      (err) => err.code === 'INVALID_ARGUMENT',
      JSON.stringify(responseParsing),
    );
  }
  const c = new OpenAIConverter({ responseParsing: { taggedThinkingTagsAfterReasoning: false, somethingNew: 0 } });
  assert.deepEqual(c.pushChunk({ choices: [{ delta: { content: '<think>x' } }] }).candidates[0].content.parts, [
    { text: '<think>x' },
  ]);
});

test('responseParsing: the same stream differs with the option on, as the oracle says it does', () => {
  // Guards the fixtures themselves: a case whose releases disagree on the
  // options must produce different reference outputs somewhere.
  const differs = Object.entries(cases).filter(([key, c]) => {
    const [a, b] = ['expected', 'expected-0.24.4'].map((d) =>
      fs.readFileSync(path.join(dir, d, `${key}.expected.ndjson`), 'utf8'),
    );
    return JSON.stringify(c.responseParsing['0.21.2']) !== JSON.stringify(c.responseParsing['0.24.4']) && a !== b;
  });
  assert.ok(differs.length > 0);
});
