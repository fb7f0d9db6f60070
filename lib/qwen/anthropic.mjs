// The Anthropic hook: Qwen Code's AnthropicContentGenerator
// (packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts)
// converts its stream in `processStream(stream, telemetryAttempt)`, which
// `processStreamWithEmptyFallback` calls; the SDK stream comes from
// `this.client.messages.create` in `generateContentStream`. processStream is
// replaced by this package's converter; the client's streams carry the raw
// body (raw-body.mjs) unless Qwen's telemetry is recording, which needs the
// SDK's event objects (`reportAnthropicEvent`, still called for each).
import { createRequire } from 'node:module';
import { RawBytes, handshakeOf, interceptStreams } from './raw-body.mjs';

const require = createRequire(import.meta.url);
const { convertAnthropicStream } = require('../converters/anthropic/stream.js');
const { NO_LIMITS } = require('../converters/options.js');
const { kHeldBytes } = require('../converters/argument-progress.js');

/** The stream's items as the converter takes them: raw bytes, or SDK events (reported to telemetry). */
async function* anthropicSource(stream, telemetryAttempt, q, seen) {
  for await (const item of stream) {
    const handshake = handshakeOf(item);
    if (handshake) {
      if (telemetryAttempt === undefined) {
        handshake.takeBody();
        seen.handshake = handshake;
      }
      continue;
    }
    if (item instanceof RawBytes) {
      yield item.bytes;
      continue;
    }
    seen.objects = true;
    q.reportAnthropicEvent(telemetryAttempt, item);
    yield item;
  }
}

/** Checks the hook points; returns the function that patches them. */
export function prepareAnthropicPatch(q, { heldCallRelease, lastFrameNeedsMoreBytes }, { profile, host, stats }) {
  const proto = q.AnthropicContentGenerator.prototype;
  const originalGenerate = proto.generateContentStream;
  if (typeof proto.processStream !== 'function' || typeof originalGenerate !== 'function')
    throw new Error('AnthropicContentGenerator has no processStream / generateContentStream');
  if (Object.isFrozen(proto)) throw new Error('AnthropicContentGenerator.prototype is frozen');

  // From 0.23.0, processStream classifies a failed source with Qwen's own
  // classifier before it yields the confirmed held calls: a retryable
  // transport error releases them, and from 0.23.4 a status-less upstream
  // error too (anthropicContentGenerator.ts, processStream).
  const releases = {
    transport: (c) => q.isRetryableStreamTransportError(c),
    'transport-or-statusless': (c) => q.isRetryableStreamTransportError(c) || q.isRetryableStatuslessUpstreamError(c),
  }[heldCallRelease];
  if (releases && typeof q.classifyRetryError !== 'function')
    throw new Error("Qwen's retry classifier (classifyRetryError) is missing");
  const classify = releases ? (error) => releases(q.classifyRetryError(error)) : undefined;

  return () => {
    proto.processStream = async function* processStream(stream, telemetryAttempt) {
      const seen = { handshake: undefined, objects: false, sdkError: undefined };
      // On the raw path, a frame the SDK's decoder would have rejected (a
      // payload that is not JSON) or turned into an error (an in-band error
      // event) throws what the SDK throws: the frame is replayed through the
      // SDK's own decoder, and Qwen classifies and sees that error.
      const sdkErrorOf = async (err) => {
        if (seen.sdkError === undefined && seen.handshake && typeof err?.sseFrame === 'string') {
          try {
            await seen.handshake.replayError(`${err.sseFrame}\n`);
          } catch (replayed) {
            seen.sdkError = replayed;
          }
        }
        return seen.sdkError ?? err;
      };
      const streamHost = classify
        ? { ...host, isRetryableUpstreamError: async (err) => classify(await sdkErrorOf(err)) }
        : host;
      try {
        yield* convertAnthropicStream(anthropicSource(stream, telemetryAttempt, q, seen), {
          profile,
          host: streamHost,
          limits: NO_LIMITS,
          // What the SDK's decoder holds back counts on the cards (raw-body.mjs).
          [kHeldBytes]: () => seen.handshake?.heldBytes(),
        });
      } catch (err) {
        throw await sdkErrorOf(err);
      } finally {
        if (seen.handshake) stats.anthropic.bytes++;
        else stats.anthropic.objects++;
      }
    };
    proto.generateContentStream = function generateContentStream(...args) {
      interceptStreams(this.client?.messages, { lastFrameNeedsMoreBytes: lastFrameNeedsMoreBytes === true });
      return originalGenerate.apply(this, args);
    };
  };
}
