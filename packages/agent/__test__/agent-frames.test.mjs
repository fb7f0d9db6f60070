// The agent's frame bounding (lib/frames.js): texts are cut by their JSON
// size, at code point boundaries, and the size it reports is the real one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rng } from './helpers/random.mjs';

const require = createRequire(import.meta.url);
const { truncateText, jsonTextBytes, boundRawInput } = require('../lib/frames.js');

const jsonBytes = (s) => Buffer.byteLength(JSON.stringify(s)) - 2;

/** Strings mixing ASCII, escapes, control characters, 2/3/4-byte characters and lone surrogates. */
function randomString(rand, length) {
  const pool = ['a', '"', '\\', '\n', '\u0001', '\u007f', 'é', '€', '😀', '\ud800', '\udfff', ' '];
  let s = '';
  for (let i = 0; i < length; i++) s += pool[Math.floor(rand() * pool.length)];
  return s;
}

test('jsonTextBytes is the UTF-8 size of the JSON string body', () => {
  const rand = rng(17);
  for (let i = 0; i < 500; i++) {
    const s = randomString(rand, Math.floor(rand() * 40));
    assert.equal(jsonTextBytes(s), jsonBytes(s), JSON.stringify(s));
  }
});

test('truncateText fits the budget, keeps a prefix, never splits a surrogate pair', () => {
  const rand = rng(4242);
  for (let i = 0; i < 500; i++) {
    const s = randomString(rand, 1 + Math.floor(rand() * 40));
    const budget = Math.floor(rand() * 80);
    const cut = truncateText(s, budget);
    assert.ok(s.startsWith(cut.text));
    assert.ok(jsonBytes(cut.text) <= budget, `${JSON.stringify(cut.text)} over ${budget}`);
    assert.equal(cut.truncated, cut.text !== s);
    assert.equal(cut.bytes, jsonBytes(s));
    if (cut.truncated) {
      // The next code point would not have fitted.
      const next = String.fromCodePoint(s.codePointAt(cut.text.length));
      assert.ok(jsonBytes(cut.text + next) > budget);
      const last = cut.text.charCodeAt(cut.text.length - 1);
      const following = s.charCodeAt(cut.text.length);
      assert.ok(!(last >= 0xd800 && last <= 0xdbff && following >= 0xdc00 && following <= 0xdfff), 'pair split');
    }
  }
});

test('boundRawInput leaves small arguments alone and cuts large ones below the budget', () => {
  const small = { path: 'a.txt', content: 'x' };
  assert.deepEqual(boundRawInput(small, 1000), {
    rawInput: small,
    truncated: false,
    bytes: JSON.stringify(small).length,
  });
  const big = { path: 'big.txt', content: '\u0001'.repeat(100_000), list: ['y'.repeat(50_000)] };
  const out = boundRawInput(big, 4096);
  assert.equal(out.truncated, true);
  assert.equal(out.bytes, Buffer.byteLength(JSON.stringify(big)));
  assert.ok(Buffer.byteLength(JSON.stringify(out.rawInput)) <= 4096 + 64);
  assert.equal(out.rawInput.path, 'big.txt');
  assert.ok(big.content.startsWith(out.rawInput.content));
});
