// Every conformance stream through the package in all three input forms:
// SDK objects (pushEvent / pushChunk), raw SSE bytes split at every byte
// boundary (pushBytes), and the async generators (the pipeline for OpenAI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { streams, expected, mask, isTransportError, anthropicSse, openaiSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  convertAnthropicStream,
  convertOpenAIStream,
  getToolCallPreparations,
} = require('../index.js');
const { GenerateContentResponse } = require('@google/genai');

/** A response as the corpus records it (JSON view + out-of-band preparations). */
function record(tagKey, tag, response) {
  assert.ok(response instanceof GenerateContentResponse, 'a real GenerateContentResponse');
  const json = JSON.stringify(response);
  assert.ok(!json.includes('toolCallPreparations') && !json.includes('callId'), 'preparations never serialised');
  const line = { [tagKey]: tag, response: JSON.parse(json) };
  const preps = getToolCallPreparations(response);
  if (preps.length) line.toolCallPreparations = preps.map((p) => ({ ...p }));
  return line;
}

function errorLine(tagKey, tag, err) {
  assert.equal(typeof err.code, 'string', `a typed error: ${err.stack}`);
  return { [tagKey]: tag, error: { type: err.type ?? err.code } };
}

function compare(name, how, got, want) {
  want = want.filter((l) => !isTransportError(l));
  const gotIds = new Map();
  const wantIds = new Map();
  assert.equal(got.length, want.length, `${name} (${how}): line count\n${JSON.stringify(got, null, 1)}`);
  got.forEach((g, i) => {
    const w = want[i];
    if (w.error) {
      assert.deepEqual(g.error, { type: w.error.type ?? w.error.code }, `${name} (${how}) line ${i}`);
    } else {
      assert.equal(g.error, undefined, `${name} (${how}) line ${i}: unexpected ${JSON.stringify(g.error)}`);
      assert.deepEqual(mask(g.response, gotIds), mask(w.response, wantIds), `${name} (${how}) line ${i}`);
      assert.deepEqual(
        g.toolCallPreparations ?? [],
        w.toolCallPreparations ?? [],
        `${name} (${how}) line ${i}: preparations`,
      );
    }
    const tagKey = 'event' in w ? 'event' : 'chunk';
    if (g[tagKey] !== undefined) assert.equal(g[tagKey], w[tagKey], `${name} (${how}) line ${i}: tag`);
  });
}

/**
 * The pipeline corpus, with our one deliberate improvement (spec §6.9.4): a
 * finish response merged with the chunks after it keeps their preparations,
 * where the reference's merged object loses them.
 */
function pipelineExpected(name) {
  const converted = expected(name, 'expected.ndjson');
  return expected(name, 'pipeline.expected.ndjson').map((line) => {
    if (!line.response?.candidates?.[0]?.finishReason) return line;
    const sources = converted.filter(
      (c) => c.response && (c.response.candidates?.[0]?.finishReason || c.chunk === line.chunk),
    );
    const seen = new Set();
    const preps = sources
      .flatMap((c) => c.toolCallPreparations ?? [])
      .filter((p) => !seen.has(p.callId) && seen.add(p.callId));
    return preps.length ? { ...line, toolCallPreparations: preps } : line;
  });
}

const untilThrow = (items) => {
  const at = items.findIndex((e) => e && e.__throw__);
  return at < 0 ? items : items.slice(0, at);
};

/** Everything but the tag, for comparing byte-split runs with whole runs. */
const flat = (lines) => lines.map(({ event, chunk, ...rest }) => JSON.stringify(mask(rest)));

function anthropicBytes(pieces) {
  const c = new AnthropicConverter();
  const lines = [];
  try {
    for (const p of pieces) for (const r of c.pushBytes(p)) lines.push(record('event', undefined, r));
    for (const r of c.end()) lines.push(record('event', undefined, r));
  } catch (err) {
    for (const r of err.responses ?? []) lines.push(record('event', undefined, r));
    lines.push(errorLine('event', undefined, err));
  }
  return lines;
}

function openaiBytes(pieces) {
  const c = new OpenAIConverter();
  const lines = [];
  try {
    for (const p of pieces) for (const r of c.pushBytes(p)) lines.push(record('chunk', undefined, r));
    for (const r of c.end()) lines.push(record('chunk', undefined, r));
  } catch (err) {
    for (const r of err.responses ?? []) lines.push(record('chunk', undefined, r));
    lines.push(errorLine('chunk', undefined, err));
  }
  return lines;
}

for (const { name, items } of streams('anthropic-')) {
  test(`conformance ${name}: pushEvent`, () => {
    const c = new AnthropicConverter();
    const lines = [];
    untilThrow(items).forEach((event, i) => {
      for (const r of c.pushEvent(event)) lines.push(record('event', i, r));
    });
    compare(name, 'pushEvent', lines, expected(name, 'expected.ndjson'));
  });

  test(`conformance ${name}: pushBytes split at every byte`, () => {
    const whole = [];
    const c = new AnthropicConverter();
    for (const e of untilThrow(items)) for (const r of c.pushEvent(e)) whole.push(record('event', undefined, r));
    const body = Buffer.from(anthropicSse(untilThrow(items)));
    const want = flat(whole);
    assert.deepEqual(flat(anthropicBytes([body])), want, `${name}: whole body`);
    for (let at = 0; at <= body.length; at++) {
      assert.deepEqual(
        flat(anthropicBytes([body.subarray(0, at), body.subarray(at)])),
        want,
        `${name}: split at ${at}`,
      );
    }
    // As strings too (a JS string split between UTF-16 units of one character is still whole code points here).
    assert.deepEqual(flat(anthropicBytes([anthropicSse(untilThrow(items))])), want, `${name}: string input`);
  });

  test(`conformance ${name}: convertAnthropicStream`, async () => {
    let current = -1;
    async function* feed() {
      for (let i = 0; i < items.length; i++) {
        current = i;
        if (items[i].__throw__) {
          const e = new Error(items[i].__throw__.message);
          e.code = items[i].__throw__.code;
          throw e;
        }
        yield items[i];
      }
      current = 'end';
    }
    const lines = [];
    const want = expected(name, 'expected.ndjson');
    try {
      for await (const r of convertAnthropicStream(feed())) lines.push(record('event', current, r));
    } catch (err) {
      const last = want.at(-1);
      assert.ok(last.error, `${name}: unexpected error ${err.stack}`);
      assert.equal(err.code, last.error.code, 'the feed error propagates unchanged');
    }
    compare(name, 'convertAnthropicStream', lines, want);
  });
}

for (const { name, items } of streams('openai-')) {
  test(`conformance ${name}: pushChunk`, () => {
    const c = new OpenAIConverter();
    const lines = [];
    for (let i = 0; i < items.length; i++) {
      try {
        lines.push(record('chunk', i, c.pushChunk(items[i])));
      } catch (err) {
        lines.push(errorLine('chunk', i, err));
        break;
      }
    }
    compare(name, 'pushChunk', lines, expected(name, 'expected.ndjson'));
  });

  test(`conformance ${name}: pushBytes split at every byte (LF and CRLF)`, () => {
    const want = flat(openaiBytes([Buffer.from(openaiSse(items))]));
    const wantChunks = [];
    const c = new OpenAIConverter();
    for (const chunk of items) {
      try {
        wantChunks.push(record('chunk', undefined, c.pushChunk(chunk)));
      } catch (err) {
        wantChunks.push(errorLine('chunk', undefined, err));
        break;
      }
    }
    assert.deepEqual(want, flat(wantChunks), `${name}: bytes equal chunks`);
    for (const body of [Buffer.from(openaiSse(items)), Buffer.from(openaiSse(items).replaceAll('\n', '\r\n'))]) {
      for (let at = 0; at <= body.length; at++) {
        assert.deepEqual(flat(openaiBytes([body.subarray(0, at), body.subarray(at)])), want, `${name}: split at ${at}`);
      }
    }
  });

  test(`conformance ${name}: convertOpenAIStream (pipeline)`, async () => {
    let current = -1;
    async function* feed() {
      for (let i = 0; i < items.length; i++) {
        current = i;
        yield items[i];
      }
      current = 'end';
    }
    const lines = [];
    try {
      for await (const r of convertOpenAIStream(feed())) lines.push(record('chunk', current, r));
    } catch (err) {
      lines.push(errorLine('chunk', current, err));
    }
    compare(name, 'convertOpenAIStream', lines, pipelineExpected(name));
  });
}
