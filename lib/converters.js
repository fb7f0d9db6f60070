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
  responseClass,
  ToolCallStreamError,
  invalidArgument,
  unreadable,
} = require('./responses.js');

/** Pipeline-only annotation: the finish chunk whose closing thinking tag was sanitised. */
const sanitizedByResponse = new WeakMap();

function readOptions(options, fn) {
  try {
    return readOptionsOf(options, fn);
  } catch (err) {
    throw unreadable(err, fn);
  }
}

function readOptionsOf(options, fn) {
  if (options === undefined || options === null) return { model: undefined, limits: undefined };
  if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
  const { model, limits } = options;
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
  return { model: model ?? undefined, limits: nativeLimits };
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
function flushCarry(slot, carry) {
  if (carry.text) {
    const text = carry.text;
    carry.text = '';
    decodeBatch(native.converterPushText(slot, text));
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

  constructor(options) {
    const { model, limits } = readOptions(options, 'AnthropicConverter');
    this.#handle = new native.ConverterHandle('anthropic', model, limits);
    this.#slot = this.#handle.slot;
  }

  /** One SDK stream event (object or JSON text) → the chunks it yields, in order. */
  pushEvent(event) {
    const out = this[kPushEvent](event);
    return out === NOTHING ? [] : out;
  }

  /** pushEvent without the fresh array for "no chunks" (the generator's path). */
  [kPushEvent](event) {
    try {
      return this.#pushEvent(event);
    } catch (err) {
      this.#failed();
      throw unreadable(err, 'AnthropicConverter.pushEvent');
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
    if (event?.type === 'content_block_stop' && this.#args !== '' && (event.index ?? 0) === this.#argsIndexNumber) {
      const out = this.#stopHeld();
      if (out !== undefined) return out;
    }
    this.#flush();
    if (event?.type === 'content_block_start' && typeof (event.index ?? 0) === 'number') {
      this.#flushedTo.delete(String(event.index ?? 0));
    }
    // Any event may move native's budget: the next fragment asks again.
    this.#argsIndexNumber = NaN;
    const out = decodeBatch(native.anthropicPushEvent(this.#slot, eventText(event, 'AnthropicConverter.pushEvent')));
    this.#learn(out, typeof event === 'string' || event?.type === 'message_start');
    return out;
  }

  /** Raw SSE bytes of the HTTP body (or its text), split anywhere. */
  pushBytes(data) {
    try {
      this.#flush();
      return decodeBatch(pushRaw(this.#slot, data, this.#carry, 'AnthropicConverter.pushBytes'));
    } catch (err) {
      this.#failed();
      throw unreadable(err, 'AnthropicConverter.pushBytes');
    }
  }

  /** End of input. The converter is finished afterwards. */
  end() {
    try {
      this.#flush();
      flushCarry(this.#slot, this.#carry);
      return decodeBatch(native.converterEnd(this.#slot));
    } finally {
      this.#closed = true;
      this.#header = null;
    }
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

  /** True after `end()` or after a fatal error. */
  get finished() {
    return native.converterFinished(this.#slot);
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
    const out = decodeBatch(batch);
    out[0].candidates[0].content.parts[0].functionCall.args = args;
    this.#learn(out, false);
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
    this.#header.createTime = String(Date.now());
    return simpleResponse(this.#header, thought ? { text, thought: true } : { text });
  }
}

const isNullish = (v) => v === undefined || v === null;

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

  constructor(options) {
    const { limits } = readOptions(options, 'OpenAIConverter');
    this.#handle = new native.ConverterHandle('openai', undefined, limits);
    this.#slot = this.#handle.slot;
  }

  /** One `chat.completion.chunk` (object or JSON text) → exactly one response. */
  pushChunk(chunk) {
    try {
      return this.#pushChunk(chunk);
    } catch (err) {
      // A failed call may have finished native: the fast paths look again.
      this.#quiet = native.openaiQuiet(this.#slot);
      this.#textReady = native.openaiTextReady(this.#slot);
      throw unreadable(err, 'OpenAIConverter.pushChunk');
    }
  }

  #pushChunk(chunk) {
    if (this.#textReady && this.#fragments.length === 0 && chunk !== null && typeof chunk === 'object') {
      const content = plainContent(chunk);
      if (content !== undefined) {
        const text = native.openaiPushTextDelta(this.#slot, content);
        return simpleResponse(chunkHeader(chunk), text === '' ? undefined : { text });
      }
    }
    if (this.#quiet && chunk !== null && typeof chunk === 'object') {
      const fragment = argumentFragment(chunk);
      if (fragment !== undefined) {
        this.#fragments.push(fragment[0], fragment[1]);
        this.#fragmentChars += fragment[1].length;
        if (this.#fragmentChars >= FLUSH_AT) this.#flush();
        return emptyChunkResponse(chunk);
      }
    }
    this.#flush();
    const text = eventText(chunk, 'OpenAIConverter.pushChunk');
    const [response] = decodeBatch(native.openaiPushChunk(this.#slot, text), sanitizedByResponse);
    this.#quiet = native.openaiQuiet(this.#slot);
    this.#textReady = native.openaiTextReady(this.#slot);
    return response;
  }

  /** Raw SSE bytes: one response per `data:` event; `[DONE]` ends. */
  pushBytes(data) {
    try {
      this.#flush();
      return decodeBatch(pushRaw(this.#slot, data, this.#carry, 'OpenAIConverter.pushBytes'), sanitizedByResponse);
    } catch (err) {
      throw unreadable(err, 'OpenAIConverter.pushBytes');
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
      flushCarry(this.#slot, this.#carry);
      return decodeBatch(native.converterEnd(this.#slot), sanitizedByResponse);
    } finally {
      // Finished: every later chunk takes the long way to native's FINISHED.
      this.#quiet = false;
      this.#textReady = false;
    }
  }

  get finished() {
    return native.converterFinished(this.#slot);
  }

  #flush() {
    if (this.#fragments.length === 0) return;
    const text = JSON.stringify(this.#fragments);
    this.#fragments = [];
    this.#fragmentChars = 0;
    decodeBatch(native.openaiPushFragments(this.#slot, text));
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

/** The response `convertOpenAIChunkToGemini` builds for a chunk without parts. */
function emptyChunkResponse(chunk) {
  return simpleResponse(chunkHeader(chunk), undefined);
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

/** Drop-in for `AnthropicContentGenerator.processStream(stream)`. */
async function* convertAnthropicStream(events, options) {
  checkIterable(events, 'convertAnthropicStream');
  const converter = new AnthropicConverter(options);
  for await (const event of events) {
    // Most events yield nothing; an indexed loop avoids `yield*`'s iterator.
    const out = converter[kPushEvent](event);
    for (let i = 0; i < out.length; i++) yield out[i];
  }
  const rest = converter.end();
  for (let i = 0; i < rest.length; i++) yield rest[i];
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
 * The OpenAI converter plus the pipeline stage of spec §3.1: `error_finish`
 * check, empty filter, finish/usage merging. One deliberate improvement: a
 * merged finish response keeps the preparations of both chunks (§6.9.4).
 */
async function* convertOpenAIStream(chunks, options) {
  checkIterable(chunks, 'convertOpenAIStream');
  const converter = new OpenAIConverter(options);
  let pendingFinish = null;
  let finishYielded = false;
  let pendingSanitized;
  for await (const chunk of chunks) {
    const choice = chunk?.choices?.[0];
    if (choice?.finish_reason === 'error_finish') {
      const content = typeof choice.delta?.content === 'string' ? choice.delta.content.trim() : '';
      throw new ToolCallStreamError(content || 'Unknown stream error', {
        code: 'STREAM_ERROR',
        name: 'StreamContentError',
        fatal: true,
      });
    }
    const response = converter.pushChunk(chunk);
    const sanitization = sanitizedByResponse.get(response);
    const candidate = response.candidates?.[0];
    const preparations = getToolCallPreparations(response);
    if (
      partCount(candidate) === 0 &&
      !candidate?.finishReason &&
      !response.usageMetadata &&
      preparations.length === 0
    ) {
      continue;
    }
    if (
      pendingSanitized &&
      pendingFinish &&
      !candidate?.finishReason &&
      response.candidates?.some((c) => partCount(c) > 0)
    ) {
      throw protocolTagLeak('Model response continued after a finish reason.');
    }
    if (finishYielded) {
      // The reference writes later usage into the finish it already yielded.
      if (response.usageMetadata && pendingFinish) pendingFinish.usageMetadata = response.usageMetadata;
      continue;
    }
    if (!pendingFinish && candidate?.finishReason && sanitization) pendingSanitized = sanitization;
    if (candidate?.finishReason) {
      if (pendingFinish) {
        if (response.usageMetadata) pendingFinish.usageMetadata = response.usageMetadata;
        if (response.modelVersion) pendingFinish.modelVersion = response.modelVersion;
        keepPreparations(pendingFinish, pendingFinish, response);
      } else {
        pendingFinish = response;
      }
      continue;
    }
    if (pendingFinish) {
      const Class = responseClass();
      const merged = Class ? new Class() : {};
      merged.candidates = pendingFinish.candidates;
      merged.usageMetadata = response.usageMetadata ? response.usageMetadata : pendingFinish.usageMetadata;
      merged.responseId = response.responseId || pendingFinish.responseId;
      merged.createTime = response.createTime || pendingFinish.createTime;
      merged.modelVersion = response.modelVersion || pendingFinish.modelVersion;
      merged.promptFeedback = response.promptFeedback || pendingFinish.promptFeedback;
      keepPreparations(merged, pendingFinish, response);
      pendingFinish = merged;
      finishYielded = true;
      yield merged;
      continue;
    }
    yield response;
  }
  const rest = converter.end();
  for (let i = 0; i < rest.length; i++) yield rest[i];
  if (pendingFinish && !finishYielded) yield pendingFinish;
}

function keepPreparations(target, ...sources) {
  const all = sources.flatMap((s) => getToolCallPreparations(s));
  const seen = new Set();
  const unique = all.filter((p) => !seen.has(p.callId) && seen.add(p.callId));
  if (unique.length) setToolCallPreparations(target, unique);
}

module.exports = {
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
