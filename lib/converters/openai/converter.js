'use strict';
// OpenAIConverter: one OpenAI-compatible chat-completion stream over the
// native state machine (core/src/convert/openai/), fed chunk objects, their JSON
// text, or the raw SSE body.

const { native } = require('../native.js');
const { unreadable } = require('../responses.js');
const { NativeState, decode } = require('../wire.js');
const { OpenAIObjectPath } = require('../object-path.js');
const { hostError } = require('../host.js');
const { readArgumentProgress, kHeldBytes } = require('./argument-progress.js');
const { readOptions } = require('./options.js');
const { eventText, pushRaw, fresh, flushCarry } = require('./input.js');

/** Pipeline-only annotation: the finish chunk whose closing thinking tag was sanitised. */
const sanitizedByResponse = new WeakMap();

const kClosingTagPending = Symbol('closingTagPending');

/**
 * One OpenAI-compatible request: Qwen Code's request context and
 * StreamingToolCallParser (packages/core/src/core/openaiContentGenerator/
 * converter.ts). `pushChunk` is exactly `convertOpenAIChunkToGemini`, and so
 * is each event of `pushBytes` (the OpenAI SDK's decoding aside: an in-band
 * `{"error": …}` payload is `STREAM_ERROR`, as the SDK throws). With
 * `throwOnErrorFinish`, a chunk whose finish reason is `error_finish` is a
 * `StreamContentError` (`STREAM_ERROR`) before it is converted, in every
 * form, as Qwen's pipeline throws. Chunk objects take the object path
 * (lib/object-path.js) where the state word allows.
 */
class OpenAIConverter {
  #handle;
  /** The converter's native state as last reported (lib/wire.js): slot and state word. */
  #state;
  #objectPath;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;
  /** Inputs taken (chunks and reads), and whether any was raw bytes, for argumentProgress(). */
  #received = 0;
  #rawBody = false;
  /** The bytes held before this converter, for argumentProgress() ({@link kHeldBytes}). */
  #heldBytes;

  constructor(options) {
    const { limits, profile, host, responseParsing, throwOnErrorFinish, dropEmptyResponses } = readOptions(
      options,
      'OpenAIConverter',
    );
    this.#host = host;
    this.#handle = new native.ConverterHandle('openai', profile, limits, responseParsing, {
      throwOnErrorFinish,
      dropEmptyResponses,
      jsToolCallIds: host?.jsToolCallIds === true,
    });
    this.#state = new NativeState(this.#handle.slot, this.#handle.state);
    this.#state.converter = this;
    this.#objectPath = new OpenAIObjectPath(this.#state, host);
  }

  /** One `chat.completion.chunk` (object or JSON text) → exactly one response. */
  pushChunk(chunk) {
    this.#received++;
    this.#host?.onEvent?.(chunk);
    try {
      const response = this.#objectPath.take(chunk);
      if (response !== undefined) return response;
      this.#objectPath.flush();
      const text = eventText(chunk, 'OpenAIConverter.pushChunk');
      return decode(
        this.#state,
        native.converterPushObject(this.#state.slot, text),
        sanitizedByResponse,
        this.#host,
      )[0];
    } catch (err) {
      throw hostError(this.#host, unreadable(err, 'OpenAIConverter.pushChunk'));
    }
  }

  /**
   * Raw SSE bytes: one response per `data:` event; `[DONE]` ends. With
   * `dropEmptyResponses`, none for the events Qwen's pipeline drops unseen.
   */
  pushBytes(data) {
    this.#received++;
    this.#rawBody = true;
    try {
      this.#objectPath.flush();
      return fresh(
        decode(
          this.#state,
          pushRaw(this.#state.slot, data, this.#carry, 'OpenAIConverter.pushBytes'),
          sanitizedByResponse,
          this.#host,
        ),
      );
    } catch (err) {
      throw hostError(this.#host, unreadable(err, 'OpenAIConverter.pushBytes'));
    }
  }

  /** End of input (and the pipeline's end-of-stream thinking-tag check). */
  end() {
    try {
      this.#objectPath.flush();
      flushCarry(this.#state, this.#carry, this.#host);
      return fresh(decode(this.#state, native.converterEnd(this.#state.slot), sanitizedByResponse, this.#host));
    } catch (err) {
      throw hostError(this.#host, err);
    }
  }

  /**
   * Releases the native state now, for a stream that was abandoned (the GC
   * would release it later). Every later call throws `FINISHED`.
   */
  free() {
    this.#objectPath.drop();
    this.#state.word = native.converterFree(this.#state.slot);
  }

  /**
   * How far each open call whose preparation this converter yielded has
   * come, read now: `{ received, calls: [{callId, toolName, argumentBytes,
   * argumentLines}] }`. `argumentBytes` counts the UTF-8 bytes of the call's
   * argument text so far, `argumentLines` the line breaks (`\n` escapes)
   * inside its string values; `received` grows with every input taken
   * (events, chunks and reads, pings and keep-alive reads included), so a
   * reader can tell a quiet model on a live connection from a silent
   * connection, where `keepAlivesVisible` says it can: once the converter
   * took raw bytes (the SDKs drop pings and keep-alive comments before any
   * event or chunk object exists). Counts only: never a byte of the arguments. A call leaves
   * the list when it closes; a finished converter has none. Meant to be read
   * at a timer's pace (the ACP layer reads it at most every 250 ms); the
   * conversion itself does no extra work for it.
   */
  argumentProgress() {
    try {
      return readArgumentProgress(this.#state, this.#objectPath, this.#received, this.#rawBody, this.#heldBytes);
    } catch (err) {
      throw hostError(this.#host, unreadable(err, 'OpenAIConverter.argumentProgress'));
    }
  }

  /** Where the bytes held before this converter are read ({@link kHeldBytes}): a function, or undefined. */
  [kHeldBytes](heldBytes) {
    this.#heldBytes = typeof heldBytes === 'function' ? heldBytes : undefined;
  }

  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished() {
    return this.#state.finished;
  }

  /**
   * Whether a closing thinking-tag candidate is pending (the pipeline's error
   * path), from the state word of the last call. Fragments gathered on the
   * object path cannot change it: they are taken only while no candidate is
   * pending.
   */
  [kClosingTagPending]() {
    return this.#state.tagClosing;
  }
}

/** The pipeline-only sanitisation note of a converted OpenAI response (internal: the Qwen preload). */
const sanitizationOf = (response) => sanitizedByResponse.get(response);

/** Whether an OpenAI converter holds a closing thinking-tag candidate (internal: the Qwen preload). */
const closingTagPendingOf = (converter) => converter[kClosingTagPending]();

module.exports = { OpenAIConverter, sanitizationOf, closingTagPendingOf };
