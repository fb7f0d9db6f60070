// A compact chunk's keys come from the key order its header names (`f`, the
// header id a provider declares with its order, core/src/model/key_order.rs):
// the JS layer builds each known order by table
// (lib/generated/simple-response.js) and refuses an id it has no order for,
// rather than giving the chunk another provider's keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { NativeState, decode } = require('../lib/wire.js');
const { ToolCallStreamError } = require('../index.js');

const batch = (f) => JSON.stringify([{ h: { f, createTime: '7', responseId: 'id' } }, [0, 'a'], [2], 0]);
const host = { Response: null };

test('each declared header id builds its own key order', () => {
  const keysOf = (f) => decode(new NativeState(0, 0), batch(f), undefined, host).map((r) => Object.keys(r));
  const anthropic = ['responseId', 'createTime', 'promptFeedback', 'candidates'];
  const openai = ['candidates', 'responseId', 'createTime', 'promptFeedback'];
  assert.deepEqual(keysOf(0), [anthropic, anthropic]);
  assert.deepEqual(keysOf(1), [openai, openai]);
  // OpenAI Responses: the converter then sets the keys a header leaves out (lib/converters/openai-responses/converter.js).
  const responses = ['candidates', 'responseId', 'createTime', 'promptFeedback'];
  assert.deepEqual(keysOf(2), [responses, responses]);
});

test('a header id no provider declares is refused, never given a default order', () => {
  for (const f of [200, 255, -1, '0', null]) {
    assert.throws(
      () => decode(new NativeState(0, 0), batch(f), undefined, host),
      (e) => e instanceof ToolCallStreamError && e.code === 'INTERNAL' && e.message.includes(`header id ${f}`),
      `f ${JSON.stringify(f)}`,
    );
  }
});
