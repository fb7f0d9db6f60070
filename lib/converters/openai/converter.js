'use strict';
// OpenAIConverter: one OpenAI-compatible chat-completion stream over the
// native state machine (core/src/convert/openai/), fed chunk objects, their
// JSON text, or the raw SSE body; the plumbing it shares with every provider
// is NativeConverter's.

const { native } = require('../../native.js');
const { OpenAIObjectPath } = require('../../object-path.js');
const { readOptions } = require('../options.js');
const {
  NativeConverter,
  kReceive,
  kTakeObject,
  kConvertObject,
  kFailed,
  kState,
  kProvider,
} = require('../native-converter.js');

/** Pipeline-only annotation: the finish chunk whose closing thinking tag was sanitised. */
const sanitizedByResponse = new WeakMap();

const kClosingTagPending = Symbol('closingTagPending');

/**
 * One OpenAI-compatible request: Qwen Code's request context and
 * StreamingToolCallParser (packages/core/src/core/openaiContentGenerator/
 * converter.ts). `pushChunk` is exactly `convertOpenAIChunkToGemini`, and so
 * is each event of `pushBytes` (the OpenAI SDK's decoding aside: an in-band
 * `{"error": …}` payload is `STREAM_ERROR`, as the SDK throws; with
 * `dropEmptyResponses`, none for the events Qwen's pipeline drops unseen).
 * With `throwOnErrorFinish`, a chunk whose finish reason is `error_finish`
 * is a `StreamContentError` (`STREAM_ERROR`) before it is converted, in
 * every form, as Qwen's pipeline throws. Chunk objects take the object path
 * (lib/object-path.js) where the state word allows. `end()` also runs the
 * pipeline's end-of-stream thinking-tag check.
 */
class OpenAIConverter extends NativeConverter {
  static [kProvider] = 'openai';

  constructor(options) {
    const { limits, profile, host, responseParsing, throwOnErrorFinish, dropEmptyResponses } = readOptions(
      options,
      OpenAIConverter[kProvider],
      'OpenAIConverter',
    );
    super(
      'OpenAIConverter',
      // This provider's settings, which only it reads (core/src/convert/openai/mod.rs
      // `OpenAIOptions::read`).
      new native.ConverterHandle(
        OpenAIConverter[kProvider],
        profile,
        limits,
        JSON.stringify({
          responseParsing,
          throwOnErrorFinish,
          dropEmptyResponses,
          jsToolCallIds: host?.jsToolCallIds === true,
        }),
      ),
      OpenAIObjectPath,
      host,
      sanitizedByResponse,
    );
  }

  /** One `chat.completion.chunk` (object or JSON text) → exactly one response. */
  pushChunk(chunk) {
    this[kReceive](chunk);
    try {
      const response = this[kTakeObject](chunk);
      if (response !== undefined) return response;
      return this[kConvertObject](chunk, 'OpenAIConverter.pushChunk')[0];
    } catch (err) {
      throw this[kFailed](err, 'OpenAIConverter.pushChunk');
    }
  }

  /**
   * Whether a closing thinking-tag candidate is pending (the pipeline's error
   * path), from the state word of the last call. Fragments gathered on the
   * object path cannot change it: they are taken only while no candidate is
   * pending.
   */
  [kClosingTagPending]() {
    return this[kState].tagClosing;
  }
}

/** The pipeline-only sanitisation note of a converted OpenAI response (internal: the Qwen preload). */
const sanitizationOf = (response) => sanitizedByResponse.get(response);

/** Whether an OpenAI converter holds a closing thinking-tag candidate (internal: the Qwen preload). */
const closingTagPendingOf = (converter) => converter[kClosingTagPending]();

module.exports = { OpenAIConverter, sanitizationOf, closingTagPendingOf };
