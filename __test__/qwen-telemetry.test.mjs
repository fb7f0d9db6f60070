// toolcall-stream/qwen when Qwen's telemetry is recording (its processStream
// gets a telemetry attempt handle): the stream is converted from the SDK's
// own event objects, not the raw body, and every event still reaches Qwen's
// per-event telemetry (reportAnthropicEvent), with the same responses as
// without telemetry. The handle is the one stand-in: Qwen creates one only
// under an OpenTelemetry span that records.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { startQwenGenerators, ssePieces } from '../devtools/qwen-generator.mjs';

const build = qwenBuildOrSkip('0.21.2');
const events = [
  { type: 'message_start', message: { id: 'msg_t', model: 'claude-t', usage: { input_tokens: 3, output_tokens: 1 } } },
  {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 'toolu_t', name: 'read_file', input: {} },
  },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"a.txt"}' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } },
  { type: 'message_stop' },
];

test(
  'with telemetry recording, Anthropic streams are converted from SDK objects and every event is reported',
  { skip: build.skip },
  async (t) => {
    const qwen = await startQwenGenerators({ packageDir: build.dir, mode: 'native' });
    t.after(() => qwen.close());
    const generator = qwen.generators.anthropic;
    const reported = [];
    // The shape reportAnthropicEvent uses: handle.controller.record(handle, (output) => output.recordAnthropicEvent(event)).
    const handle = { controller: { record: (h, update) => update({ recordAnthropicEvent: (e) => reported.push(e) }) } };

    const convert = async (telemetry) => {
      qwen.serve(ssePieces('anthropic', events));
      // The generator's own client, wrapped by the preload: the stream it returns carries the raw body.
      const stream = await generator.client.messages.create({ model: 'm', max_tokens: 10, messages: [], stream: true });
      const out = [];
      for await (const r of generator.processStream(stream, telemetry))
        out.push(JSON.parse(JSON.stringify({ ...r, createTime: 0 })));
      return out;
    };
    // One stream through Qwen's own generateContentStream: the preload wraps the generator's client there.
    qwen.serve(ssePieces('anthropic', events));
    for await (const r of await qwen.stream('anthropic')) void r;
    const before = structuredClone(qwen.stats.anthropic);
    const withTelemetry = await convert(handle);
    assert.deepEqual(
      reported.map((e) => e.type),
      events.map((e) => e.type),
      'every SDK event reached Qwen telemetry',
    );
    assert.equal(qwen.stats.anthropic.objects, before.objects + 1, 'converted from SDK objects');
    const withoutTelemetry = await convert(undefined);
    assert.equal(qwen.stats.anthropic.bytes, before.bytes + 1, 'without telemetry: the raw body');
    assert.equal(reported.length, events.length, 'nothing reported without a telemetry handle');
    assert.deepEqual(withTelemetry, withoutTelemetry);
    assert.ok(withTelemetry.some((r) => r.candidates[0].content.parts[0]?.functionCall?.name === 'read_file'));
  },
);
