'use strict';
// convertOpenAIStream: Qwen Code's OpenAI converter plus its pipeline stage
// (pipeline.ts `processStreamWithLogging`), with the reference's catch.

const { hostError } = require('../../host.js');
const { readOptions, readSignal, isAborted, checkIterable, unmappedErrors } = require('../options.js');
const { isBytes } = require('../input.js');
const { OpenAIConverter, closingTagPendingOf } = require('./converter.js');
const { kProvider } = require('../native-converter.js');
const { FinishMerge, protocolTagLeak } = require('./finish-merge.js');

/**
 * The OpenAI converter plus Qwen's pipeline stage (FinishMerge, and the
 * `error_finish` check before the converter, in every input form). The
 * source yields `chat.completion.chunk` objects (or their JSON text), or raw
 * body bytes (Uint8Array). When anything fails (the source, the converter,
 * the stage), the reference's catch applies (Qwen Code `pipeline.ts`,
 * `processStreamWithLogging`): under qwen-0.24 a held finish is yielded
 * first (not after an abort; one holding a call only when content was
 * yielded before it); `InvalidStreamError` and `StreamContentError` are
 * rethrown as they are; with a closing thinking-tag candidate pending, any
 * other error becomes `PROTOCOL_TAG_LEAK` unless `options.signal` (the
 * request's AbortSignal) is aborted. A consumer that stops early frees the
 * native state at once.
 */
async function* convertOpenAIStream(chunks, options) {
  checkIterable(chunks, 'convertOpenAIStream');
  const { host, profile } = readOptions(options, OpenAIConverter[kProvider], 'convertOpenAIStream');
  const signal = readSignal(options, 'convertOpenAIStream');
  // The stage drops what the pipeline drops: bytes leave those out natively.
  const converter = new OpenAIConverter({
    ...unmappedErrors(options, host),
    throwOnErrorFinish: true,
    dropEmptyResponses: true,
  });
  const stage = new FinishMerge(host);
  try {
    for await (const chunk of chunks) {
      let out;
      try {
        out = isBytes(chunk) ? converter.pushBytes(chunk) : [converter.pushChunk(chunk)];
      } catch (err) {
        // What the same read converted before the error is not lost.
        for (const r of err?.responses ?? []) {
          const response = stage.take(r);
          if (response !== undefined) yield response;
        }
        throw err;
      }
      for (let i = 0; i < out.length; i++) {
        const response = stage.take(out[i]);
        if (response !== undefined) yield response;
      }
    }
    let rest;
    try {
      rest = converter.end();
    } catch (err) {
      // A final unterminated event converted before the end-of-stream check.
      for (const r of err?.responses ?? []) {
        const response = stage.take(r);
        if (response !== undefined) yield response;
      }
      throw err;
    }
    for (let i = 0; i < rest.length; i++) {
      // end() yields converted events of a final unterminated SSE event, and
      // the flushed parts of a whitespace-only tag candidate (a bare response).
      const response = 'createTime' in rest[i] ? stage.take(rest[i]) : stage.flushed(rest[i]);
      if (response !== undefined) yield response;
    }
    const finish = stage.finish();
    if (finish !== undefined) yield finish;
  } catch (err) {
    if (isInvalidStream(err)) throw hostError(host, err);
    const aborted = isAborted(signal);
    if (profile === 'qwen-0.24') {
      const parked = stage.parkedOnError(aborted);
      if (parked !== undefined) yield parked;
    }
    if (err?.name === 'StreamContentError') throw hostError(host, err);
    // 0.24.4 checks its stream timeouts before the pending tag; 0.21.2 after.
    if (profile === 'qwen-0.24' && STREAM_TIMEOUTS.has(err?.name)) throw err;
    if (!aborted && closingTagPendingOf(converter)) {
      throw hostError(host, protocolTagLeak('Model response leaked thinking tags.'));
    }
    throw hostError(host, err);
  } finally {
    if (!converter.finished) converter.free();
  }
}

/** Qwen's own stream timeout errors, as a source inside Qwen Code throws them (0.24.4 pipeline.ts). */
const STREAM_TIMEOUTS = new Set(['StreamInactivityTimeoutError', 'StreamLifetimeExceededError']);

/** The reference's `InvalidStreamError`: this package's, or one the source threw. */
const isInvalidStream = (err) => err?.name === 'InvalidStreamError';

module.exports = { convertOpenAIStream };
