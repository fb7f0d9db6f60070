// The raw-body path lets bytes through where the SDKs Qwen bundles do
// (lib/qwen/sdk-frames.mjs): nothing is lost or reordered at a normal end; a
// frame whose blank line ends what has arrived waits for one more byte in
// the Anthropic SDK's variant; a `\r\r` blank line's last `\r` waits for the
// next cut in both. The property below holds the cutter to the real openai
// SDK's decoder (Stream.fromSSEResponse, whose framing is the
// `lastFrameNeedsMoreBytes: false` variant) on connections that drop; the
// Anthropic variant is held to the real Qwen bundles in qwen-host.test.mjs
// (fixtures/sse-framing: drop-*) and the random differential.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Stream } from 'openai/streaming';
import { SdkFrameCutter } from '../lib/qwen/sdk-frames.mjs';
import { OpenAIConverter } from '../index.mjs';

const text = (u8) => Buffer.from(u8).toString('latin1');
const bytes = (s) => Uint8Array.from(Buffer.from(s, 'latin1'));
const ANTHROPIC = { lastFrameNeedsMoreBytes: true };
const OPENAI = { lastFrameNeedsMoreBytes: false };

function feed(reads, decoder) {
  const cutter = new SdkFrameCutter(decoder);
  const out = reads.map((r) => text(cutter.push(bytes(r))));
  return { out, rest: text(cutter.end() ?? new Uint8Array()) };
}

test('Anthropic variant: a frame that ends a read waits for the next byte', () => {
  assert.deepEqual(feed(['data: a\n\n'], ANTHROPIC), { out: [''], rest: 'data: a\n\n' });
  assert.deepEqual(feed(['data: a\n\n', 'd'], ANTHROPIC), { out: ['', 'data: a\n\n'], rest: 'd' });
  assert.deepEqual(feed(['data: a\n\nd'], ANTHROPIC), { out: ['data: a\n\n'], rest: 'd' });
  assert.deepEqual(feed(['a\r\n\r\nb'], ANTHROPIC), { out: ['a\r\n\r\n'], rest: 'b' });
  // A `\r\n\r\n` blank line is found from its first byte, two bytes before
  // the end: a CRLF frame that ends a read goes through at once.
  assert.deepEqual(feed(['a\r\n\r\n'], ANTHROPIC), { out: ['a\r\n\r\n'], rest: '' });
  assert.deepEqual(feed(['a\n\n\nb'], ANTHROPIC), { out: ['a\n\n'], rest: '\nb' });
  assert.deepEqual(feed(['a\n\n\n\nb'], ANTHROPIC), { out: ['a\n\n\n\n'], rest: 'b' });
});

test('OpenAI variant: a frame goes through as soon as its blank line has arrived', () => {
  assert.deepEqual(feed(['data: a\n\n'], OPENAI), { out: ['data: a\n\n'], rest: '' });
  assert.deepEqual(feed(['a\n\n\nb'], OPENAI), { out: ['a\n\n'], rest: '\nb' });
  // `\r\n\r` then another byte is no blank line to findDoubleNewlineIndex:
  // the frame waits for the next one.
  assert.deepEqual(feed(['a\r\n\rd'], OPENAI), { out: [''], rest: 'a\r\n\rd' });
});

test("both variants: a cut's trailing \\r waits for the next cut, as LineDecoder holds it", () => {
  for (const decoder of [ANTHROPIC, OPENAI]) {
    assert.deepEqual(feed(['a\r\rb'], decoder), { out: ['a\r'], rest: '\rb' });
    assert.deepEqual(feed(['a\r\rb', 'c\n\nd'], decoder), { out: ['a\r', '\rbc\n\n'], rest: 'd' });
    // A read with no cut passes nothing, the `\r` stays held.
    assert.deepEqual(feed(['a\r\rb', 'c'], decoder), { out: ['a\r', ''], rest: '\rbc' });
  }
});

test('every byte goes through once, in order, by the normal end', () => {
  const piece = fc.constantFrom('\n', '\r', 'a', 'data: x', '\n\n', '\r\n\r\n', '\r\r', ':', 'é');
  for (const decoder of [ANTHROPIC, OPENAI]) {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 8 }).map((a) => a.join('')),
          { maxLength: 10 },
        ),
        (reads) => {
          const { out, rest } = feed(reads, decoder);
          assert.equal(out.join('') + rest, reads.join(''));
          // What has gone through always ends at a blank line (its last `\r` maybe still held).
          let sent = '';
          for (const o of out) {
            sent += o;
            if (o) assert.match(sent, /(\n\n|\r\r|\r\n\r\n|\r)$/);
          }
        },
      ),
      { numRuns: 1000, seed: 7 },
    );
  }
});

/** The chunks the real openai SDK yields for `reads`, then the connection drops. */
async function sdkBeforeDrop(reads) {
  let i = 0;
  const body = new ReadableStream({
    pull(c) {
      if (i < reads.length) c.enqueue(bytes(reads[i++]));
      else c.error(new TypeError('terminated'));
    },
  });
  const got = [];
  try {
    for await (const chunk of Stream.fromSSEResponse(new Response(body), new AbortController()))
      got.push(chunk.choices[0].delta.content);
  } catch (err) {
    assert.equal(err.message, 'terminated');
  }
  return got;
}

/** The chunks the native converter gives for what the cutter lets through before the drop. */
function nativeBeforeDrop(reads) {
  const cutter = new SdkFrameCutter(OPENAI);
  const converter = new OpenAIConverter();
  const got = [];
  for (const r of reads)
    for (const response of converter.pushBytes(cutter.push(bytes(r))))
      got.push(response.candidates[0].content.parts[0].text);
  converter.free();
  return got;
}

test('on a dropped connection, the native converter behind the cutter sees exactly the chunks the openai SDK yields', async () => {
  // Every blank line the SDKs know, as the lines' two endings (`\r` then `\n` would be one).
  const blankLine = fc.constantFrom('\n\n', '\r\r', '\r\n\r\n', '\n\r', '\r\n\r', '\n\r\n', '\r\n\n');
  // Each event's text is its place in brackets: no text begins another
  // (Qwen's converter reads such a chunk as cumulative text).
  const events = fc
    .array(blankLine, { minLength: 1, maxLength: 6 })
    .map((ends) => ends.map((end, k) => `data: {"choices":[{"delta":{"content":"[${k}]"}}]}${end}`));
  const stream = fc.tuple(events, fc.array(fc.nat(), { maxLength: 6 })).map(([events, cuts]) => {
    const body = events.join('');
    const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((x, y) => x - y);
    return [0, ...at, body.length].slice(1).map((end, k, all) => body.slice(k === 0 ? 0 : all[k - 1], end));
  });
  let heldBack = 0;
  await fc.assert(
    fc.asyncProperty(stream, async (reads) => {
      const sdk = await sdkBeforeDrop(reads);
      const native = nativeBeforeDrop(reads);
      assert.deepEqual(native, sdk);
      const events = reads.join('').split(/data: /).length - 1;
      if (sdk.length < events) heldBack++;
    }),
    { numRuns: 600, seed: 11 },
  );
  // The property met drops that lose held-back events, not only clean ones.
  assert.ok(heldBack > 50, `${heldBack} streams lost an event at the drop`);
});
