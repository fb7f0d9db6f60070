// An OpenAI Responses text or reasoning-summary delta crosses from native as
// a compact chunk under an OpenAI Responses header (`{h: {f: 2}}`,
// core/src/wire/batch.rs `compact`), its text part's message as a serial
// (`[4, text, serial]`), and lib/wire.js builds the response in Qwen's key
// order with the message's one shared object. The conformance tests compare
// the responses with Qwen's; these show the compact form is the one taken,
// so a fall back to whole items could not pass unseen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { OpenAIResponsesConverter } = require('../index.js');
const { native } = require('../lib/native.js');
const { NativeState, decode } = require('../lib/wire.js');

/** Every batch text native returned, in order (the number form left out). */
const batches = [];
for (const name of ['converterPushBytes', 'converterPushObject', 'converterEnd']) {
  const fn = native[name];
  native[name] = (...args) => {
    const out = fn(...args);
    if (typeof out === 'string') batches.push(out);
    else if (Array.isArray(out)) batches.push(out[0]);
    return out;
  };
}

const sse = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const EVENTS = [
  { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
  { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs_0', delta: 'think' },
  { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs_0', delta: ' more' },
  {
    type: 'response.output_item.added',
    output_index: 1,
    item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
  },
  // A string with escapes and an astral character, then values that are not strings (set as they came).
  { type: 'response.output_text.delta', output_index: 1, item_id: 'msg_1', delta: 'a "q"\n\u{1F600}' },
  { type: 'response.output_text.delta', output_index: 1, item_id: 'msg_1', delta: 42 },
  { type: 'response.output_text.delta', output_index: 1, item_id: 'msg_1', delta: { x: [1] } },
  {
    type: 'response.output_item.done',
    output_index: 1,
    item: { type: 'message', id: 'msg_1', role: 'assistant', phase: 'final_answer', content: [] },
  },
  { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [] } },
];
const BODY = new TextEncoder().encode(EVENTS.map(sse).join(''));

/** The items of every batch since `from`, the state words left out. */
const itemsSince = (from) => batches.slice(from).flatMap((b) => JSON.parse(b).slice(0, -1));

const FEEDS = {
  pushBytes: (c) => c.pushBytes(BODY),
  pushEvent: (c) => EVENTS.flatMap((e) => c.pushEvent(e)),
};

for (const [form, feed] of Object.entries(FEEDS)) {
  test(`${form}: text and summary deltas cross as compact chunks under the Responses header, built in Qwen's order with one shared message`, () => {
    const from = batches.length;
    const c = new OpenAIResponsesConverter({ model: 'm' });
    const out = [...feed(c), ...c.end()];
    const items = itemsSince(from);
    // One header per batch that has compact chunks (pushEvent: one per event).
    const headers = items.filter((i) => !Array.isArray(i) && i.h).map((i) => i.h);
    assert.ok(headers.length >= 1);
    for (const { f, responseId, modelVersion } of headers) {
      assert.deepEqual({ f, responseId, modelVersion }, { f: 2, responseId: 'resp_1', modelVersion: 'm' });
    }
    assert.deepEqual(items.filter(Array.isArray), [
      [1, 'think'],
      [1, ' more'],
      [4, 'a "q"\n\u{1F600}', 1],
      [4, 42, 1],
      [4, { x: [1] }, 1],
    ]);
    // Only the final response (finish reason, usage) travels whole.
    assert.equal(items.filter((i) => !Array.isArray(i) && i.r).length, 1);

    assert.equal(out.length, 6);
    for (const r of out.slice(0, 5)) {
      assert.deepEqual(Object.keys(r), ['candidates', 'responseId', 'modelVersion', 'createTime', 'promptFeedback']);
    }
    const parts = out.slice(0, 5).map((r) => r.candidates[0].content.parts[0]);
    assert.deepEqual(parts.slice(0, 2), [
      { text: 'think', thought: true },
      { text: ' more', thought: true },
    ]);
    assert.deepEqual(
      parts.slice(2).map((p) => p.text),
      ['a "q"\n\u{1F600}', 42, { x: [1] }],
    );
    // One object for the message, given its phase after the parts were yielded.
    assert.equal(parts[2].responsesMessage, parts[3].responsesMessage);
    assert.equal(parts[3].responsesMessage, parts[4].responsesMessage);
    assert.deepEqual(parts[2].responsesMessage, { id: 'msg_1', phase: 'final_answer' });
    assert.deepEqual(Object.keys(parts[2]), ['text', 'responsesMessage']);
  });
}

test('qwen-0.23.3: text parts carry no message and cross as plain compact text', () => {
  const from = batches.length;
  const c = new OpenAIResponsesConverter({ model: 'm', profile: 'qwen-0.23.3' });
  const out = [...c.pushBytes(BODY), ...c.end()];
  assert.deepEqual(itemsSince(from).filter(Array.isArray).slice(2), [
    [0, 'a "q"\n\u{1F600}'],
    [0, 42],
    [0, { x: [1] }],
  ]);
  assert.deepEqual(
    out.slice(2, 5).map((r) => r.candidates[0].content.parts[0]),
    [{ text: 'a "q"\n\u{1F600}' }, { text: 42 }, { text: { x: [1] } }],
  );
});

test('a compact text part naming a message native never sent is INTERNAL, never a part without its message', () => {
  const batch = JSON.stringify([{ h: { f: 2, createTime: '7', responseId: 'id' } }, [4, 'a', 9], 0]);
  assert.throws(
    () => decode(new NativeState(0, 0), batch, undefined, { Response: null }),
    (e) => e.code === 'INTERNAL' && /unknown message 9/.test(e.message),
  );
});
