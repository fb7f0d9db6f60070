'use strict';
// The converter API: each provider's folder holds its converter class over
// its native state machine (<provider>/converter.js, on the shared
// NativeConverter, native-converter.js) and its async-generator drop-in
// (<provider>/stream.js: Qwen Code's Anthropic `processStream`; the OpenAI
// converter + pipeline, packages/core/src/core/openaiContentGenerator/
// converter.ts and pipeline.ts). Options are checked in options.js; the
// object path is lib/object-path.js, the wire to native lib/wire.js.

const { toResponse, ToolCallStreamError, unreadable } = require('../responses.js');
const { AnthropicConverter } = require('./anthropic/converter.js');
const { OpenAIConverter } = require('./openai/converter.js');
const { OpenAIResponsesConverter } = require('./openai-responses/converter.js');
const { convertAnthropicStream } = require('./anthropic/stream.js');
const { convertOpenAIStream } = require('./openai/stream.js');

module.exports = {
  AnthropicConverter,
  OpenAIConverter,
  OpenAIResponsesConverter,
  convertAnthropicStream,
  convertOpenAIStream,
  ToolCallStreamError,
  toResponse(plain) {
    try {
      return toResponse(plain);
    } catch (err) {
      throw unreadable(err, 'toResponse');
    }
  },
};
