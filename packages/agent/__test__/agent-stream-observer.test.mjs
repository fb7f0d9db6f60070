// The agent's stream observer (lib/stream-observer.js): what it reads from a
// response body beside the converter. Keep-alives never count as progress,
// however the bytes are split; raw argument text and duplicate ids come out
// the same for every split.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { StreamObserver } = require('../lib/stream-observer.js');

const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const KEEP_ALIVE = {
  anthropic: 'event: ping\ndata: {"type": "ping"}\n\n'.repeat(3),
  openai: ': keep-alive\n\n'.repeat(3),
};

/** Feeds `body` split at `cuts` (byte offsets); returns the observer and whether any push reported progress. */
function feed(kind, body, cuts) {
  const bytes = Buffer.from(body);
  const observer = new StreamObserver(kind);
  let progress = false;
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    progress = observer.push(bytes.subarray(from, at)) || progress;
    from = at;
  }
  return { observer, progress };
}

test('keep-alives split at any byte are never progress', () => {
  for (const kind of ['anthropic', 'openai']) {
    const body = KEEP_ALIVE[kind];
    for (let a = 0; a <= body.length; a++) {
      for (let b = a; b <= body.length; b += 7)
        assert.equal(feed(kind, body, [a, b]).progress, false, `${kind} ${a} ${b}`);
    }
  }
});

test('raw arguments, their problems and duplicate ids are the same for every split', () => {
  const anthropic =
    KEEP_ALIVE.anthropic +
    sse('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_A', name: 'write_file', input: {} },
    }) +
    sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"a.txt",' } }) +
    sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"content":"é😀"}' } }) +
    sse('content_block_stop', { index: 0 }) +
    sse('content_block_start', {
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_A', name: 'read_file', input: {} },
    }) +
    sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"b.txt",}' } }) +
    sse('content_block_stop', { index: 1 }) +
    sse('content_block_start', {
      index: 2,
      content_block: { type: 'tool_use', id: 'toolu_C', name: 'list_directory', input: {} },
    }) +
    sse('content_block_stop', { index: 2 }) +
    sse('content_block_start', {
      index: 3,
      content_block: { type: 'tool_use', id: 'toolu_D', name: 'write_file', input: {} },
    }) +
    sse('content_block_delta', { index: 3, delta: { type: 'input_json_delta', partial_json: '["x"]' } }) +
    sse('content_block_stop', { index: 3 });
  const whole = feed('anthropic', anthropic, []);
  assert.equal(whole.progress, true);
  assert.deepEqual(
    whole.observer.calls.map((c) => [c.rawId, c.text]),
    [
      ['toolu_A', '{"path":"a.txt","content":"é😀"}'],
      ['toolu_A', '{"path":"b.txt",}'],
      ['toolu_C', ''],
      ['toolu_D', '["x"]'],
    ],
  );
  assert.equal(whole.observer.argumentProblem('toolu_C'), null);
  assert.match(whole.observer.argumentProblem('toolu_D'), /not a JSON object/);
  assert.deepEqual(
    whole.observer.duplicates().map((c) => [c.rawId, c.name]),
    [['toolu_A', 'read_file']],
  );
  const bytes = Buffer.byteLength(anthropic);
  for (let at = 1; at < bytes; at += 3) {
    const split = feed('anthropic', anthropic, [at, Math.min(bytes, at + 11)]);
    assert.deepEqual(split.observer.calls, whole.observer.calls, `split at ${at}`);
  }

  const chunk = (toolCalls) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: toolCalls } }] })}\n\n`;
  const openai =
    KEEP_ALIVE.openai +
    chunk([{ index: 0, id: 'call_1', function: { name: 'write_file', arguments: '' } }]) +
    chunk([{ index: 0, function: { arguments: '{"path":"a.txt","content":"cut' } }]) +
    'data: [DONE]\n\n';
  const o = feed('openai', openai, []);
  assert.deepEqual(o.observer.calls, [{ rawId: 'call_1', name: 'write_file', text: '{"path":"a.txt","content":"cut' }]);
  assert.match(o.observer.argumentProblem('call_1'), /not valid JSON as streamed/);
  for (let at = 1; at < openai.length; at += 2) {
    assert.deepEqual(feed('openai', openai, [at]).observer.calls, o.observer.calls, `split at ${at}`);
  }
});
