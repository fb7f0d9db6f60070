'use strict';
// Turning a native batch (one JSON text) into response objects, and native
// error items into typed JS errors. One JSON.parse per call crosses the
// boundary; nothing is built field by field.

const { setToolCallPreparations } = require('./preparations.js');

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

/** A plain response object → a real GenerateContentResponse when available. */
function toResponse(plain) {
  const Class = responseClass();
  return Class ? Object.assign(new Class(), plain) : plain;
}

/**
 * The error the package throws. `code` is stable; `type` is the reference's
 * InvalidStreamError type where there is one; `responses` holds what was
 * converted by the same call before the error (never lost).
 */
class ToolCallStreamError extends Error {
  constructor(message, { code, type, name, offset, providerError, fatal, responses } = {}) {
    super(message);
    this.name = name && name !== 'Error' ? name : 'ToolCallStreamError';
    this.code = code;
    if (type !== undefined) this.type = type;
    if (offset !== undefined) this.offset = offset;
    if (providerError !== undefined) this.providerError = providerError;
    this.fatal = Boolean(fatal);
    this.responses = responses ?? [];
  }
}

function invalidArgument(message) {
  return new ToolCallStreamError(message, { code: 'INVALID_ARGUMENT' });
}

/**
 * Decodes one native batch. Returns the responses; throws a
 * ToolCallStreamError (carrying the responses converted before it) when the
 * batch ends in an error. `sanitized` receives pipeline-only annotations.
 */
function decodeBatch(text, sanitized) {
  if (text === undefined || text === null) return [];
  const items = JSON.parse(text);
  const out = new Array(items.length);
  let n = 0;
  for (const item of items) {
    if (item.error) {
      out.length = n;
      const e = item.error;
      throw new ToolCallStreamError(e.message, { ...e, responses: out });
    }
    const response = toResponse(item.r);
    if (item.p) setToolCallPreparations(response, item.p);
    if (item.s && sanitized) sanitized.set(response, item.s);
    out[n++] = response;
  }
  out.length = n;
  return out;
}

module.exports = { toResponse, decodeBatch, ToolCallStreamError, invalidArgument, responseClass };
