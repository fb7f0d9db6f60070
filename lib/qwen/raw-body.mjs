// The raw HTTP body handed to the converters inside Qwen Code. Qwen asks its SDK client for a
// stream (`client.messages.create({stream: true})` in
// packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts,
// `client.chat.completions.create({stream: true})` in
// packages/core/src/core/openaiContentGenerator/pipeline.ts, executeStream)
// and hands it, through its idle-timeout guards (which pass items through
// unchanged), to the conversion stage. The client is wrapped so that such a
// stream is a RawBodyStream: its first item is a handshake; a conversion
// stage of ours takes the body and then receives the HTTP body's bytes
// (RawBytes) instead of SDK objects. Any other consumer — or ours, when it
// needs SDK objects (telemetry) — ignores the handshake and gets the SDK's
// own events, from the SDK's own decoder. The bytes held back where the SDK
// holds them are readable through the handshake (`heldBytes()`), so a
// preparing card counts them while conversion waits, as stock's does.

import { SdkFrameCutter } from './sdk-frames.mjs';

/** One read of the HTTP body. */
export class RawBytes {
  constructor(bytes) {
    this.bytes = bytes;
  }
}

const HANDSHAKE_TYPE = 'toolcall-stream.raw-body';

/** The handshake item, or undefined. */
export const handshakeOf = (item) =>
  item !== null && typeof item === 'object' && item.type === HANDSHAKE_TYPE ? item : undefined;

const isAbortError = (err) =>
  err?.name === 'AbortError' || (err instanceof Error && /aborted/i.test(err.message) && err.name === 'DOMException');

/** Stands where the SDK's Stream would: async-iterable, with the SDK stream's controller. */
class RawBodyStream {
  #sdkStream;
  #response;
  #decoder;

  constructor(sdkStream, response, decoder) {
    this.#sdkStream = sdkStream;
    this.#response = response;
    this.#decoder = decoder;
    this.controller = sdkStream.controller;
  }

  async *[Symbol.asyncIterator]() {
    let taken = false;
    let cutter;
    yield {
      type: HANDSHAKE_TYPE,
      takeBody: () => {
        taken = true;
      },
      replayError: (eventText) => this.#replayError(eventText),
      heldBytes: () => cutter?.held(),
    };
    if (!taken) {
      yield* this.#sdkStream;
      return;
    }
    const body = this.#response.body;
    if (!body) return;
    // Where the SDK holds frames back (sdk-frames.mjs), so are they here:
    // only at a normal end does the rest go through.
    cutter = new SdkFrameCutter(this.#decoder);
    try {
      for await (const bytes of body) {
        const frames = cutter.push(bytes);
        if (frames.length > 0) yield new RawBytes(frames);
      }
    } catch (err) {
      // The SDKs end an aborted stream quietly (Stream.fromSSEResponse); the
      // caller's abort signal tells the rest.
      if (isAbortError(err)) return;
      throw err;
    }
    const rest = cutter.end();
    if (rest) yield new RawBytes(rest);
  }

  /**
   * Throws exactly what the SDK throws for an in-band error event: the event
   * text goes through the SDK's own decoder (`Stream.fromSSEResponse`).
   */
  async #replayError(eventText) {
    const replay = this.#sdkStream.constructor.fromSSEResponse(
      new Response(eventText, { headers: this.#response.headers }),
      new AbortController(),
    );
    for await (const event of replay) void event;
  }
}

/**
 * Wraps an SDK resource's `create` (on that instance only) so a streaming
 * request resolves to a RawBodyStream. The APIPromise's `withResponse()` and
 * plain `await` both work; errors (HTTP status, connection) are the SDK's own.
 */
export function interceptStreams(resource, decoder = {}) {
  const MARK = Symbol.for('toolcall-stream.qwen.raw-body');
  if (!resource || resource[MARK]) return;
  const original = resource.create;
  if (typeof original !== 'function') return;
  const create = function (body, options) {
    const promise = original.call(this, body, options);
    if (body?.stream !== true || typeof promise?.withResponse !== 'function') return promise;
    const withResponse = promise
      .withResponse()
      .then((r) => (r.response?.body ? { ...r, data: new RawBodyStream(r.data, r.response, decoder) } : r));
    const data = withResponse.then((r) => r.data);
    data.catch(() => {}); // whichever of the two the caller awaits reports the error
    withResponse.catch(() => {});
    data.withResponse = () => withResponse;
    data.asResponse = () => promise.asResponse();
    return data;
  };
  Object.defineProperty(resource, 'create', { value: create, configurable: true, writable: true });
  Object.defineProperty(resource, MARK, { value: true });
}
