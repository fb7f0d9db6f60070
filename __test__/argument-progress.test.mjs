// How far an open call's arguments have come, read from the converter that
// made a response with preparations (getToolCallProgress, argumentProgress):
// exact bytes and line breaks after every input, as SDK objects (which may
// be gathered on the object path) and as SSE bytes; none once a call closes
// or the stream ends; and a response kept by its host does not keep its
// converter (and its native state) alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { setImmediate as turn } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter, getToolCallProgress, liveHandles } = require('../index.js');

/** The `\n` escapes of JSON text: a backslash starts an escape, the byte after it is its letter. */
function lines(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') continue;
    if (text[i + 1] === 'n') n++;
    i++;
  }
  return n;
}
const FRAGMENTS = ['{"path":"a.txt",', '"content":"one\\ntwo', '\\\\n is not a break\\n', 'ü✓"}'];

test('Anthropic events and bytes: exact counts after every fragment, none after the block stops', () => {
  for (const form of ['objects', 'bytes']) {
    const c = new AnthropicConverter();
    const feed = (event) =>
      form === 'objects' ? c.pushEvent(event) : c.pushBytes(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    const [opened] = feed({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
    });
    let received = '';
    for (const partial_json of FRAGMENTS) {
      feed({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } });
      received += partial_json;
      const { calls } = getToolCallProgress(opened);
      assert.deepEqual(
        calls,
        [
          {
            callId: 'toolu_1',
            toolName: 'write_file',
            argumentBytes: Buffer.byteLength(received),
            argumentLines: lines(received),
          },
        ],
        `${form} after ${JSON.stringify(partial_json)}`,
      );
    }
    assert.equal(getToolCallProgress(opened).calls[0].argumentLines, 2);
    // Only a converter fed the raw body sees the keep-alives the SDKs drop.
    assert.equal(getToolCallProgress(opened).keepAlivesVisible, form === 'bytes');
    const [done] = feed({ type: 'content_block_stop', index: 0 });
    assert.deepEqual(done.functionCalls[0].args, JSON.parse(received), 'reading changed nothing');
    assert.deepEqual(getToolCallProgress(opened).calls, []);
  }
});

test('OpenAI: a call counts from its first byte once its name came, and not after the finish hands it out', () => {
  const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const chunk = (delta, finish_reason = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason }] });
  const c = new OpenAIConverter();
  c.pushChunk(chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { arguments: '{"a":' } }] }));
  const named = c.pushChunk(
    chunk({ tool_calls: [{ index: 0, function: { name: 'write_file', arguments: '"x\\ny"' } }] }),
  );
  assert.deepEqual(getToolCallProgress(named), {
    received: 2,
    keepAlivesVisible: false,
    calls: [{ callId: 'call_1', toolName: 'write_file', argumentBytes: 11, argumentLines: 1 }],
  });
  c.pushChunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }));
  const ping = c.argumentProgress().received;
  const finish = c.pushChunk(chunk({}, 'tool_calls'));
  assert.deepEqual(finish.functionCalls[0].args, { a: 'x\ny' });
  assert.deepEqual(c.argumentProgress(), { received: ping + 1, keepAlivesVisible: false, calls: [] });
  c.end();
  assert.deepEqual(c.argumentProgress().calls, []);
});

/** Full collections, each followed by a turn of the event loop (napi runs the finalizers there). */
async function collect() {
  for (let i = 0; i < 10; i++) {
    global.gc();
    await turn();
  }
  return liveHandles();
}

test("a response the host keeps does not keep its converter's native state alive", async () => {
  const baseline = await collect();
  const kept = [];
  (() => {
    const c = new AnthropicConverter();
    kept.push(
      ...c.pushEvent({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
      }),
    );
    assert.ok(getToolCallProgress(kept[0]), 'a live converter answers');
  })();
  assert.equal(liveHandles(), baseline + 1);
  assert.equal(await collect(), baseline, 'the converter was collected');
  assert.equal(getToolCallProgress(kept[0]), null, 'and its response has no one left to ask');
});
