// The OpenAI Responses hook (Qwen Code 0.23.3 on): Qwen's ResponsesPipeline
// (packages/core/src/core/openaiResponsesContentGenerator/responses-pipeline.ts)
// reads the SSE body itself in `iterateBody(reader, streamState, signal)`:
// each read goes through its `readChunk` (the idle and lifetime guards, an
// abort), the bytes through its line parser, each frame through
// `convertResponsesEventToGemini`, and its `finally` cancels the reader.
// Here Qwen's iterateBody still runs and still makes every read, but the
// reader it is given hands each read's bytes to the native converter (one
// crossing per read) and Qwen's parser a tick instead: one frame whose
// response stands for what the read converted. So the guards, the abort, the
// cut connection and the reader's cancel are Qwen's own, at the moments
// Qwen's own code reaches them, and what iterateBody yields is the native
// converter's responses, in Qwen's order. Conversion errors are thrown as
// Qwen throws them, through its redactProxyError.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { OpenAIResponsesConverter } = require('../converters/openai-responses/converter.js');
const { NO_LIMITS } = require('../converters/options.js');

const encoder = new TextEncoder();

/**
 * The tick Qwen's parser is given: an event frame whose conversion yields
 * one response (a text delta: `makeChunkResponse`), never a state change.
 * It is kept armed — sent without the blank line that ends it — so that
 * Qwen's parser converts it either at the next read's blank line or, at
 * the end of the body, in its own end-of-stream step (a pending event frame
 * is converted after the last read). The end of the body is then reached
 * by the read that ends it, as in stock, and nothing reads after it.
 */
const ARM = 'event: response.output_text.delta\ndata: {"delta":""}\n';
const FIRST = encoder.encode(ARM);
const FIRST_TICK = encoder.encode(`${ARM}\n${ARM}`);
const TICK = encoder.encode(`\n${ARM}`);
const NOTHING = new Uint8Array(0);

/**
 * The reader Qwen's iterateBody reads: each read is the real reader's, its
 * bytes converted natively; what it converted (or the error that stopped
 * it) waits in `pending` until Qwen's parser yields the tick.
 */
class ConvertingReader {
  armed = false;
  /** `{responses, error?}` of the reads whose tick Qwen has not yielded yet. */
  pending = { responses: [] };

  constructor(reader, converter) {
    this.reader = reader;
    this.converter = converter;
  }

  /** Set once the stream is over: a read still pending then (one Qwen's guard gave up on) converts nothing. */
  closed = false;

  async read() {
    const result = await this.reader.read();
    if (this.closed) return result;
    if (result.done) {
      // A final frame without its blank line, or a final line without its
      // newline: Qwen's end-of-stream step (iterateBody after its loop).
      this.#take(() => this.converter.end());
      return result;
    }
    const ticked = this.#take(() => this.converter.pushBytes(result.value));
    const value = !this.armed ? (ticked ? FIRST_TICK : FIRST) : ticked ? TICK : NOTHING;
    this.armed = true;
    return { done: false, value };
  }

  /** Runs one conversion step; whether it gave Qwen's parser something to yield. */
  #take(step) {
    let out;
    try {
      out = step();
    } catch (err) {
      this.pending.responses.push(...(err?.responses ?? []));
      this.pending.error = err;
      return true;
    }
    if (out.length === 0) return false;
    this.pending.responses.push(...out);
    return true;
  }

  /** What the ticks stood for, since the last call. */
  take() {
    const taken = this.pending;
    this.pending = { responses: [] };
    return taken;
  }

  cancel(reason) {
    return this.reader.cancel(reason);
  }

  releaseLock() {
    return this.reader.releaseLock();
  }
}

/**
 * The error Qwen's `makeResponsesStreamError` builds for a `response.failed`
 * or `error` event (openaiResponsesContentGenerator/responses-converter.ts):
 * an Error with the message, `type` (set even when undefined), and `code`
 * and `status` where Qwen sets them, in that order. The converter carries
 * them as `providerError`; undefined for any other error.
 */
function responsesError(err) {
  if (err?.code !== 'STREAM_ERROR' || err.providerError === undefined) return undefined;
  const fields = typeof err.providerError === 'string' ? JSON.parse(err.providerError) : err.providerError;
  const out = new Error(err.message);
  out.type = fields.type;
  if ('code' in fields) out.code = fields.code;
  if ('status' in fields) out.status = fields.status;
  return out;
}

/**
 * Checks the hook points; returns the function that patches them.
 * `preparations()` says whether a stream's responses carry tool-call
 * preparations (Qwen's own generator sends none: only for live progress on
 * ACP cards).
 */
export function prepareResponsesPatch(q, { profile, host, stats, preparations = () => false }) {
  const generator = q.OpenAIResponsesContentGenerator?.prototype;
  if (typeof generator?.generateContentStream !== 'function' || typeof generator.generateContent !== 'function')
    throw new Error('OpenAIResponsesContentGenerator has no generateContentStream / generateContent');
  if (typeof q.redactProxyError !== 'function') throw new Error("Qwen's redactProxyError is missing");
  if (Object.isFrozen(generator)) throw new Error('OpenAIResponsesContentGenerator.prototype is frozen');
  const converterHost = { ...host, createError: undefined };
  const toHost = (err) => q.redactProxyError(responsesError(err) ?? host.createError(err));

  /** Patches the pipeline class once, from its first instance (the class is not exported). */
  const patched = new WeakSet();
  const patchPipelineOf = (instance) => {
    const proto = instance?.pipeline === undefined ? undefined : Object.getPrototypeOf(instance.pipeline);
    if (!proto || patched.has(proto)) return;
    patched.add(proto);
    const original = proto.iterateBody;
    if (typeof original !== 'function' || Object.isFrozen(proto)) return;
    proto.iterateBody = async function* iterateBody(reader, streamState, signal) {
      const converter = new OpenAIResponsesConverter({
        profile,
        model: this.config?.model,
        host: converterHost,
        limits: NO_LIMITS,
        preparations: preparations() === true,
      });
      const source = new ConvertingReader(reader, converter);
      const inner = original.call(this, source, streamState, signal);
      stats.openaiResponses.bytes++;
      try {
        // Each item Qwen yields is a tick: the responses it stands for go out in its place.
        for (let step = await inner.next(); !step.done; step = await inner.next()) {
          const { responses, error } = source.take();
          for (const r of responses) yield r;
          if (error !== undefined) {
            // Qwen's own throw leaves its loop through its finally (the reader's cancel) first.
            await inner.return();
            throw toHost(error);
          }
        }
      } finally {
        await inner.return();
        source.closed = true;
        if (!converter.finished) converter.free();
      }
    };
  };

  return () => {
    for (const name of ['generateContentStream', 'generateContent']) {
      const original = generator[name];
      generator[name] = function (...args) {
        patchPipelineOf(this);
        return original.apply(this, args);
      };
    }
  };
}
