// Split invariance through the package: every stream of the conformance,
// extra, quirk and qwen-0.24 corpora (Anthropic ones under both profiles),
// as raw SSE bytes (LF, CRLF, CR) fed one byte at a
// time and in random multi-splits (seeded, so a failure names its split),
// gives exactly the responses and preparations of whole events; as JS
// strings split anywhere, including between the two UTF-16 units of one
// character.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from '../devtools/random.mjs';
import { mask, anthropicSse, openaiSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter, getToolCallPreparations, ToolCallStreamError } = require('../index.js');

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

function allStreams() {
  const out = [];
  for (const dir of ['conformance', 'extra', 'quirks', 'qwen-0.24']) {
    const streams = path.join(fixtures, dir, 'streams');
    for (const file of fs.readdirSync(streams).sort()) {
      const items = JSON.parse(fs.readFileSync(path.join(streams, file), 'utf8'));
      const at = items.findIndex((e) => e && e.__throw__);
      const anthropic = file.startsWith('anthropic-');
      for (const profile of anthropic ? ['qwen-0.21', 'qwen-0.24'] : ['qwen-0.21']) {
        out.push({
          name: `${dir}/${file} (${profile})`,
          anthropic,
          profile,
          items: at < 0 ? items : items.slice(0, at),
        });
      }
    }
  }
  return out;
}

const converter = (stream) =>
  stream.anthropic ? new AnthropicConverter({ profile: stream.profile }) : new OpenAIConverter();

const line = (r) => JSON.stringify(mask({ r, p: getToolCallPreparations(r).map((p) => ({ ...p })) }));

function errorLine(err) {
  assert.ok(err instanceof ToolCallStreamError, `a ToolCallStreamError: ${err?.stack}`);
  return `error ${err.code} fatal=${err.fatal}`;
}

/** In-band provider errors: the byte stream throws STREAM_ERROR there (documented). */
function inBandError(stream) {
  return stream.items.findIndex((i) => i?.type === 'error' || (!stream.anthropic && i?.error));
}

/**
 * Whole events (pushEvent / pushChunk), then end(); or up to an in-band
 * error, then STREAM_ERROR. After a non-fatal error the next event is
 * taken, as the bytes go on after one.
 */
function wholeEvents(stream) {
  const stop = inBandError(stream);
  const items = stop < 0 ? stream.items : stream.items.slice(0, stop);
  const lines = [];
  const c = converter(stream);
  const step = (fn) => {
    try {
      for (const r of fn()) lines.push(line(r));
      return true;
    } catch (err) {
      for (const r of err.responses ?? []) lines.push(line(r));
      lines.push(errorLine(err));
      return !err.fatal;
    }
  };
  for (const item of items) {
    const ok = step(() => (stream.anthropic ? c.pushEvent(item) : [c.pushChunk(item)]));
    if (!ok) return lines;
  }
  if (stop >= 0) return [...lines, 'error STREAM_ERROR fatal=true'];
  step(() => c.end());
  return lines;
}

/** Pieces through pushBytes; after a non-fatal error the rest is still buffered and an empty push continues. */
function pushed(stream, pieces) {
  const c = converter(stream);
  const lines = [];
  const empty = typeof pieces[0] === 'string' ? '' : new Uint8Array(0);
  const step = (fn) => {
    for (;;) {
      try {
        for (const r of fn()) lines.push(line(r));
        return true;
      } catch (err) {
        for (const r of err.responses ?? []) lines.push(line(r));
        lines.push(errorLine(err));
        if (err.fatal) return false;
        fn = () => c.pushBytes(empty);
      }
    }
  };
  for (const p of pieces) if (!step(() => c.pushBytes(p))) return lines;
  step(() => c.end());
  return lines;
}

function randomSplit(body, random, max = 40) {
  const cuts = Array.from({ length: Math.floor(random() * max) }, () => Math.floor(random() * (body.length + 1))).sort(
    (a, b) => a - b,
  );
  const pieces = [];
  let from = 0;
  for (const c of cuts) {
    pieces.push(body.slice(from, c));
    from = c;
  }
  pieces.push(body.slice(from));
  return pieces;
}

const ENDINGS = ['\n', '\r\n', '\r'];

for (const stream of allStreams()) {
  const text = (ending) =>
    (stream.anthropic ? anthropicSse(stream.items) : openaiSse(stream.items)).replaceAll('\n', ending);

  test(`split ${stream.name}: one byte at a time and random multi-splits`, () => {
    const want = wholeEvents(stream);
    ENDINGS.forEach((ending, e) => {
      const body = Buffer.from(text(ending));
      const oneByOne = Array.from({ length: body.length }, (_, i) => body.subarray(i, i + 1));
      assert.deepEqual(pushed(stream, oneByOne), want, `${stream.name} ${JSON.stringify(ending)}: byte by byte`);
      const random = rng(0x5eed + e);
      for (let run = 0; run < 12; run++) {
        const pieces = randomSplit(body, random);
        assert.deepEqual(
          pushed(stream, pieces),
          want,
          `${stream.name} ${JSON.stringify(ending)}: split ${pieces.map((p) => p.length).join('+')}`,
        );
      }
    });
  });
}

test('strings split between the two UTF-16 units of a character keep the character', () => {
  const events = [
    {
      type: 'message_start',
      message: {
        id: 'msg_s',
        model: 'm',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    },
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'a😀b𝄞c' },
    },
    { type: 'content_block_stop', index: 0 },
  ];
  const stream = { name: 'surrogates', anthropic: true, profile: 'qwen-0.21', items: events };
  const want = wholeEvents(stream);
  const body = anthropicSse(events);
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i - 1);
    if (code >= 0xd800 && code <= 0xdbff) {
      assert.deepEqual(pushed(stream, [body.slice(0, i), body.slice(i)]), want, `split at UTF-16 unit ${i}`);
    }
  }
});

test('random string splits of every stream (whole code points) match whole events', () => {
  const random = rng(42);
  for (const stream of allStreams()) {
    const body = stream.anthropic ? anthropicSse(stream.items) : openaiSse(stream.items);
    const codePoints = [...body];
    const pieces = randomSplit(codePoints, random, 20).map((p) => p.join(''));
    assert.deepEqual(pushed(stream, pieces), wholeEvents(stream), stream.name);
  }
});
