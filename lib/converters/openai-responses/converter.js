'use strict';
// OpenAIResponsesConverter: one OpenAI Responses API stream over the native
// state machine (core/src/convert/openai_responses/), with the semantics of
// Qwen Code's `openai-responses` generator: ResponsesPipeline.iterateBody's
// own line reader and convertResponsesEventToGemini
// (packages/core/src/core/openaiResponsesContentGenerator/). Fed the raw SSE
// body or parsed event objects; the plumbing it shares with every provider
// is NativeConverter's.

const { native } = require('../../native.js');
const { readResponsesOptions } = require('./options.js');
const {
  NativeConverter,
  kReceive,
  kConvertObject,
  kFailed,
  kUpstreamFailed,
  kYielded,
  kProvider,
} = require('../native-converter.js');

/** This provider takes no SDK objects on a JS path of its own: every event goes to native. */
class NoObjectPath {
  take() {
    return undefined;
  }
  flush() {}
  drop() {}
}

/**
 * One Responses request. `pushBytes` reads the body as Qwen's `iterateBody`
 * does (its line parser, not the SSE specification's); `pushEvent` takes
 * one event object (`{type, …}`, as a reader that parsed its `data:` yields
 * it). Options: `model` (Qwen's configured model, every chunk's
 * `modelVersion`), `profile` ('qwen-0.24', the default: 0.23.4 and later;
 * 'qwen-0.23.3': text parts without message metadata), `preparations`
 * (true: a preparation-only chunk as each function call opens, once per
 * call id; stock Qwen yields none, and off the output is stock's),
 * `limits`, `host`. A `response.failed` or `error` event throws
 * `STREAM_ERROR` with Qwen's message; `providerError` holds the `type`,
 * `code` and `status` Qwen's error carries.
 */
class OpenAIResponsesConverter extends NativeConverter {
  static [kProvider] = 'openai-responses';

  constructor(options) {
    const { limits, profile, host, model, preparations } = readResponsesOptions(
      options,
      OpenAIResponsesConverter[kProvider],
      'OpenAIResponsesConverter',
    );
    super(
      'OpenAIResponsesConverter',
      // This provider's settings, which only it reads (core/src/convert/openai_responses/mod.rs
      // `OpenAIResponsesOptions::read`).
      new native.ConverterHandle(
        OpenAIResponsesConverter[kProvider],
        profile,
        limits,
        JSON.stringify({ model, preparations }),
      ),
      NoObjectPath,
      host,
      undefined,
    );
  }

  /** One event object (or its JSON text) → the responses it converts to (often none). */
  pushEvent(event) {
    this[kReceive](event);
    try {
      return this[kConvertObject](event, 'OpenAIResponsesConverter.pushEvent');
    } catch (err) {
      throw this[kFailed](err, 'OpenAIResponsesConverter.pushEvent');
    }
  }

  /**
   * The body failed (`error`: what the reader threw; `classification`:
   * unused, Qwen rethrows every failure as it is): Qwen yields nothing
   * more. The converter is finished afterwards; returns what it yielded
   * (nothing).
   */
  upstreamFailed(error, classification) {
    void error;
    void classification;
    return this[kUpstreamFailed](false);
  }

  /**
   * `makeChunkResponse` sets `responseId` and `modelVersion` even when they
   * are undefined: the keys are there, in Qwen's order.
   */
  [kYielded](out) {
    for (let i = 0; i < out.length; i++) {
      const r = out[i];
      if ('responseId' in r && 'modelVersion' in r) continue;
      const candidates = r.candidates;
      const rest = { ...r };
      for (const key of Object.keys(r)) delete r[key];
      r.candidates = candidates;
      r.responseId = rest.responseId;
      r.modelVersion = rest.modelVersion;
      delete rest.candidates;
      delete rest.responseId;
      delete rest.modelVersion;
      Object.assign(r, rest);
    }
    return out;
  }
}

module.exports = { OpenAIResponsesConverter };
