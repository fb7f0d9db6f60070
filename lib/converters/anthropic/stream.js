'use strict';
// convertAnthropicStream: the async-generator drop-in for Qwen Code's
// `AnthropicContentGenerator.processStream` (and, with `emptyFallback`,
// `processStreamWithEmptyFallback`) over an AnthropicConverter.

const { hostError } = require('../../host.js');
const { convertAnthropicResponse } = require('../../bodies.js');
const { readOptions, readEmptyFallback, checkIterable, unmappedErrors } = require('../options.js');
const { isBytes } = require('../input.js');
const { AnthropicConverter, kPushEvent } = require('./converter.js');
const { kProvider } = require('../native-converter.js');
const { kHeldBytes } = require('../argument-progress.js');

/**
 * Drop-in for `AnthropicContentGenerator.processStream(stream)`. The source
 * yields SDK event objects (or their JSON text), or raw body bytes
 * (Uint8Array), which take the native SSE path. Under qwen-0.24, when the
 * source throws a retryable stream transport error, the held calls confirmed
 * complete are yielded before the error is rethrown (0.24.4's
 * `processStream`); any other source error is rethrown as it is. A consumer
 * that stops early frees the native state at once.
 *
 * With `options.emptyFallback` it is `processStreamWithEmptyFallback` too:
 * when the stream ends empty (`AnthropicConverter.emptyStream`), the
 * function is called once and what it returns (or resolves to: the
 * non-streaming response body as an object, JSON text or bytes) is
 * converted with `convertAnthropicResponse` and yielded; what it throws is
 * rethrown as it is.
 */
async function* convertAnthropicStream(events, options) {
  checkIterable(events, 'convertAnthropicStream');
  const { host, profile } = readOptions(options, AnthropicConverter[kProvider], 'convertAnthropicStream');
  const emptyFallback = readEmptyFallback(options);
  const converter = new AnthropicConverter(unmappedErrors(options, host));
  // The Qwen preload's source holds bytes back where the SDK does; its progress counts them.
  converter[kHeldBytes](options?.[kHeldBytes]);
  /** The held calls to yield for a failed source (the host's classification when it has one). */
  const heldOnFailure = async (err) => {
    if (profile !== 'qwen-0.24' || !host?.isRetryableUpstreamError) return converter.upstreamFailed(err);
    let retryable = false;
    try {
      retryable = (await host.isRetryableUpstreamError(err)) === true;
    } catch {
      // A classifier that fails does not classify.
    }
    return converter.upstreamFailed(err, { retryable });
  };
  let inSource = true;
  try {
    try {
      for await (const event of events) {
        inSource = false;
        let out;
        try {
          out = isBytes(event) ? converter.pushBytes(event) : converter[kPushEvent](event);
        } catch (err) {
          // What the same call converted before the error is not lost.
          for (const r of err?.responses ?? []) yield r;
          // An in-band error event is the SDK's error: the source failed (0.24.4).
          if (err?.code === 'STREAM_ERROR' && err.providerError !== undefined) {
            const held = await heldOnFailure(err);
            for (let i = 0; i < held.length; i++) yield held[i];
          }
          throw hostError(host, err);
        }
        // Most events yield nothing; an indexed loop avoids `yield*`'s iterator.
        for (let i = 0; i < out.length; i++) yield out[i];
        inSource = true;
      }
    } catch (err) {
      if (!inSource) throw err;
      const held = await heldOnFailure(err);
      for (let i = 0; i < held.length; i++) yield held[i];
      throw err;
    }
    let rest;
    try {
      rest = converter.end();
    } catch (err) {
      for (const r of err?.responses ?? []) yield r;
      throw hostError(host, err);
    }
    for (let i = 0; i < rest.length; i++) yield rest[i];
  } finally {
    if (!converter.finished) converter.free();
  }
  if (emptyFallback && converter.emptyStream) {
    const body = await emptyFallback();
    yield convertAnthropicResponse(body, options);
  }
}

module.exports = { convertAnthropicStream };
