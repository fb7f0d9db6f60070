'use strict';
// Non-streaming responses: one Anthropic `Message` or OpenAI `ChatCompletion`
// body → one response, as Qwen Code converts the answer of a non-streaming
// request (`AnthropicContentConverter.convertAnthropicResponseToGemini`,
// `convertOpenAIResponseToGemini`; `…ToLlm` in 0.24.4). The conversion is the
// native core's (core/src/convert/nonstream.rs); this is the input and output layer.

const { native } = require('./native.js');
const { invalidArgument, unreadable } = require('./responses.js');
const { NativeState, decode, nativeError } = require('./wire.js');
const { hostError } = require('./host.js');
const { readOptions } = require('./converters/options.js');

/**
 * The body as what crosses to native: `{text}` (JSON text) or `{bytes}` (the
 * HTTP body, read as the SDK's `Response.json()` reads it). An object is
 * its `JSON.stringify` text; so is text holding a lone surrogate, which
 * cannot cross as UTF-8 (JSON text escapes it).
 */
function bodyInput(body, fn) {
  if (typeof body === 'string') {
    if (body.isWellFormed()) return { text: body };
    try {
      return { text: JSON.stringify(JSON.parse(body)) };
    } catch {
      return { text: body }; // native reports the INVALID_JSON
    }
  }
  if (body instanceof Uint8Array) return { bytes: body };
  if (body instanceof ArrayBuffer) return { bytes: new Uint8Array(body) };
  if (body === null || typeof body !== 'object') {
    throw invalidArgument(
      `${fn}: expected the response body as an object, its JSON text or its bytes, got ${body === null ? 'null' : typeof body}`,
    );
  }
  let text;
  try {
    text = JSON.stringify(body);
  } catch (cause) {
    const err = invalidArgument(`${fn}: the body cannot be serialised as JSON: ${cause.message}`);
    err.cause = cause;
    throw err;
  }
  return { text };
}

function convert(kind, body, options, fn) {
  const { limits, profile, host, responseParsing } = readOptions(options, kind, fn);
  try {
    if (body !== null && typeof body === 'object' && !ArrayBuffer.isView(body) && !(body instanceof ArrayBuffer)) {
      host?.onEvent?.(body);
    }
    const input = bodyInput(body, fn);
    const parsing = kind === 'openai' ? responseParsing : undefined;
    let batch;
    try {
      batch = input.bytes
        ? native.convertResponseBytes(kind, input.bytes, profile, limits, parsing)
        : native.convertResponseText(kind, input.text, profile, limits, parsing);
    } catch (err) {
      throw nativeError(err);
    }
    // One response, or the error (lib/wire.js; the state word says "finished").
    // Its usage provenance ("u") and reasoning parts ("t") are attached as on
    // streams, the host's stores and factory included (lib/annotations.js).
    return decode(new NativeState(-1, 0), batch, undefined, host)[0];
  } catch (err) {
    throw hostError(host, unreadable(err, fn));
  }
}

/**
 * An Anthropic Messages API response (non-streaming `messages.create`) → one
 * response: the body as an object, its JSON text or its bytes, with the
 * same result.
 */
function convertAnthropicResponse(body, options) {
  return convert('anthropic', body, options, 'convertAnthropicResponse');
}

/** An OpenAI-compatible `chat.completion` (non-streaming) → one response. */
function convertOpenAIResponse(body, options) {
  return convert('openai', body, options, 'convertOpenAIResponse');
}

module.exports = { convertAnthropicResponse, convertOpenAIResponse };
