'use strict';
// NativeConverter: what every provider's converter class shares over its
// native stream (core/src/convert/provider.rs, the provider seam): the
// handle and its state word, the object path, raw input, end, free,
// argumentProgress() and the failed-source call. A provider's class
// (lib/converters/<provider>/converter.js) adds its public push method and
// what only it does.

const { native } = require('../native.js');
const { unreadable } = require('../responses.js');
const { NativeState, decode, NOTHING } = require('../wire.js');
const { hostError } = require('../host.js');
const { readArgumentProgress, kHeldBytes } = require('./argument-progress.js');
const { eventText, pushRaw, fresh, flushCarry } = require('./input.js');

/**
 * The calls a provider's class makes on its base (symbols: not part of the
 * public API, which is each class's own methods).
 */
const kReceive = Symbol('receive');
const kTakeObject = Symbol('takeObject');
const kConvertObject = Symbol('convertObject');
const kFailed = Symbol('failed');
const kUpstreamFailed = Symbol('upstreamFailed');
const kState = Symbol('state');
/** The hook a provider's class overrides to look at what it hands out (errors' responses included). */
const kYielded = Symbol('yielded');
/**
 * A provider's class declares its row of the core's table with this static
 * (the name its native handle is made with), so that the providers' list
 * (lib/generated/wire-constants.js `PROVIDERS`) can be checked against the
 * classes (__test__/providers.test.mjs).
 */
const kProvider = Symbol('provider');

class NativeConverter {
  #handle;
  /** The converter's native state as last reported (lib/wire.js): slot, state word, the object path's header. */
  #state;
  #objectPath;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;
  /** Where decode() puts pipeline-only annotations (lib/wire.js), or undefined. */
  #sanitized;
  /** The public class's name, for error messages (`<name>.pushBytes`). */
  #name;
  /** Inputs taken (objects and reads), and whether any was raw bytes, for argumentProgress(). */
  #received = 0;
  #rawBody = false;
  /** The bytes held before this converter, for argumentProgress() ({@link kHeldBytes}). */
  #heldBytes;

  /**
   * `handle`: the provider's `native.ConverterHandle`; `ObjectPath`: its
   * object path's class (lib/object-path.js); `sanitized`: a WeakMap for
   * the pipeline-only annotations of its responses, or undefined.
   */
  constructor(name, handle, ObjectPath, host, sanitized) {
    this.#name = name;
    this.#host = host;
    this.#sanitized = sanitized;
    this.#handle = handle;
    this.#state = new NativeState(handle.slot, handle.state);
    this.#state.converter = this;
    this.#objectPath = new ObjectPath(this.#state, host);
  }

  /** The native state as last reported (read-only use: the word's bits). */
  get [kState]() {
    return this.#state;
  }

  /** An SDK object is about to be taken: counted for argumentProgress(), shown to the host. */
  [kReceive](object) {
    this.#received++;
    this.#host?.onEvent?.(object);
  }

  /** What the object path makes of `object`, or undefined when it takes the long way. */
  [kTakeObject](object) {
    return this.#objectPath.take(object);
  }

  /** `object` the long way: its JSON text to native, the decoded responses back (NOTHING for none). */
  [kConvertObject](object, method) {
    this.#objectPath.flush();
    const text = eventText(object, method);
    return this[kYielded](
      decode(this.#state, native.converterPushObject(this.#state.slot, text), this.#sanitized, this.#host),
    );
  }

  /** What a push method throws for `err`: the responses converted before it noted, the host's view applied. */
  [kFailed](err, method) {
    this[kYielded](err?.responses ?? NOTHING);
    return hostError(this.#host, unreadable(err, method));
  }

  /** Identity here; a provider's class overrides it to look at what it hands out. */
  [kYielded](out) {
    return out;
  }

  /** Raw SSE bytes of the HTTP body (or its text), split anywhere. */
  pushBytes(data) {
    this.#received++;
    this.#rawBody = true;
    const method = `${this.#name}.pushBytes`;
    try {
      this.#objectPath.flush();
      return this[kYielded](
        fresh(decode(this.#state, pushRaw(this.#state.slot, data, this.#carry, method), this.#sanitized, this.#host)),
      );
    } catch (err) {
      throw this[kFailed](err, method);
    }
  }

  /** End of input. The converter is finished afterwards. */
  end() {
    try {
      this.#objectPath.flush();
      flushCarry(this.#state, this.#carry, this.#host);
      return this[kYielded](
        fresh(decode(this.#state, native.converterEnd(this.#state.slot), this.#sanitized, this.#host)),
      );
    } catch (err) {
      this[kYielded](err?.responses ?? NOTHING);
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
      throw hostError(this.#host, unreadable(err, `${this.#name}.argumentProgress`));
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
   * The source failed (`retryable`: as the host or the provider classified
   * it): what native yields before the error is rethrown. Gathered
   * fragments belong to a block that is still open: they cannot change
   * what is yielded, so they are dropped. The converter is finished
   * afterwards.
   */
  [kUpstreamFailed](retryable) {
    this.#objectPath.drop();
    return this[kYielded](
      fresh(
        decode(this.#state, native.converterUpstreamFailed(this.#state.slot, retryable), this.#sanitized, this.#host),
      ),
    );
  }
}

module.exports = {
  NativeConverter,
  kReceive,
  kTakeObject,
  kConvertObject,
  kFailed,
  kUpstreamFailed,
  kState,
  kYielded,
  kProvider,
};
