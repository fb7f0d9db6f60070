'use strict';
// AnthropicConverter: one Anthropic Messages stream over the native state
// machine (core/src/convert/anthropic/mod.rs), fed SDK events or the raw SSE body.

const { native } = require('../native.js');
const { unreadable } = require('../responses.js');
const { NativeState, decode, NOTHING } = require('../wire.js');
const { AnthropicObjectPath } = require('../object-path.js');
const { hostError } = require('../host.js');
const { readArgumentProgress, kHeldBytes } = require('./argument-progress.js');
const { readOptions } = require('./options.js');
const { eventText, pushRaw, fresh, flushCarry } = require('./input.js');
const { isRetryableStreamTransportError } = require('./transport-errors.js');

/** pushEvent without the fresh array for "no chunks" (convertAnthropicStream's path). */
const kPushEvent = Symbol('pushEvent');

/**
 * One Anthropic Messages request: Qwen Code's `processStream` state
 * (packages/core/src/core/anthropicContentGenerator). Feed SDK events with
 * `pushEvent`, or the raw SSE body with `pushBytes`. SDK event objects take
 * the object path (lib/object-path.js) where the state word allows.
 */
class AnthropicConverter {
  #handle;
  /** The converter's native state as last reported (lib/wire.js): slot, state word, the object path's header. */
  #state;
  #objectPath;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;
  /** A chunk handed out carried a finish reason or an assistant payload (see `emptyStream`). */
  #nonEmpty = false;
  /** `end()` returned. */
  #ended = false;
  /** Inputs taken (events and reads), and whether any was raw bytes, for argumentProgress(). */
  #received = 0;
  #rawBody = false;
  /** The bytes held before this converter, for argumentProgress() ({@link kHeldBytes}). */
  #heldBytes;

  constructor(options) {
    const { limits, profile, host } = readOptions(options, 'AnthropicConverter');
    this.#host = host;
    this.#handle = new native.ConverterHandle('anthropic', profile, limits);
    this.#state = new NativeState(this.#handle.slot, this.#handle.state);
    this.#state.converter = this;
    this.#objectPath = new AnthropicObjectPath(this.#state, host);
  }

  /** One SDK stream event (object or JSON text) → the chunks it yields, in order. */
  pushEvent(event) {
    const out = this[kPushEvent](event);
    return out === NOTHING ? [] : out;
  }

  /** pushEvent without the fresh array for "no chunks" (the generator's path). */
  [kPushEvent](event) {
    this.#received++;
    this.#host?.onEvent?.(event);
    try {
      const out = this.#objectPath.take(event);
      if (out !== undefined) return this.#note(out);
      this.#objectPath.flush();
      const text = eventText(event, 'AnthropicConverter.pushEvent');
      return this.#note(decode(this.#state, native.converterPushObject(this.#state.slot, text), undefined, this.#host));
    } catch (err) {
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, unreadable(err, 'AnthropicConverter.pushEvent'));
    }
  }

  /** Raw SSE bytes of the HTTP body (or its text), split anywhere. */
  pushBytes(data) {
    this.#received++;
    this.#rawBody = true;
    try {
      this.#objectPath.flush();
      return this.#note(
        fresh(
          decode(
            this.#state,
            pushRaw(this.#state.slot, data, this.#carry, 'AnthropicConverter.pushBytes'),
            undefined,
            this.#host,
          ),
        ),
      );
    } catch (err) {
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, unreadable(err, 'AnthropicConverter.pushBytes'));
    }
  }

  /** End of input. The converter is finished afterwards. */
  end() {
    try {
      this.#objectPath.flush();
      flushCarry(this.#state, this.#carry, this.#host);
      const out = this.#note(fresh(decode(this.#state, native.converterEnd(this.#state.slot), undefined, this.#host)));
      this.#ended = true;
      return out;
    } catch (err) {
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, err);
    }
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

  /** What `processStreamWithEmptyFallback` looks for in each chunk it yields. */
  #note(out) {
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
      throw hostError(this.#host, unreadable(err, 'AnthropicConverter.argumentProgress'));
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
    // Gathered fragments belong to a block that is still open: they cannot
    // change what is yielded.
    this.#objectPath.drop();
    return fresh(
      decode(this.#state, native.converterUpstreamFailed(this.#state.slot, retryable), undefined, this.#host),
    );
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
