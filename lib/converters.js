'use strict';
// The converter API: AnthropicConverter / OpenAIConverter over the native
// state machines, and the async-generator drop-ins for Qwen Code's
// `processStream` (Anthropic) and converter + pipeline (OpenAI, spec §3.1).

const { native } = require('./native.js');
const { getToolCallPreparations, setToolCallPreparations } = require('./preparations.js');
const { decodeBatch, toResponse, responseClass, ToolCallStreamError, invalidArgument } = require('./responses.js');

/** Pipeline-only annotation: the finish chunk whose closing thinking tag was sanitised. */
const sanitizedByResponse = new WeakMap();

function readOptions(options, fn) {
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
      if (typeof v !== 'number' || !(v >= 1)) throw invalidArgument(`${fn}: options.limits.${key} must be a number >= 1`);
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

function pushRaw(nativeState, data, fn) {
  if (typeof data === 'string') return nativeState.pushText(data);
  if (data instanceof Uint8Array) return nativeState.pushBytes(data);
  if (data instanceof ArrayBuffer) return nativeState.pushBytes(new Uint8Array(data));
  throw invalidArgument(`${fn}: expected a Uint8Array, Buffer or string`);
}

/**
 * One Anthropic Messages request: Qwen Code's `processStream` state.
 * Feed SDK events with `pushEvent`, or the raw SSE body with `pushBytes`.
 */
class AnthropicConverter {
  #native;

  constructor(options) {
    const { model, limits } = readOptions(options, 'AnthropicConverter');
    this.#native = new native.NativeAnthropic(model, limits);
  }

  /** One SDK stream event (object or JSON text) → the chunks it yields, in order. */
  pushEvent(event) {
    return decodeBatch(this.#native.pushEvent(eventText(event, 'AnthropicConverter.pushEvent')));
  }

  /** Raw SSE bytes of the HTTP body, split anywhere. */
  pushBytes(data) {
    return decodeBatch(pushRaw(this.#native, data, 'AnthropicConverter.pushBytes'));
  }

  /** End of input. The converter is finished afterwards. */
  end() {
    return decodeBatch(this.#native.end());
  }

  /** True after `end()` or after a fatal error. */
  get finished() {
    return this.#native.finished;
  }
}

/**
 * One OpenAI-compatible request: Qwen Code's request context and
 * StreamingToolCallParser. `pushChunk` is exactly `convertOpenAIChunkToGemini`.
 */
class OpenAIConverter {
  #native;

  constructor(options) {
    const { limits } = readOptions(options, 'OpenAIConverter');
    this.#native = new native.NativeOpenAI(limits);
  }

  /** One `chat.completion.chunk` (object or JSON text) → exactly one response. */
  pushChunk(chunk) {
    const [response] = decodeBatch(this.#native.pushChunk(eventText(chunk, 'OpenAIConverter.pushChunk')), sanitizedByResponse);
    return response;
  }

  /** Raw SSE bytes: one response per `data:` event; `[DONE]` ends. */
  pushBytes(data) {
    return decodeBatch(pushRaw(this.#native, data, 'OpenAIConverter.pushBytes'), sanitizedByResponse);
  }

  /** End of input (and the pipeline's end-of-stream thinking-tag check). */
  end() {
    return decodeBatch(this.#native.end(), sanitizedByResponse);
  }

  get finished() {
    return this.#native.finished;
  }
}

/** Drop-in for `AnthropicContentGenerator.processStream(stream)`. */
async function* convertAnthropicStream(events, options) {
  const converter = new AnthropicConverter(options);
  for await (const event of events) {
    yield* converter.pushEvent(event);
  }
  yield* converter.end();
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
    if (partCount(candidate) === 0 && !candidate?.finishReason && !response.usageMetadata && preparations.length === 0) {
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
  yield* converter.end();
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
  toResponse,
};
