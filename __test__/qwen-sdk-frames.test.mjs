// The Anthropic raw-body path lets bytes through where the SDK Qwen bundles
// does (lib/qwen/sdk-frames.mjs): nothing is lost or reordered at a normal
// end, and a frame whose blank line ends what has arrived waits for one more
// byte. What this means end to end (the frame lost on a dropped connection,
// as stock Qwen loses it) is checked against the real bundle in
// qwen-host.test.mjs (fixtures/sse-framing: drop-*).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SdkFrameCutter } from '../lib/qwen/sdk-frames.mjs';

const text = (u8) => Buffer.from(u8).toString('latin1');
const bytes = (s) => Uint8Array.from(Buffer.from(s, 'latin1'));

function feed(reads) {
  const cutter = new SdkFrameCutter();
  const out = reads.map((r) => text(cutter.push(bytes(r))));
  return { out, rest: text(cutter.end() ?? new Uint8Array()) };
}

test('a frame that ends a read waits for the next byte', () => {
  assert.deepEqual(feed(['data: a\n\n']), { out: [''], rest: 'data: a\n\n' });
  assert.deepEqual(feed(['data: a\n\n', 'd']), { out: ['', 'data: a\n\n'], rest: 'd' });
  assert.deepEqual(feed(['data: a\n\nd']), { out: ['data: a\n\n'], rest: 'd' });
  assert.deepEqual(feed(['a\r\rb']), { out: ['a\r\r'], rest: 'b' });
  assert.deepEqual(feed(['a\r\n\r\nb']), { out: ['a\r\n\r\n'], rest: 'b' });
  // A `\r\n\r\n` blank line is found from its first byte, two bytes before
  // the end: a CRLF frame that ends a read goes through at once.
  assert.deepEqual(feed(['a\r\n\r\n']), { out: ['a\r\n\r\n'], rest: '' });
  assert.deepEqual(feed(['a\n\n\nb']), { out: ['a\n\n'], rest: '\nb' });
  assert.deepEqual(feed(['a\n\n\n\nb']), { out: ['a\n\n\n\n'], rest: 'b' });
});

test('every byte goes through once, in order, by the normal end', () => {
  const piece = fc.constantFrom('\n', '\r', 'a', 'data: x', '\n\n', '\r\n\r\n', ':', 'é');
  fc.assert(
    fc.property(
      fc.array(
        fc.array(piece, { maxLength: 8 }).map((a) => a.join('')),
        { maxLength: 10 },
      ),
      (reads) => {
        const { out, rest } = feed(reads);
        assert.equal(out.join('') + rest, reads.join(''));
        // What goes through always ends at a blank line.
        for (const o of out) if (o) assert.match(o, /(\n\n|\r\r|\r\n\r\n)$/);
      },
    ),
    { numRuns: 2000, seed: 7 },
  );
});
