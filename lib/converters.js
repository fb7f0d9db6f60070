'use strict';
// The converter API: AnthropicConverter / OpenAIConverter over the native
// state machines, and the async-generator drop-ins for Qwen Code's
// `processStream` (Anthropic) and converter + pipeline (OpenAI: Qwen Code
// packages/core/src/core/openaiContentGenerator/converter.ts and pipeline.ts).
// The JS fast paths are in lib/fast-paths.js, the wire to native in lib/wire.js.

const { native } = require('./native.js');
const { getToolCallPreparations, setToolCallPreparations } = require('./preparations.js');
const { toResponse, newResponse, ToolCallStreamError, invalidArgument, unreadable } = require('./responses.js');
const { Link, decode, NOTHING } = require('./wire.js');
const { AnthropicFastPaths, OpenAIFastPaths } = require('./fast-paths.js');
const { readHost, hostError } = require('./host.js');

/** Pipeline-only annotation: the finish chunk whose closing thinking tag was sanitised. */
const sanitizedByResponse = new WeakMap();

/** The Qwen Code release whose behaviour a converter follows (see README, "Profiles"). */
const PROFILES = ['qwen-0.21', 'qwen-0.24'];

function readProfile(profile, fn) {
  if (profile === undefined || profile === null) return PROFILES[0];
  if (!PROFILES.includes(profile)) {
    throw invalidArgument(`${fn}: options.profile must be 'qwen-0.21' or 'qwen-0.24'`);
  }
  return profile;
}

/**
 * `options.responseParsing`: Qwen Code's `responseParsingOptions` (what the
 * provider's `getResponseParsingOptions(model)` returns), read as Qwen's
 * converter reads them: `contentOnlyThinkingTagLeaks === true`, a truthy
 * `taggedThinkingTags` or `taggedThinkingTagsAfterReasoning`. Any other
 * option that is on is one this converter does not implement:
 * INVALID_ARGUMENT, rather than a silently different conversion. Options
 * that are off are ignored whatever their name.
 */
function readResponseParsing(parsing, fn) {
  if (parsing === undefined || parsing === null) return undefined;
  if (typeof parsing !== 'object') throw invalidArgument(`${fn}: options.responseParsing must be an object`);
  for (const key of Object.keys(parsing)) {
    if (RESPONSE_PARSING.includes(key) || !parsing[key]) continue;
    throw invalidArgument(`${fn}: options.responseParsing.${key} is not supported`);
  }
  return {
    contentOnlyThinkingTagLeaks: parsing.contentOnlyThinkingTagLeaks === true,
    taggedThinkingTags: Boolean(parsing.taggedThinkingTags),
    taggedThinkingTagsAfterReasoning: Boolean(parsing.taggedThinkingTagsAfterReasoning),
  };
}

/** The `responseParsingOptions` this converter implements. */
const RESPONSE_PARSING = ['contentOnlyThinkingTagLeaks', 'taggedThinkingTags', 'taggedThinkingTagsAfterReasoning'];

function readOptions(options, fn) {
  try {
    return readOptionsOf(options, fn);
  } catch (err) {
    throw unreadable(err, fn);
  }
}

function readOptionsOf(options, fn) {
  if (options === undefined || options === null)
    return {
      limits: undefined,
      profile: PROFILES[0],
      host: undefined,
      responseParsing: undefined,
      throwOnErrorFinish: false,
      dropEmptyResponses: false,
    };
  if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
  const { model, limits } = options;
  const profile = readProfile(options.profile, fn);
  const host = readHost(options.host, fn);
  const responseParsing = readResponseParsing(options.responseParsing, fn);
  const throwOnErrorFinish = readFlag(options, 'throwOnErrorFinish', fn);
  const dropEmptyResponses = readFlag(options, 'dropEmptyResponses', fn);
  // Deprecated and ignored: neither release names a configured model in
  // its responses. Still type-checked, so old callers keep failing loudly.
  if (model !== undefined && model !== null && typeof model !== 'string') {
    throw invalidArgument(`${fn}: options.model must be a string`);
  }
  let nativeLimits;
  if (limits !== undefined && limits !== null) {
    if (typeof limits !== 'object') throw invalidArgument(`${fn}: options.limits must be an object`);
    nativeLimits = {};
    for (const key of ['maxCallBytes', 'maxBufferedBytes', 'maxRepairDepth']) {
      const v = limits[key];
      if (v === undefined) continue;
      // `Infinity` is no limit.
      if (typeof v !== 'number' || !(v >= 1))
        throw invalidArgument(`${fn}: options.limits.${key} must be a number >= 1 (Infinity: no limit)`);
      nativeLimits[key] = v;
    }
  }
  return { limits: nativeLimits, profile, host, responseParsing, throwOnErrorFinish, dropEmptyResponses };
}

/** An optional boolean option (absent or null: false). */
function readFlag(options, name, fn) {
  const v = options[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidArgument(`${fn}: options.${name} must be a boolean`);
  return v;
}

/**
 * `options.signal` of `convertOpenAIStream`: the request's AbortSignal (any
 * object with an `aborted` flag), or undefined.
 */
function readSignal(options, fn) {
  let signal;
  try {
    signal = options?.signal;
  } catch (err) {
    throw unreadable(err, fn);
  }
  if (signal === undefined || signal === null) return undefined;
  if (typeof signal !== 'object' || !('aborted' in signal)) {
    throw invalidArgument(`${fn}: options.signal must be an AbortSignal`);
  }
  return signal;
}

/** Whether `signal` is aborted; a signal that cannot be read counts as not aborted. */
function isAborted(signal) {
  try {
    return signal?.aborted === true;
  } catch {
    return false;
  }
}

/**
 * JSON text of an event/chunk given as an object or as its JSON text. `null`
 * is the JSON value null, as its text: the converter rejects it where the
 * reference's own code fails on it (INVALID_EVENT with the reference's
 * TypeError as `hostError`).
 */
function eventText(value, fn) {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (value === null || typeof value !== 'object') {
    throw invalidArgument(`${fn}: expected an object or its JSON text, got ${value === null ? 'null' : typeof value}`);
  }
  try {
    return JSON.stringify(value);
  } catch (cause) {
    const err = invalidArgument(`${fn}: the value cannot be serialised as JSON: ${cause.message}`);
    err.cause = cause;
    throw err;
  }
}

/**
 * Raw input into a converter. Text split between the two UTF-16 units of a
 * character cannot cross as UTF-8: a trailing high surrogate waits in
 * `carry` for the next piece.
 */
function pushRaw(slot, data, carry, fn) {
  if (typeof data === 'string') {
    if (carry.text) {
      data = carry.text + data;
      carry.text = '';
    }
    const last = data.charCodeAt(data.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      carry.text = data.slice(-1);
      data = data.slice(0, -1);
    }
    return native.converterPushText(slot, data);
  }
  if (data instanceof Uint8Array) return native.converterPushBytes(slot, data);
  if (data instanceof ArrayBuffer) return native.converterPushBytes(slot, new Uint8Array(data));
  throw invalidArgument(`${fn}: expected a Uint8Array, Buffer or string`);
}

/** A decoded batch as the caller's own array (NOTHING is shared). */
const fresh = (out) => (out === NOTHING ? [] : out);

/** A lone high surrogate left at the end of the input. */
function flushCarry(link, carry, host) {
  if (carry.text) {
    const text = carry.text;
    carry.text = '';
    decode(link, native.converterPushText(link.slot, text), undefined, host);
  }
}

const kPushEvent = Symbol('pushEvent');
const kClosingTagPending = Symbol('closingTagPending');

/**
 * One Anthropic Messages request: Qwen Code's `processStream` state
 * (packages/core/src/core/anthropicContentGenerator). Feed SDK events with
 * `pushEvent`, or the raw SSE body with `pushBytes`. SDK event objects take
 * the fast paths of lib/fast-paths.js where the state word allows.
 */
class AnthropicConverter {
  #handle;
  /** The wire to native (lib/wire.js): slot, state word, last header. */
  #link;
  #fast;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;
  /** qwen-0.24 (upstreamFailed yields held calls on a retryable transport error). */
  #deferCalls;
  /** A chunk handed out carried a finish reason or an assistant payload (see `emptyStream`). */
  #nonEmpty = false;
  /** `end()` returned. */
  #ended = false;

  constructor(options) {
    const { limits, profile, host } = readOptions(options, 'AnthropicConverter');
    this.#host = host;
    this.#handle = new native.ConverterHandle('anthropic', profile, limits);
    this.#link = new Link(this.#handle.slot, this.#handle.state, { headers: true });
    this.#deferCalls = profile === 'qwen-0.24';
    this.#fast = new AnthropicFastPaths(this.#link, host, this.#deferCalls);
  }

  /** One SDK stream event (object or JSON text) → the chunks it yields, in order. */
  pushEvent(event) {
    const out = this[kPushEvent](event);
    return out === NOTHING ? [] : out;
  }

  /** pushEvent without the fresh array for "no chunks" (the generator's path). */
  [kPushEvent](event) {
    this.#host?.onEvent?.(event);
    try {
      const out = this.#fast.take(event);
      if (out !== undefined) return this.#note(out);
      this.#fast.flush();
      const text = eventText(event, 'AnthropicConverter.pushEvent');
      return this.#note(decode(this.#link, native.anthropicPushEvent(this.#link.slot, text), undefined, this.#host));
    } catch (err) {
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, unreadable(err, 'AnthropicConverter.pushEvent'));
    }
  }

  /** Raw SSE bytes of the HTTP body (or its text), split anywhere. */
  pushBytes(data) {
    try {
      this.#fast.flush();
      return this.#note(
        fresh(
          decode(
            this.#link,
            pushRaw(this.#link.slot, data, this.#carry, 'AnthropicConverter.pushBytes'),
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
      this.#fast.flush();
      flushCarry(this.#link, this.#carry, this.#host);
      const out = this.#note(fresh(decode(this.#link, native.converterEnd(this.#link.slot), undefined, this.#host)));
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
    this.#fast.drop();
    this.#link.state = native.converterFree(this.#link.slot);
  }

  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished() {
    return this.#link.finished;
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
   * afterwards.
   */
  upstreamFailed(error, classification) {
    let retryable = false;
    try {
      const told = classification?.retryable;
      retryable = this.#deferCalls && (typeof told === 'boolean' ? told : isRetryableStreamTransportError(error));
    } catch {
      // An error whose fields cannot be read is not classified.
    }
    // Gathered fragments belong to a block that is still open: they cannot
    // change what is yielded.
    this.#fast.drop();
    return fresh(decode(this.#link, native.anthropicUpstreamFailed(this.#link.slot, retryable), undefined, this.#host));
  }
}

/**
 * One OpenAI-compatible request: Qwen Code's request context and
 * StreamingToolCallParser (packages/core/src/core/openaiContentGenerator/
 * converter.ts). `pushChunk` is exactly `convertOpenAIChunkToGemini`, and so
 * is each event of `pushBytes` (the OpenAI SDK's decoding aside: an in-band
 * `{"error": …}` payload is `STREAM_ERROR`, as the SDK throws). With
 * `throwOnErrorFinish`, a chunk whose finish reason is `error_finish` is a
 * `StreamContentError` (`STREAM_ERROR`) before it is converted, in every
 * form, as Qwen's pipeline throws. Chunk objects take the fast paths of
 * lib/fast-paths.js where the state word allows.
 */
class OpenAIConverter {
  #handle;
  /** The wire to native (lib/wire.js): slot and state word. */
  #link;
  #fast;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;

  constructor(options) {
    const { limits, profile, host, responseParsing, throwOnErrorFinish, dropEmptyResponses } = readOptions(
      options,
      'OpenAIConverter',
    );
    this.#host = host;
    this.#handle = new native.ConverterHandle('openai', profile, limits, responseParsing, {
      throwOnErrorFinish,
      dropEmptyResponses,
    });
    this.#link = new Link(this.#handle.slot, this.#handle.state);
    this.#fast = new OpenAIFastPaths(this.#link, host);
  }

  /** One `chat.completion.chunk` (object or JSON text) → exactly one response. */
  pushChunk(chunk) {
    this.#host?.onEvent?.(chunk);
    try {
      const response = this.#fast.take(chunk);
      if (response !== undefined) return response;
      this.#fast.flush();
      const text = eventText(chunk, 'OpenAIConverter.pushChunk');
      return decode(this.#link, native.openaiPushChunk(this.#link.slot, text), sanitizedByResponse, this.#host)[0];
    } catch (err) {
      throw hostError(this.#host, unreadable(err, 'OpenAIConverter.pushChunk'));
    }
  }

  /**
   * Raw SSE bytes: one response per `data:` event; `[DONE]` ends. With
   * `dropEmptyResponses`, none for the events Qwen's pipeline drops unseen.
   */
  pushBytes(data) {
    try {
      this.#fast.flush();
      return fresh(
        decode(
          this.#link,
          pushRaw(this.#link.slot, data, this.#carry, 'OpenAIConverter.pushBytes'),
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
      this.#fast.flush();
      flushCarry(this.#link, this.#carry, this.#host);
      return fresh(decode(this.#link, native.converterEnd(this.#link.slot), sanitizedByResponse, this.#host));
    } catch (err) {
      throw hostError(this.#host, err);
    }
  }

  /**
   * Releases the native state now, for a stream that was abandoned (the GC
   * would release it later). Every later call throws `FINISHED`.
   */
  free() {
    this.#fast.drop();
    this.#link.state = native.converterFree(this.#link.slot);
  }

  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished() {
    return this.#link.finished;
  }

  /**
   * Whether a closing thinking-tag candidate is pending (the pipeline's error
   * path), from the state word of the last call. Fragments gathered by the
   * fast path cannot change it: they are taken only while no candidate is
   * pending.
   */
  [kClosingTagPending]() {
    return this.#link.tagClosing;
  }
}

function checkIterable(items, fn) {
  let ok;
  try {
    ok =
      items !== null &&
      typeof items === 'object' &&
      (typeof items[Symbol.asyncIterator] === 'function' || typeof items[Symbol.iterator] === 'function');
  } catch (err) {
    throw unreadable(err, fn);
  }
  if (!ok) throw invalidArgument(`${fn}: expected an (async) iterable`);
}

/**
 * The generators map errors to the host's themselves, after yielding what
 * was converted before the error: their converter keeps this package's.
 */
const unmappedErrors = (options, host) =>
  host?.createError ? { ...options, host: { ...options.host, createError: undefined } } : options;

/** Raw response-body bytes, as a generator's source may yield them. */
const isBytes = (item) => item instanceof Uint8Array || item instanceof ArrayBuffer;

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
  const { host, profile } = readOptions(options, 'convertAnthropicStream');
  const emptyFallback = readEmptyFallback(options);
  const converter = new AnthropicConverter(unmappedErrors(options, host));
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
    yield require('./bodies.js').convertAnthropicResponse(body, options);
  }
}

function readEmptyFallback(options) {
  let fallback;
  try {
    fallback = options?.emptyFallback;
  } catch (err) {
    throw unreadable(err, 'convertAnthropicStream');
  }
  if (fallback !== undefined && fallback !== null && typeof fallback !== 'function') {
    throw invalidArgument('convertAnthropicStream: options.emptyFallback must be a function');
  }
  return fallback ?? undefined;
}

/** `RETRYABLE_STREAM_TRANSPORT_CODES` of 0.24.4 (packages/core/src/core/stream-transport-retry.ts). */
const RETRYABLE_STREAM_TRANSPORT_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The transport codes 0.24.4's `classifyRetryError` recognises (packages/core/src/utils/retryErrorClassification.ts). */
const TRANSPORT_CODES = new Set([
  ...RETRYABLE_STREAM_TRANSPORT_CODES,
  'EAI_AGAIN',
  'ECONNABORTED',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/**
 * 0.24.4's `isRetryableStreamTransportError(classifyRetryError(err))`, as
 * far as it goes without Qwen's provider-payload parsing: not an abort; no
 * HTTP status below 500; and the first transport `code` along the `cause`
 * chain (4 levels, Error instances) is a retryable one. Not covered: the
 * rate-limit and quota classes (they come first in Qwen and never carry a
 * transport code in practice) and "upstream error without status" (a
 * provider request id on a status-less error), which 0.24.4 also yields
 * for; here such an error is rethrown without the held calls.
 */
function isRetryableStreamTransportError(err) {
  if (err === null || typeof err !== 'object') return false;
  if (err.code === 'ABORT_ERR') return false;
  if (err instanceof Error) {
    const name = err.name;
    if (name === 'AbortError' || name === 'CanceledError' || err.constructor?.name === 'APIUserAbortError')
      return false;
  }
  const status = typeof err.status === 'number' ? err.status : err.statusCode;
  if (typeof status === 'number' && status < 500) return false;
  let current = err;
  for (let depth = 0; depth <= 4; depth++) {
    if (current === null || typeof current !== 'object') return false;
    const code = current.code;
    if (typeof code === 'string' && TRANSPORT_CODES.has(code)) return RETRYABLE_STREAM_TRANSPORT_CODES.has(code);
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function protocolTagLeak(message) {
  return new ToolCallStreamError(message, {
    code: 'PROTOCOL_TAG_LEAK',
    type: 'PROTOCOL_TAG_LEAK',
    name: 'InvalidStreamError',
    fatal: true,
  });
}

const partCount = (candidate) => candidate?.content?.parts?.length ?? 0;

/**
 * The pipeline stage after the converter (Qwen Code
 * `packages/core/src/core/openaiContentGenerator/pipeline.ts`,
 * `processStreamWithLogging` and `handleChunkMerging`): the empty filter, the
 * thinking-tag continuation check, and finish/usage merging. One deliberate
 * improvement: a merged finish response keeps the preparations of both chunks.
 */
class FinishMerge {
  #host;
  #pendingFinish = null;
  #finishYielded = false;
  #pendingSanitized;
  /** 0.24.4's `contentYielded`: a yielded response had a non-thought part. */
  #contentYielded = false;

  constructor(host) {
    this.#host = host;
  }

  /** A converted response → the response to yield now, or undefined. */
  take(response) {
    const sanitization = sanitizedByResponse.get(response);
    const candidate = response.candidates?.[0];
    if (
      partCount(candidate) === 0 &&
      !candidate?.finishReason &&
      !response.usageMetadata &&
      getToolCallPreparations(response).length === 0
    ) {
      return undefined;
    }
    const pendingFinish = this.#pendingFinish;
    if (
      this.#pendingSanitized &&
      pendingFinish &&
      !candidate?.finishReason &&
      response.candidates?.some((c) => partCount(c) > 0)
    ) {
      throw protocolTagLeak('Model response continued after a finish reason.');
    }
    if (this.#finishYielded) {
      // The reference writes later usage into the finish it already yielded.
      if (response.usageMetadata && pendingFinish) pendingFinish.usageMetadata = response.usageMetadata;
      return undefined;
    }
    if (!pendingFinish && candidate?.finishReason && sanitization) this.#pendingSanitized = sanitization;
    if (candidate?.finishReason) {
      if (pendingFinish) {
        if (response.usageMetadata) pendingFinish.usageMetadata = response.usageMetadata;
        if (response.modelVersion) pendingFinish.modelVersion = response.modelVersion;
        keepPreparations(pendingFinish, pendingFinish, response);
      } else {
        this.#pendingFinish = response;
      }
      return undefined;
    }
    if (!pendingFinish) {
      this.#contentYielded ||= hasNonThoughtParts(response);
      return response;
    }
    const merged = newResponse(this.#host);
    merged.candidates = pendingFinish.candidates;
    merged.usageMetadata = response.usageMetadata ? response.usageMetadata : pendingFinish.usageMetadata;
    merged.responseId = response.responseId || pendingFinish.responseId;
    merged.createTime = response.createTime || pendingFinish.createTime;
    merged.modelVersion = response.modelVersion || pendingFinish.modelVersion;
    merged.promptFeedback = response.promptFeedback || pendingFinish.promptFeedback;
    keepPreparations(merged, pendingFinish, response);
    this.#pendingFinish = merged;
    this.#finishYielded = true;
    return merged;
  }

  /** The held finish at the end of the stream, if it was never yielded. */
  finish() {
    return this.#pendingFinish && !this.#finishYielded ? this.#pendingFinish : undefined;
  }

  /** Parts flushed at the end of the stream (a whitespace-only tag candidate's). */
  flushed(response) {
    this.#contentYielded ||= hasNonThoughtParts(response);
    return response;
  }

  /**
   * 0.24.4's catch: the held finish to yield before the error is rethrown,
   * unless the request was aborted, or it holds a call and no content was
   * yielded before it.
   */
  parkedOnError(aborted) {
    const parked = this.finish();
    if (parked === undefined || aborted) return undefined;
    const hasCall = parked.candidates?.some((c) => c.content?.parts?.some((p) => p.functionCall));
    if (hasCall && !this.#contentYielded) return undefined;
    this.#finishYielded = true;
    return parked;
  }
}

/** `hasNonThoughtCandidateParts` (0.24.4 pipeline.ts). */
const hasNonThoughtParts = (response) =>
  Boolean(response.candidates?.some((c) => c.content?.parts?.some((p) => !p.thought)));

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
  const { host, profile } = readOptions(options, 'convertOpenAIStream');
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
    if (!aborted && converter[kClosingTagPending]()) {
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

function keepPreparations(target, ...sources) {
  const all = sources.flatMap((s) => getToolCallPreparations(s));
  const seen = new Set();
  const unique = all.filter((p) => !seen.has(p.callId) && seen.add(p.callId));
  if (unique.length) setToolCallPreparations(target, unique);
}

/** The pipeline-only sanitisation note of a converted OpenAI response (internal: the Qwen preload). */
const sanitizationOf = (response) => sanitizedByResponse.get(response);

/** Whether an OpenAI converter holds a closing thinking-tag candidate (internal: the Qwen preload). */
const closingTagPendingOf = (converter) => converter[kClosingTagPending]();

module.exports = {
  sanitizationOf,
  closingTagPendingOf,
  readOptions,
  RESPONSE_PARSING,
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
