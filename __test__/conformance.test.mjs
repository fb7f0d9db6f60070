// Every conformance stream through the package in all three input forms:
// SDK objects (pushEvent / pushChunk), raw SSE bytes split at every byte
// boundary (pushBytes), and the async generators (the pipeline for OpenAI),
// under both profiles: qwen-0.21 against Qwen Code 0.21.2's outputs,
// qwen-0.24 against 0.24.4's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { streams, expected, isTransportError, anthropicSse, openaiSse, PROFILES } from './helpers/corpus.mjs';
import { record, errorLine, compare, pipelineWithPreparations, flat } from './helpers/oracle-lines.mjs';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter, convertAnthropicStream, convertOpenAIStream } = require('../index.js');

/**
 * The pipeline corpus, with our one deliberate improvement (docs/behaviour.md §6.9.4): a
 * finish response merged with the chunks after it keeps their preparations,
 * where the reference's merged object loses them.
 */
function pipelineExpected(name, release) {
  return pipelineWithPreparations(
    expected(name, 'expected.ndjson', release),
    expected(name, 'pipeline.expected.ndjson', release),
  );
}

const untilThrow = (items) => {
  const at = items.findIndex((e) => e && e.__throw__);
  return at < 0 ? items : items.slice(0, at);
};

/** The model the oracle's generator is configured with: it never shows in a response (no message_start, no modelVersion). */
const ORACLE_MODEL = 'claude-oracle';

/** The error the harness's feed throws (`__throw__`), or undefined. */
function feedError(items) {
  const spec = items.find((e) => e && e.__throw__)?.__throw__;
  if (spec === undefined) return undefined;
  const e = new Error(spec.message);
  if (spec.code) e.code = spec.code;
  return e;
}

/** The end of SDK/byte input: `end()`, or `upstreamFailed` where the feed throws. */
function ending(c, items, push) {
  const error = feedError(items);
  for (const r of error ? c.upstreamFailed(error) : c.end()) push(r);
}

function anthropicBytes(pieces, profile, items) {
  const c = new AnthropicConverter({ profile, model: ORACLE_MODEL });
  const lines = [];
  try {
    for (const p of pieces) for (const r of c.pushBytes(p)) lines.push(record('event', undefined, r));
    ending(c, items, (r) => lines.push(record('event', undefined, r)));
  } catch (err) {
    for (const r of err.responses ?? []) lines.push(record('event', undefined, r));
    lines.push(errorLine('event', undefined, err));
  }
  return lines;
}

function openaiBytes(profile, pieces) {
  const c = new OpenAIConverter({ profile });
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

/** pushEvent over the events (objects or their JSON text), then the ending; one line per response or error. */
function anthropicEvents(items, profile, asText) {
  const c = new AnthropicConverter({ profile, model: ORACLE_MODEL });
  const lines = [];
  let tag = -1;
  try {
    untilThrow(items).forEach((event, i) => {
      tag = i;
      for (const r of c.pushEvent(asText ? JSON.stringify(event) : event)) lines.push(record('event', i, r));
    });
    tag = feedError(items) ? untilThrow(items).length : 'end';
    ending(c, items, (r) => lines.push(record('event', tag, r)));
  } catch (err) {
    lines.push(errorLine('event', tag, err));
  }
  return lines;
}

/**
 * The feed error where the generator rethrows it: the stream's own error
 * line when the run had one, else the feed's, unchanged.
 */
async function anthropicGenerator(items, profile, want) {
  let current = -1;
  async function* feed() {
    for (let i = 0; i < items.length; i++) {
      current = i;
      if (items[i]?.__throw__) throw feedError(items);
      yield items[i];
    }
    current = 'end';
  }
  const lines = [];
  try {
    for await (const r of convertAnthropicStream(feed(), { profile, model: ORACLE_MODEL }))
      lines.push(record('event', current, r));
  } catch (err) {
    const last = want.at(-1);
    assert.ok(last?.error, `unexpected error ${err.stack}`);
    if (isTransportError(last)) {
      assert.deepEqual(
        [err.code, err.message],
        [last.error.code, last.error.message],
        'the feed error propagates unchanged',
      );
    } else {
      lines.push(errorLine('event', current, err));
    }
  }
  return lines;
}

for (const [profile, release] of PROFILES) {
  for (const { name, items } of streams('anthropic-')) {
    const want = () => expected(name, 'expected.ndjson', release);

    test(`conformance ${name} (${profile}): pushEvent, objects and JSON text`, () => {
      compare(name, `pushEvent, ${profile}`, anthropicEvents(items, profile, false), want());
      compare(name, `pushEvent text, ${profile}`, anthropicEvents(items, profile, true), want());
    });

    test(`conformance ${name} (${profile}): pushBytes split at every byte`, () => {
      const whole = flat(anthropicEvents(items, profile, false));
      const body = Buffer.from(anthropicSse(untilThrow(items)));
      const run = (pieces) => flat(anthropicBytes(pieces, profile, items));
      assert.deepEqual(run([body]), whole, `${name}: whole body`);
      for (let at = 0; at <= body.length; at++) {
        assert.deepEqual(run([body.subarray(0, at), body.subarray(at)]), whole, `${name}: split at ${at}`);
      }
      // As strings too (a JS string split between UTF-16 units of one character is still whole code points here).
      assert.deepEqual(run([anthropicSse(untilThrow(items))]), whole, `${name}: string input`);
    });

    test(`conformance ${name} (${profile}): convertAnthropicStream`, async () => {
      compare(name, `convertAnthropicStream, ${profile}`, await anthropicGenerator(items, profile, want()), want());
    });
  }
}

for (const [profile, release] of PROFILES) {
  for (const { name, items } of streams('openai-')) {
    test(`conformance ${name} (${profile}): pushChunk`, () => {
      const c = new OpenAIConverter({ profile });
      const lines = [];
      for (let i = 0; i < items.length; i++) {
        try {
          lines.push(record('chunk', i, c.pushChunk(items[i])));
        } catch (err) {
          lines.push(errorLine('chunk', i, err));
          break;
        }
      }
      compare(name, `pushChunk, ${profile}`, lines, expected(name, 'expected.ndjson', release));
    });

    test(`conformance ${name} (${profile}): pushBytes split at every byte (LF and CRLF)`, () => {
      const want = flat(openaiBytes(profile, [Buffer.from(openaiSse(items))]));
      const wantChunks = [];
      const c = new OpenAIConverter({ profile });
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
          assert.deepEqual(
            flat(openaiBytes(profile, [body.subarray(0, at), body.subarray(at)])),
            want,
            `${name}: split at ${at}`,
          );
        }
      }
    });

    test(`conformance ${name} (${profile}): convertOpenAIStream (pipeline)`, async () => {
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
        for await (const r of convertOpenAIStream(feed(), { profile })) lines.push(record('chunk', current, r));
      } catch (err) {
        lines.push(errorLine('chunk', current, err));
      }
      compare(name, `convertOpenAIStream, ${profile}`, lines, pipelineExpected(name, release));
    });
  }
}
