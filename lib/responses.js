'use strict';
// Response objects (plain, or the host's / @google/genai's class) and the
// package's error type. Native batches are decoded by lib/wire.js.

const { fillSimpleResponse } = require('./generated/simple-response.js');

let GenerateContentResponse; // undefined: not looked up yet; null: not installed

/** The `@google/genai` class when installed (optional peer dependency). */
function responseClass() {
  if (GenerateContentResponse === undefined) {
    try {
      GenerateContentResponse = require('@google/genai').GenerateContentResponse ?? null;
    } catch {
      GenerateContentResponse = null;
    }
  }
  return GenerateContentResponse;
}

/**
 * The response class to build: the host's (embedding API, `host.GenerateContentResponse`)
 * or else `@google/genai`'s when installed, else none (plain objects).
 */
const classFor = (host) => (host?.Response !== undefined ? host.Response : responseClass());

/** A plain response object → a real GenerateContentResponse when available. */
function toResponse(plain, host) {
  const Class = classFor(host);
  return Class ? Object.assign(new Class(), plain) : plain;
}

/**
 * The error the package throws. `code` is stable; `type` is the reference's
 * InvalidStreamError type where there is one; `responses` holds what was
 * converted by the same call before the error (never lost).
 */
class ToolCallStreamError extends Error {
  constructor(
    message,
    { code, type, name, offset, providerError, providerEvent, sseFrame, hostError, fatal, responses } = {},
  ) {
    super(message);
    this.name = name && name !== 'Error' ? name : 'ToolCallStreamError';
    this.code = code;
    if (type !== undefined) this.type = type;
    if (offset !== undefined) this.offset = offset;
    if (providerError !== undefined) this.providerError = providerError;
    // The in-band error event's whole payload text (internal: the Qwen preload replays it).
    if (providerEvent !== undefined) Object.defineProperty(this, 'providerEvent', { value: providerEvent });
    // The SSE frame the SDK's decoder would have rejected (internal: the Qwen preload replays it).
    if (sseFrame !== undefined) Object.defineProperty(this, 'sseFrame', { value: sseFrame });
    // `{name, message}` of the error stock Qwen Code's own code throws for
    // the same input (a TypeError on a value it reads unguarded), for a host
    // that must throw exactly that; the package's own code and message stay.
    if (hostError !== undefined) this.hostError = hostError;
    this.fatal = Boolean(fatal);
    this.responses = responses ?? [];
  }
}

function invalidArgument(message) {
  return new ToolCallStreamError(message, { code: 'INVALID_ARGUMENT' });
}

/**
 * What a public entry caught, as a ToolCallStreamError: a hostile value
 * (throwing getters, proxies, objects without a primitive value) surfaces as
 * INVALID_ARGUMENT with the original as `cause`.
 */
function unreadable(err, name) {
  if (err instanceof ToolCallStreamError) return err;
  const wrapped = invalidArgument(`${name}: the value could not be read: ${err?.message ?? String(err)}`);
  wrapped.cause = err;
  return wrapped;
}

/** A new, empty response object (a GenerateContentResponse when available). */
function newResponse(host) {
  const Class = classFor(host);
  return Class ? new Class() : {};
}

/**
 * A chunk with at most one text part and nothing else, built from its header
 * (`{f, createTime, responseId?, modelVersion?}`, core/src/wire/mod.rs) and
 * its part (`part` undefined = no parts), its keys in the order of the key
 * order whose header id is `f` (lib/generated/simple-response.js). An `f` no
 * provider declares is an INTERNAL error: the native binary and this
 * package disagree, and no order is guessed.
 */
function simpleResponse(h, part, host) {
  const r = fillSimpleResponse(newResponse(host), h, [
    { content: { parts: part === undefined ? [] : [part], role: 'model' }, index: 0, safetyRatings: [] },
  ]);
  if (r === undefined) {
    throw new ToolCallStreamError(`toolcall-stream: no key order has the header id ${String(h.f)}`, {
      code: 'INTERNAL',
    });
  }
  return r;
}

module.exports = {
  toResponse,
  newResponse,
  simpleResponse,
  ToolCallStreamError,
  invalidArgument,
  unreadable,
};
