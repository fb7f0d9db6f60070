// The raw-body path lets bytes through where the SDKs Qwen bundles do
// (lib/qwen/sdk-frames.mjs): nothing is lost or reordered at a normal end; a
// frame whose blank line ends what has arrived waits for one more byte in
// the Anthropic SDK's variant; a `\r\r` blank line's last `\r` waits for the
// next cut in both. The property below holds the cutter to the real openai
// SDK's decoder (Stream.fromSSEResponse, whose framing is the
// `lastFrameNeedsMoreBytes: false` variant) on connections that drop; the
// Anthropic variant is held to the real Qwen bundles in qwen-host.test.mjs
// (fixtures/sse-framing: drop-*) and the random differential. What the
// cutter holds has still reached the process: a converter behind it counts
// the held frames' argument bytes (`held()`, read with argumentProgress()).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Stream } from 'openai/streaming';
import { SdkFrameCutter } from '../lib/qwen/sdk-frames.mjs';
import { createRequire } from 'node:module';
import { AnthropicConverter, OpenAIConverter, getToolCallPreparations } from '../index.mjs';

const require = createRequire(import.meta.url);

const text = (u8) => Buffer.from(u8).toString('latin1');
const bytes = (s) => Uint8Array.from(Buffer.from(s, 'latin1'));
const ANTHROPIC = { lastFrameNeedsMoreBytes: true };
/** The `\n` escapes of JSON text: a backslash starts an escape, the byte after it is its letter. */
function lines(json) {
  let n = 0;
  for (let i = 0; i < json.length; i++) {
    if (json[i] !== '\\') continue;
    if (json[i + 1] === 'n') n++;
    i++;
  }
  return n;
}
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

test('held() is what end() would give at any point, and reading it changes nothing', () => {
  const piece = fc.constantFrom('\n', '\r', 'a', 'data: x', '\n\n', '\r\n\r\n', '\r\r', ':', 'é');
  for (const decoder of [ANTHROPIC, OPENAI]) {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 8 }).map((a) => a.join('')),
          { maxLength: 10 },
        ),
        (reads) => {
          const cutter = new SdkFrameCutter(decoder);
          let arrived = '';
          let sent = '';
          for (const r of reads) {
            arrived += r;
            sent += text(cutter.push(bytes(r)));
            assert.equal(sent + text(cutter.held()), arrived);
          }
          const { out, rest } = feed(reads, decoder);
          assert.equal(sent, out.join(''), 'the same cuts as without held()');
          assert.equal(text(cutter.end() ?? new Uint8Array()), rest);
        },
      ),
      { numRuns: 1000, seed: 11 },
    );
  }
});

/** An SSE body of one write_file call, its lines ended by `eol`, and where each argument fragment's frame ends. */
function writeFileBody(provider, eol) {
  const frame = (event, data) => `${event ? `event: ${event}${eol}` : ''}data: ${JSON.stringify(data)}${eol}${eol}`;
  const fragments = ['{"path":"a.txt",', '"content":"one\\ntwo', '\\\\n not a break\\', 'nthree\\n', 'ü✓"}'];
  let body;
  if (provider === 'anthropic') {
    body = frame('message_start', {
      type: 'message_start',
      message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 1, output_tokens: 1 } },
    });
    body += frame('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
    });
  } else {
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '' } };
    body = frame(undefined, {
      id: 'c',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { tool_calls: [call] } }],
    });
  }
  const ends = [];
  for (const partial of fragments) {
    body +=
      provider === 'anthropic'
        ? frame('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: partial },
          })
        : frame(undefined, {
            id: 'c',
            created: 1,
            model: 'm',
            choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: partial } }] } }],
          });
    ends.push({ end: Buffer.byteLength(body), partial });
  }
  return { body: Buffer.from(body), ends };
}

test('a converter behind the cutter counts every argument byte of every complete frame that has arrived, in both variants', () => {
  const { kHeldBytes } = require('../lib/converters/argument-progress.js');
  const cases = [
    ['anthropic', ANTHROPIC, AnthropicConverter],
    ['openai', OPENAI, OpenAIConverter],
  ];
  for (const [provider, decoder, Converter] of cases) {
    for (const eol of ['\n', '\r']) {
      const { body, ends } = writeFileBody(provider, eol);
      fc.assert(
        fc.property(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 12 }), (cuts) => {
          const at = [0, ...cuts.sort((a, b) => a - b), body.length];
          const cutter = new SdkFrameCutter(decoder);
          const converter = new Converter();
          converter[kHeldBytes](() => cutter.held());
          let prepared = false;
          for (let i = 1; i < at.length; i++) {
            for (const r of converter.pushBytes(cutter.push(body.subarray(at[i - 1], at[i]))))
              prepared ||= getToolCallPreparations(r).length > 0;
            if (!prepared) continue;
            const arrived = ends
              .filter((e) => e.end <= at[i])
              .map((e) => e.partial)
              .join('');
            const [call] = converter.argumentProgress().calls;
            assert.deepEqual(
              [call.argumentBytes, call.argumentLines],
              [Buffer.byteLength(arrived), lines(arrived)],
              `${provider} ${JSON.stringify(eol)}, ${at[i]} bytes arrived`,
            );
          }
          converter.free();
        }),
        { numRuns: 200, seed: 5 },
      );
    }
  }
});
