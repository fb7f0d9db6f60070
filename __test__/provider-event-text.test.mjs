// The in-band error event's whole payload on the error (`providerEvent`),
// as the SDK's decoder builds it: every `data:` line of the event joined
// with "\n" (an empty first line included), however the bytes arrive. A
// host replaying it to its SDK (lib/qwen) hands over exactly that data.
// And the reference's own TypeError, where its code fails on a value, on
// the error as `hostError`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { AnthropicConverter, OpenAIConverter } = require('../index.js');

const anthropicError = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const openaiError = '{"error":{"message":"bad","code":500}}';

const CASES = [
  [
    AnthropicConverter,
    'event: error\ndata: {"type":"error",\ndata: "error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    `{"type":"error",\n"error":{"type":"overloaded_error","message":"Overloaded"}}`,
  ],
  [AnthropicConverter, `event: error\r\ndata:\r\ndata: ${anthropicError}\r\n\r\n`, `\n${anthropicError}`],
  [AnthropicConverter, `event: error\rdata: ${anthropicError}\rdata: \r\r`, `${anthropicError}\n`],
  [
    OpenAIConverter,
    'data: {"error":\ndata: {"message":"bad","code":500}}\n\n',
    '{"error":\n{"message":"bad","code":500}}',
  ],
  [OpenAIConverter, `data:\ndata: ${openaiError}\n\n`, `\n${openaiError}`],
];

test('a multi-line in-band error carries its whole data, split at every byte', () => {
  for (const [Converter, body, data] of CASES) {
    const bytes = Buffer.from(body);
    for (let at = 0; at <= bytes.length; at++) {
      const c = new Converter({});
      assert.throws(
        () => {
          c.pushBytes(bytes.subarray(0, at));
          c.pushBytes(bytes.subarray(at));
          c.end();
        },
        (err) => err.code === 'STREAM_ERROR' && err.providerEvent === data,
        `${JSON.stringify(body)} split at ${at}`,
      );
    }
  }
});

test("the reference's own TypeError rides on the error as hostError", () => {
  const openai = new OpenAIConverter({});
  assert.throws(() => openai.pushChunk(null), {
    code: 'INVALID_EVENT',
    hostError: { name: 'TypeError', message: "Cannot read properties of null (reading 'choices')" },
  });
  assert.throws(() => openai.pushChunk({ choices: [{ delta: { tool_calls: { index: 0 } } }] }), {
    code: 'INVALID_EVENT',
    hostError: { name: 'TypeError', message: 'choice.delta.tool_calls is not iterable' },
  });
  const anthropic = new AnthropicConverter({});
  assert.throws(() => anthropic.pushEvent({ type: 'message_start', message: null }), {
    code: 'INVALID_EVENT',
    hostError: { name: 'TypeError', message: "Cannot read properties of null (reading 'id')" },
  });
  assert.throws(() => anthropic.pushEvent({ type: 'content_block_start', index: 0 }), {
    code: 'INVALID_EVENT',
    hostError: { name: 'TypeError', message: "Cannot read properties of undefined (reading 'type')" },
  });
  // The package's own errors carry none.
  assert.throws(
    () => anthropic.pushEvent('{nope'),
    (err) => err.code === 'INVALID_JSON' && !('hostError' in err),
  );
});
