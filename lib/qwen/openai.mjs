// The OpenAI-compatible hook: Qwen Code's pipeline
// (packages/core/src/core/openaiContentGenerator/pipeline.ts) gets its SDK
// stream in `executeStream` and converts it in `processStreamWithLogging`,
// which calls the converter (`OpenAIContentConverter.convertOpenAIChunkToGemini`,
// `convertOpenAIChunkToLlm` in 0.24) once per chunk and keeps every other
// step — the empty filter, finish/usage merging, the thinking-tag checks,
// telemetry, error handling — to itself. So Qwen's own pipeline stays in
// place: its stream is wrapped to carry the raw body, converted natively in
// batches, and each converted response reaches the pipeline as one item
// (Converted) that the patched converter hands back unchanged. Chunks that
// arrive as SDK objects (telemetry on) are converted natively one by one.
// The provider's response parsing (`context.responseParsingOptions`: the
// content-only thinking-tag leak guard, tagged thinking, 0.24.4's tagged
// thinking after reasoning) is passed through to the converter; a stream
// whose provider switches on an option this package does not know runs
// stock.
import { createRequire } from 'node:module';
import { RawBytes, handshakeOf, interceptStreams } from './raw-body.mjs';

const require = createRequire(import.meta.url);
const { OpenAIConverter, sanitizationOf, closingTagPendingOf } = require('../converters/openai/converter.js');
const { NO_LIMITS, RESPONSE_PARSING } = require('../converters/options.js');
const { kHeldBytes } = require('../converters/argument-progress.js');

/** A response converted ahead, standing where its SDK chunk would. */
class Converted {
  constructor(response) {
    this.response = response;
  }
}

/** The chunk on which Qwen's pipeline throws its own StreamContentError. */
const errorFinishChunk = (message) => ({
  choices: [{ index: 0, delta: { content: message }, finish_reason: 'error_finish' }],
});

async function* openaiSource(stream, converter, telemetryAttempt, seen, toHost) {
  let handshake;
  for await (const item of stream) {
    const h = handshakeOf(item);
    if (h) {
      if (telemetryAttempt === undefined) {
        h.takeBody();
        handshake = seen.handshake = h;
        // What the SDK's decoder holds back counts on the cards (raw-body.mjs).
        converter[kHeldBytes](h.heldBytes);
      }
      continue;
    }
    if (!(item instanceof RawBytes)) {
      yield item;
      continue;
    }
    let out;
    try {
      // The converter has `dropEmptyResponses`: responses the pipeline's
      // empty filter would drop are not built (per-argument chunks of a
      // tool call are most of a write_file stream).
      out = converter.pushBytes(item.bytes);
    } catch (err) {
      for (const r of err?.responses ?? []) yield new Converted(r);
      if (err?.name === 'StreamContentError') {
        yield errorFinishChunk(err.message);
        return;
      }
      // A frame the SDK's decoder would have rejected (a payload that is not
      // JSON) or turned into an error (an in-band error) throws what the SDK
      // throws: the frame is replayed through the SDK's own decoder.
      if (typeof err?.sseFrame === 'string') await handshake.replayError(`${err.sseFrame}\n`);
      throw toHost(err);
    }
    for (let i = 0; i < out.length; i++) yield new Converted(out[i]);
  }
  // The end-of-stream thinking-tag check (pipeline.ts) and a final event
  // without its blank line: the converter's end().
  let rest;
  try {
    rest = converter.end();
  } catch (err) {
    for (const r of err?.responses ?? []) yield new Converted(r);
    throw toHost(err);
  }
  for (const r of rest) yield new Converted(r);
}

/**
 * Whether the request context asks for response parsing this package leaves
 * to Qwen: an option it does not implement, or a tagged-thinking parser
 * without `taggedThinkingTags` (one attached by something else than
 * `createRequestContext`).
 */
function needsStock(context) {
  const options = context?.responseParsingOptions ?? {};
  if (Object.entries(options).some(([key, on]) => on && !RESPONSE_PARSING.includes(key))) return true;
  return context?.taggedThinkingParser !== undefined && !options.taggedThinkingTags;
}

/** Checks the hook points; returns the function that patches them. */
export function prepareOpenAIPatch(q, { convertName, telemetryArg }, { profile, host, stats }) {
  const converters = q.OpenAIContentConverter;
  const name = convertName;
  const originalConvert = converters?.[name];
  const proto = q.ContentGenerationPipeline.prototype;
  const originalProcess = proto.processStreamWithLogging;
  const originalExecute = proto.executeStream;
  if (typeof originalConvert !== 'function') throw new Error(`OpenAIContentConverter.${name} is missing`);
  if (typeof originalProcess !== 'function' || typeof originalExecute !== 'function')
    throw new Error('ContentGenerationPipeline has no processStreamWithLogging / executeStream');
  if (Object.isFrozen(converters) || Object.isFrozen(proto))
    throw new Error('the OpenAI converter or pipeline is frozen');

  // The converters keep this package's errors (with the responses converted
  // before them); they become Qwen's where they reach Qwen's pipeline.
  const toHost = (err) => host.createError(err);
  const converterHost = { ...host, createError: undefined };

  /** Request context → its native converter, for the streams this package converts. */
  const streams = new WeakMap();

  return () => {
    converters[name] = function convert(chunk, context) {
      const converter = context !== null && typeof context === 'object' ? streams.get(context) : undefined;
      if (converter === undefined) return originalConvert.call(this, chunk, context);
      let response;
      try {
        response = chunk instanceof Converted ? chunk.response : converter.pushChunk(chunk);
      } catch (err) {
        throw toHost(err);
      }
      const sanitized = sanitizationOf(response);
      if (sanitized) context.protocolTagSanitized = sanitized;
      return response;
    };

    proto.processStreamWithLogging = function processStreamWithLogging(stream, context, ...rest) {
      const telemetryAttempt = arguments[telemetryArg];
      if (needsStock(context)) {
        stats.fallbacks++;
        return originalProcess.call(this, withoutHandshake(stream), context, ...rest);
      }
      // Qwen's pipeline checks `error_finish` before its converter: raw bytes
      // must stop there too (openaiSource hands the pipeline the chunk).
      const converter = new OpenAIConverter({
        profile,
        host: converterHost,
        limits: NO_LIMITS,
        responseParsing: context?.responseParsingOptions,
        throwOnErrorFinish: true,
        // Only the bytes path leaves them out, where no telemetry sees them.
        dropEmptyResponses: true,
      });
      streams.set(context, converter);
      mirrorTagCandidate(context, converter);
      const seen = { handshake: undefined };
      const source = openaiSource(stream, converter, telemetryAttempt, seen, toHost);
      const inner = originalProcess.call(this, source, context, ...rest);
      return (async function* counted() {
        try {
          yield* inner;
        } finally {
          if (seen.handshake) stats.openai.bytes++;
          else stats.openai.chunks++;
          if (!converter.finished) converter.free();
        }
      })();
    };
    proto.executeStream = function executeStream(...args) {
      interceptStreams(this.client?.chat?.completions);
      return originalExecute.apply(this, args);
    };
  };
}

/**
 * Qwen's pipeline reads the pending thinking-tag candidate from the request
 * context when the stream fails (pipeline.ts, `processStreamWithLogging`'s
 * catch: a closing-tag candidate turns the error into PROTOCOL_TAG_LEAK
 * unless the request was aborted); here the candidate lives in the native
 * converter, so the context shows it. Qwen clears it before it throws. The
 * end-of-stream check never sees one: the source's `end()` has taken it.
 */
function mirrorTagCandidate(context, converter) {
  if (context === null || typeof context !== 'object') return;
  let cleared = false;
  Object.defineProperty(context, 'pendingThinkingTagCandidate', {
    configurable: true,
    enumerable: false,
    get: () => (!cleared && closingTagPendingOf(converter) ? { text: '', closingTagName: 'think' } : undefined),
    set: (value) => {
      cleared = value === undefined;
    },
  });
}

/** A stream for stock code: the handshake is dropped, so the SDK's own events follow. */
async function* withoutHandshake(stream) {
  for await (const item of stream) if (!handshakeOf(item)) yield item;
}
