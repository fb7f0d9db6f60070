'use strict';
// The converter API, one job per file: AnthropicConverter / OpenAIConverter
// over the native state machines (anthropic.js, openai.js), and the
// async-generator drop-ins for Qwen Code's `processStream` (Anthropic,
// anthropic-stream.js) and converter + pipeline (OpenAI, openai-stream.js: Qwen
// Code packages/core/src/core/openaiContentGenerator/converter.ts and
// pipeline.ts). Options are checked in options.js; the object path is
// lib/object-path.js, the wire to native lib/wire.js.

const { toResponse, ToolCallStreamError, unreadable } = require('../responses.js');
const { AnthropicConverter } = require('./anthropic.js');
const { OpenAIConverter } = require('./openai.js');
const { convertAnthropicStream } = require('./anthropic-stream.js');
const { convertOpenAIStream } = require('./openai-stream.js');

module.exports = {
  AnthropicConverter,
  OpenAIConverter,
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
