'use strict';
// The converter API: AnthropicConverter / OpenAIConverter over the native
// state machines, and the async-generator drop-ins for Qwen Code's
// `processStream` (Anthropic) and converter + pipeline (OpenAI, spec §3.1).

const { native } = require('./native.js');
const { getToolCallPreparations, setToolCallPreparations } = require('./preparations.js');
const {
  decodeBatch,
  toResponse,
  newResponse,
  simpleResponse,
  ToolCallStreamError,
  invalidArgument,
  unreadable,
} = require('./responses.js');
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
    return { limits: undefined, profile: PROFILES[0], host: undefined, responseParsing: undefined };
  if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
  const { model, limits } = options;
  const profile = readProfile(options.profile, fn);
  const host = readHost(options.host, fn);
  const responseParsing = readResponseParsing(options.responseParsing, fn);
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
      if (typeof v !== 'number' || !(v >= 1))
        throw invalidArgument(`${fn}: options.limits.${key} must be a number >= 1`);
      nativeLimits[key] = v;
    }
  }
  return { limits: nativeLimits, profile, host, responseParsing };
}

/** JSON text of an event/chunk given as an object or as its JSON text. */
function eventText(value, fn) {
  if (typeof value === 'string') return value;
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

/** What the internal push returns for "no chunks": never handed out. */
const NOTHING = Object.freeze([]);

/** A lone high surrogate left at the end of the input. */
function flushCarry(slot, carry, host) {
  if (carry.text) {
    const text = carry.text;
    carry.text = '';
    decodeBatch(native.converterPushText(slot, text), undefined, host);
  }
}

const kPushEvent = Symbol('pushEvent');

/** Gathered argument text is handed to native at least every this many characters. */
const FLUSH_AT = 1 << 20;

/**
 * One Anthropic Messages request: Qwen Code's `processStream` state.
 * Feed SDK events with `pushEvent`, or the raw SSE body with `pushBytes`.
 *
 * SDK event objects take a JS fast path for the two hot events, with the
 * native converter's semantics: `input_json_delta` fragments are gathered
 * and handed over in one call (they yield nothing), and text/thinking deltas
 * are built here once native has yielded a chunk since the last
 * `message_start` (so no message_start usage is pending and the header is
 * known). Limits on gathered arguments are checked when they are handed over.
 */
class AnthropicConverter {
  #handle;
  #slot;
  #args = '';
  #argsIndex = '';
  #argsIndexNumber = NaN;
  #flushAt = 0;
  /** Block indexes with fragments handed to native since their content_block_start. */
  #flushedTo = new Set();
  /** `{responseId?, modelVersion?}` of chunks built here, or null. */
  #header = null;
  /** Set by `end()` and by a call that left native finished: the fast paths are closed. */
  #closed = false;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;
  /** qwen-0.24: calls are held for the stop reason, so #stopHeld does not apply. */
  #deferCalls;
  /** Native knows that a chunk with a part was yielded (0.24.4's end-of-stream check). */
  #payloadNoted = false;
  /** A chunk handed out carried a finish reason or an assistant payload (see `emptyStream`). */
  #nonEmpty = false;
  /** `end()` returned. */
  #ended = false;

  constructor(options) {
    const { limits, profile, host } = readOptions(options, 'AnthropicConverter');
    this.#host = host;
    this.#handle = new native.ConverterHandle('anthropic', profile, limits);
    this.#slot = this.#handle.slot;
    this.#deferCalls = profile === 'qwen-0.24';
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
      return this.#note(this.#pushEvent(event));
    } catch (err) {
      this.#failed();
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, unreadable(err, 'AnthropicConverter.pushEvent'));
    }
  }

  #pushEvent(event) {
    if (!this.#closed && event !== null && typeof event === 'object' && event.type === 'content_block_delta') {
      const delta = event.delta;
      if (delta !== null && typeof delta === 'object') {
        if (delta.type === 'input_json_delta') {
          const fragment = delta.partial_json;
          const index = event.index ?? 0;
          if (typeof fragment === 'string' && typeof index === 'number') {
            if (fragment === '') return NOTHING;
            if (index !== this.#argsIndexNumber) {
              this.#flush();
              this.#argsIndexNumber = index;
              this.#argsIndex = String(index);
              this.#setFlushAt();
            }
            this.#args += fragment;
            if (this.#args.length > this.#flushAt) this.#flush();
            return NOTHING;
          }
        } else if (this.#header !== null && (delta.type === 'text_delta' || delta.type === 'thinking_delta')) {
          const thought = delta.type === 'thinking_delta';
          const text = thought ? delta.thinking : 'text' in delta ? delta.text : '';
          if (typeof text === 'string') return text === '' ? NOTHING : [this.#chunk(text, thought)];
        }
      }
    }
    if (
      !this.#deferCalls &&
      event?.type === 'content_block_stop' &&
      this.#args !== '' &&
      (event.index ?? 0) === this.#argsIndexNumber
    ) {
      const out = this.#stopHeld();
      if (out !== undefined) return out;
    }
    this.#flush();
    if (event?.type === 'content_block_start' && typeof (event.index ?? 0) === 'number') {
      this.#flushedTo.delete(String(event.index ?? 0));
    }
    // Any event may move native's budget: the next fragment asks again.
    this.#argsIndexNumber = NaN;
    const out = decodeBatch(
      native.anthropicPushEvent(this.#slot, eventText(event, 'AnthropicConverter.pushEvent')),
      undefined,
      this.#host,
    );
    this.#learn(out, typeof event === 'string' || event?.type === 'message_start');
    return out;
  }

  /** Raw SSE bytes of the HTTP body (or its text), split anywhere. */
  pushBytes(data) {
    try {
      this.#flush();
      return this.#note(
        decodeBatch(pushRaw(this.#slot, data, this.#carry, 'AnthropicConverter.pushBytes'), undefined, this.#host),
      );
    } catch (err) {
      this.#failed();
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, unreadable(err, 'AnthropicConverter.pushBytes'));
    }
  }

  /** End of input. The converter is finished afterwards. */
  end() {
    try {
      this.#flush();
      flushCarry(this.#slot, this.#carry, this.#host);
      const out = this.#note(decodeBatch(native.converterEnd(this.#slot), undefined, this.#host));
      this.#ended = true;
      return out;
    } catch (err) {
      this.#note(err?.responses ?? NOTHING);
      throw hostError(this.#host, err);
    } finally {
      this.#closed = true;
      this.#header = null;
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
   * After a failed call: what native yielded since is unknown here (no
   * header), and when native is finished the fast paths close, so that every
   * later event takes the long way to native's FINISHED.
   */
  #failed() {
    this.#header = null;
    if (native.converterFinished(this.#slot)) this.#closed = true;
  }

  /**
   * Releases the native state now, for a stream that was abandoned (the GC
   * would release it later). Every later call throws `FINISHED`.
   */
  free() {
    this.#args = '';
    this.#closed = true;
    this.#header = null;
    native.converterFree(this.#slot);
  }

  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished() {
    return native.converterFinished(this.#slot);
  }

  /**
   * The event source (SDK iterator or HTTP body) failed with `error`: the
   * chunks to yield before rethrowing it. Under qwen-0.24 these are the held
   * calls when `error` is a retryable stream transport error and each call
   * was confirmed complete (0.24.4's `processStream`); otherwise none. The
   * converter is finished afterwards.
   */
  upstreamFailed(error) {
    let retryable = false;
    try {
      retryable = this.#deferCalls && isRetryableStreamTransportError(error);
    } catch {
      // An error whose fields cannot be read is not classified.
    }
    // Gathered fragments belong to a block that is still open: they cannot
    // change what is yielded.
    this.#args = '';
    this.#argsIndexNumber = NaN;
    return decodeBatch(native.anthropicUpstreamFailed(this.#slot, retryable), undefined, this.#host);
  }

  /**
   * Gathered text is handed over before it could cross a limit (native's
   * budget for the block: maxCallBytes and maxBufferedBytes; a UTF-16 unit
   * is at most 6 bytes there, a lone surrogate kept as an escape), so the
   * limit fails at the event that crosses it, as on the native path; and at
   * least every FLUSH_AT units.
   */
  #setFlushAt() {
    const budget = native.anthropicArgsBudget(this.#slot, this.#argsIndex);
    this.#flushAt = Math.min(FLUSH_AT, Math.floor(budget / 6));
  }

  #flush() {
    if (this.#args === '') return;
    const fragments = this.#args;
    this.#args = '';
    this.#flushedTo.add(this.#argsIndex);
    // Lone surrogates cannot cross as UTF-8; such text crosses JSON-encoded.
    const wellFormed = fragments.isWellFormed();
    decodeBatch(
      native.anthropicAppendInput(
        this.#slot,
        this.#argsIndex,
        wellFormed ? fragments : JSON.stringify(fragments),
        !wellFormed,
      ),
      undefined,
      this.#host,
    );
    this.#setFlushAt();
  }

  /**
   * The stop of a block whose every fragment is still gathered here: when
   * they parse as JSON, they never cross. Native closes the block with the
   * long way's limits and chunk, `{}` standing in for the arguments, and the
   * parsed value goes in their place (what JS would parse from the text
   * native hands back, as the long way does). Else undefined: the long way.
   */
  #stopHeld() {
    // Within native's budget by the flush rule, so its limit checks pass.
    if (this.#flushedTo.has(this.#argsIndex)) return undefined;
    let args;
    try {
      args = JSON.parse(this.#args);
    } catch {
      return undefined;
    }
    const batch = native.anthropicStopHeld(this.#slot, this.#argsIndex, Buffer.byteLength(this.#args));
    if (batch === undefined || batch === null) return undefined;
    this.#args = '';
    this.#argsIndexNumber = NaN;
    const out = decodeBatch(batch, undefined, this.#host);
    out[0].candidates[0].content.parts[0].functionCall.args = args;
    this.#learn(out, false);
    this.#nonEmpty = true;
    return out;
  }

  /** After a native call: a yielded chunk means no usage is pending and shows the header. */
  #learn(out, mayChangeHeader) {
    if (out.length > 0) {
      const last = out[out.length - 1];
      const header = { f: 0 };
      if ('responseId' in last) header.responseId = last.responseId;
      if ('modelVersion' in last) header.modelVersion = last.modelVersion;
      this.#header = header;
    } else if (mayChangeHeader) {
      this.#header = null;
    }
  }

  #chunk(text, thought) {
    this.#nonEmpty = true;
    if (!this.#payloadNoted) {
      this.#payloadNoted = true;
      native.anthropicNotePayload(this.#slot);
    }
    this.#header.createTime = String(Date.now());
    return simpleResponse(this.#header, thought ? { text, thought: true } : { text }, this.#host);
  }
}

const isNullish = (v) => v === undefined || v === null;

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
 * `[index, arguments]` when `chunk` is an argument-only tool-call delta
 * (one call, no id, no name, no text, no finish, no usage): while the
 * converter is quiet such a chunk converts to an empty response.
 */
function argumentFragment(chunk) {
  if (chunk.usage) return undefined;
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (choice === null || typeof choice !== 'object' || choice.finish_reason) return undefined;
  const delta = choice.delta;
  if (delta === null || typeof delta !== 'object') return undefined;
  if (!isNullish(delta.content) || (delta.reasoning_content ?? delta.reasoning)) return undefined;
  const calls = delta.tool_calls;
  if (!Array.isArray(calls) || calls.length !== 1) return undefined;
  const call = calls[0];
  if (call === null || typeof call !== 'object' || !(isNullish(call.id) || call.id === '')) return undefined;
  const fn = call.function;
  if (fn === null || typeof fn !== 'object' || !(isNullish(fn.name) || fn.name === '')) return undefined;
  const args = fn.arguments;
  const index = call.index ?? 0;
  if (typeof args !== 'string' || args === '' || typeof index !== 'number') return undefined;
  return [index, args];
}

/**
 * One OpenAI-compatible request: Qwen Code's request context and
 * StreamingToolCallParser. `pushChunk` is exactly `convertOpenAIChunkToGemini`.
 *
 * Chunk objects take a JS fast path for argument-only tool-call deltas while
 * the converter is quiet (no held parts, no thinking-tag candidate): their
 * (empty) response is built here and the fragments are handed to the native
 * parser, in order, before the next chunk that needs it.
 */
class OpenAIConverter {
  #handle;
  #slot;
  #fragments = [];
  #fragmentChars = 0;
  #quiet = true;
  #textReady = true;
  #carry = { text: '' };
  /** The embedding API's host (lib/host.js), or undefined. */
  #host;

  constructor(options) {
    const { limits, profile, host, responseParsing } = readOptions(options, 'OpenAIConverter');
    this.#host = host;
    this.#handle = new native.ConverterHandle('openai', profile, limits, responseParsing);
    this.#slot = this.#handle.slot;
    // Response parsing can keep even the first content delta off the fast path.
    this.#textReady = native.openaiTextReady(this.#slot);
  }

  /** One `chat.completion.chunk` (object or JSON text) → exactly one response. */
  pushChunk(chunk) {
    this.#host?.onEvent?.(chunk);
    try {
      return this.#pushChunk(chunk);
    } catch (err) {
      // A failed call may have finished native: the fast paths look again.
      this.#quiet = native.openaiQuiet(this.#slot);
      this.#textReady = native.openaiTextReady(this.#slot);
      throw hostError(this.#host, unreadable(err, 'OpenAIConverter.pushChunk'));
    }
  }

  #pushChunk(chunk) {
    if (this.#textReady && this.#fragments.length === 0 && chunk !== null && typeof chunk === 'object') {
      const content = plainContent(chunk);
      if (content !== undefined) {
        const text = native.openaiPushTextDelta(this.#slot, content);
        return simpleResponse(chunkHeader(chunk), text === '' ? undefined : { text }, this.#host);
      }
    }
    if (this.#quiet && chunk !== null && typeof chunk === 'object') {
      const fragment = argumentFragment(chunk);
      if (fragment !== undefined) {
        this.#fragments.push(fragment[0], fragment[1]);
        this.#fragmentChars += fragment[1].length;
        if (this.#fragmentChars >= FLUSH_AT) this.#flush();
        return simpleResponse(chunkHeader(chunk), undefined, this.#host);
      }
    }
    this.#flush();
    const text = eventText(chunk, 'OpenAIConverter.pushChunk');
    const [response] = decodeBatch(native.openaiPushChunk(this.#slot, text), sanitizedByResponse, this.#host);
    this.#quiet = native.openaiQuiet(this.#slot);
    this.#textReady = native.openaiTextReady(this.#slot);
    return response;
  }

  /** Raw SSE bytes: one response per `data:` event; `[DONE]` ends. */
  pushBytes(data) {
    try {
      this.#flush();
      return decodeBatch(
        pushRaw(this.#slot, data, this.#carry, 'OpenAIConverter.pushBytes'),
        sanitizedByResponse,
        this.#host,
      );
    } catch (err) {
      throw hostError(this.#host, unreadable(err, 'OpenAIConverter.pushBytes'));
    } finally {
      // Bytes move the native state; the chunk fast paths must look again.
      this.#quiet = native.openaiQuiet(this.#slot);
      this.#textReady = native.openaiTextReady(this.#slot);
    }
  }

  /** End of input (and the pipeline's end-of-stream thinking-tag check). */
  end() {
    try {
      this.#flush();
      flushCarry(this.#slot, this.#carry, this.#host);
      return decodeBatch(native.converterEnd(this.#slot), sanitizedByResponse, this.#host);
    } catch (err) {
      throw hostError(this.#host, err);
    } finally {
      // Finished: every later chunk takes the long way to native's FINISHED.
      this.#quiet = false;
      this.#textReady = false;
    }
  }

  /**
   * Releases the native state now, for a stream that was abandoned (the GC
   * would release it later). Every later call throws `FINISHED`.
   */
  free() {
    this.#fragments = [];
    this.#fragmentChars = 0;
    this.#quiet = false;
    this.#textReady = false;
    native.converterFree(this.#slot);
  }

  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished() {
    return native.converterFinished(this.#slot);
  }

  #flush() {
    if (this.#fragments.length === 0) return;
    const text = JSON.stringify(this.#fragments);
    this.#fragments = [];
    this.#fragmentChars = 0;
    decodeBatch(native.openaiPushFragments(this.#slot, text), undefined, this.#host);
    this.#textReady = native.openaiTextReady(this.#slot);
  }
}

/** The response fields `convertOpenAIChunkToGemini` takes from a chunk. */
function chunkHeader(chunk) {
  const header = { f: 1, createTime: chunk.created ? String(chunk.created) : String(Date.now()) };
  if (chunk.id !== undefined) header.responseId = chunk.id;
  if (chunk.model) header.modelVersion = chunk.model;
  return header;
}

/**
 * The `content` of a content-only delta (a string, no reasoning, no tool
 * calls, no finish, no usage), else undefined.
 */
function plainContent(chunk) {
  if (chunk.usage) return undefined;
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (choice === null || typeof choice !== 'object' || choice.finish_reason) return undefined;
  const delta = choice.delta;
  if (delta === null || typeof delta !== 'object') return undefined;
  const content = delta.content;
  if (typeof content !== 'string' || (delta.reasoning_content ?? delta.reasoning) || !isNullish(delta.tool_calls)) {
    return undefined;
  }
  return content;
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
  const { host } = readOptions(options, 'convertAnthropicStream');
  const emptyFallback = readEmptyFallback(options);
  const converter = new AnthropicConverter(unmappedErrors(options, host));
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
          throw hostError(host, err);
        }
        // Most events yield nothing; an indexed loop avoids `yield*`'s iterator.
        for (let i = 0; i < out.length; i++) yield out[i];
        inSource = true;
      }
    } catch (err) {
      if (!inSource) throw err;
      const held = converter.upstreamFailed(err);
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
    if (!pendingFinish) return response;
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
}

/**
 * The OpenAI converter plus Qwen's pipeline stage (FinishMerge, and the
 * `error_finish` check). The source yields `chat.completion.chunk` objects
 * (or their JSON text), or raw body bytes (Uint8Array). A consumer that stops
 * early frees the native state at once.
 */
async function* convertOpenAIStream(chunks, options) {
  checkIterable(chunks, 'convertOpenAIStream');
  const { host } = readOptions(options, 'convertOpenAIStream');
  const converter = new OpenAIConverter(unmappedErrors(options, host));
  const stage = new FinishMerge(host);
  try {
    for await (const chunk of chunks) {
      if (isBytes(chunk)) {
        let out;
        try {
          out = converter.pushBytes(chunk);
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
        continue;
      }
      const choice = chunk?.choices?.[0];
      if (choice?.finish_reason === 'error_finish') {
        const content = typeof choice.delta?.content === 'string' ? choice.delta.content.trim() : '';
        throw new ToolCallStreamError(content || 'Unknown stream error', {
          code: 'STREAM_ERROR',
          name: 'StreamContentError',
          fatal: true,
        });
      }
      const response = stage.take(converter.pushChunk(chunk));
      if (response !== undefined) yield response;
    }
    const rest = converter.end();
    for (let i = 0; i < rest.length; i++) yield rest[i];
    const finish = stage.finish();
    if (finish !== undefined) yield finish;
  } catch (err) {
    throw hostError(host, err);
  } finally {
    if (!converter.finished) converter.free();
  }
}

function keepPreparations(target, ...sources) {
  const all = sources.flatMap((s) => getToolCallPreparations(s));
  const seen = new Set();
  const unique = all.filter((p) => !seen.has(p.callId) && seen.add(p.callId));
  if (unique.length) setToolCallPreparations(target, unique);
}

/** The pipeline-only sanitisation note of a converted OpenAI response (internal: the Qwen preload). */
const sanitizationOf = (response) => sanitizedByResponse.get(response);

module.exports = {
  sanitizationOf,
  RESPONSE_PARSING,
  readOptions,
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
