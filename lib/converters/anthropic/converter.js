'use strict';
// AnthropicConverter: one Anthropic Messages stream over the native state
// machine (core/src/convert/anthropic/mod.rs), fed SDK events or the raw SSE
// body; the plumbing it shares with every provider is NativeConverter's.

const { native } = require('../../native.js');
const { NOTHING } = require('../../wire.js');
const { AnthropicObjectPath } = require('../../object-path.js');
const { readOptions } = require('../options.js');
const {
  NativeConverter,
  kReceive,
  kTakeObject,
  kConvertObject,
  kFailed,
  kUpstreamFailed,
  kYielded,
  kProvider,
} = require('../native-converter.js');
const { isRetryableStreamTransportError } = require('./transport-errors.js');

/** pushEvent without the fresh array for "no chunks" (convertAnthropicStream's path). */
const kPushEvent = Symbol('pushEvent');

/**
 * One Anthropic Messages request: Qwen Code's `processStream` state
 * (packages/core/src/core/anthropicContentGenerator). Feed SDK events with
 * `pushEvent`, or the raw SSE body with `pushBytes`. SDK event objects take
 * the object path (lib/object-path.js) where the state word allows.
 */
class AnthropicConverter extends NativeConverter {
  static [kProvider] = 'anthropic';

  /** A chunk handed out carried a finish reason or an assistant payload (see `emptyStream`). */
  #nonEmpty = false;
  /** `end()` returned. */
  #ended = false;

  constructor(options) {
    const { limits, profile, host } = readOptions(options, AnthropicConverter[kProvider], 'AnthropicConverter');
    super(
      'AnthropicConverter',
      new native.ConverterHandle(AnthropicConverter[kProvider], profile, limits),
      AnthropicObjectPath,
      host,
      undefined,
    );
  }

  /** One SDK stream event (object or JSON text) → the chunks it yields, in order. */
  pushEvent(event) {
    const out = this[kPushEvent](event);
    return out === NOTHING ? [] : out;
  }

  /** pushEvent without the fresh array for "no chunks" (the generator's path). */
  [kPushEvent](event) {
    this[kReceive](event);
    try {
      const out = this[kTakeObject](event);
      if (out !== undefined) return this[kYielded](out);
      return this[kConvertObject](event, 'AnthropicConverter.pushEvent');
    } catch (err) {
      throw this[kFailed](err, 'AnthropicConverter.pushEvent');
    }
  }

  /** End of input. The converter is finished afterwards. */
  end() {
    const out = super.end();
    this.#ended = true;
    return out;
  }

  /**
   * True once `end()` has returned for a stream none of whose chunks carried
   * a finish reason or a part with text, a thought, a thought signature or a
   * function call (preparation-only and usage-only chunks do not count).
   * Qwen Code then sends the same request once more without streaming and
   * yields that answer instead (AnthropicContentGenerator
   * `processStreamWithEmptyFallback`, 0.21.2 and 0.24.4):
   * `convertAnthropicResponse` converts it. False before `end()`, and after
   * a failed stream.
   */
  get emptyStream() {
    return this.#ended && !this.#nonEmpty;
  }

  /** What `processStreamWithEmptyFallback` looks for in each chunk handed out. */
  [kYielded](out) {
    if (this.#nonEmpty) return out;
    for (let i = 0; i < out.length; i++) {
      if (countsAsOutput(out[i])) {
        this.#nonEmpty = true;
        break;
      }
    }
    return out;
  }

  /**
   * The event source (SDK iterator or HTTP body) failed with `error`, or an
   * in-band `error` event ended the stream (the SDK's error in the
   * reference): the chunks to yield before rethrowing it. Under qwen-0.24
   * these are the held calls when `error` is retryable and each call was
   * confirmed complete (0.24.4's `processStream`); otherwise none.
   * `classification.retryable` is the host's answer (Qwen: its
   * `classifyRetryError`); without it, a retryable stream transport error
   * is (see isRetryableStreamTransportError). The converter is finished
   * afterwards. Native decides whether the profile holds calls at all; the
   * classification is only what it needs to know of the error.
   */
  upstreamFailed(error, classification) {
    let retryable = false;
    try {
      const told = classification?.retryable;
      retryable = typeof told === 'boolean' ? told : isRetryableStreamTransportError(error);
    } catch {
      // An error whose fields cannot be read is not classified.
    }
    return this[kUpstreamFailed](retryable);
  }
}

/**
 * A chunk with a finish reason, or with a part that has text, a thought, a
 * thought signature or a function call (the checks of Qwen Code's
 * `processStreamWithEmptyFallback`; 0.24.4 `responseHasAssistantPayload`).
 */
function countsAsOutput(response) {
  const candidates = response?.candidates ?? [];
  return candidates.some(
    (c) =>
      c.finishReason !== undefined ||
      c.content?.parts?.some((p) => p.text || p.thought || p.thoughtSignature || p.functionCall),
  );
}

module.exports = { AnthropicConverter, kPushEvent };
