'use strict';
// ToolCallIds: GeminiChat's per-attempt tool-call id normalisation, over the
// native id table (core/src/acp/ids.rs).

const { native } = require('../native.js');
const { getToolCallPreparations, setToolCallPreparations } = require('../preparations.js');
const { invalid, isObject } = require('./values.js');
const { modelParts } = require('./response-parts.js');

/** The provider's raw tool-call id, kept on a normalised `functionCall` (docs/behaviour.md §4.1). */
const PROVIDER_TOOL_CALL_ID = Symbol('providerToolCallId');

/** docs/behaviour.md §4.1 `syncFunctionCallsField`: shadow the SDK getter with the normalised calls. */
function syncFunctionCallsField(response, parts) {
  const calls = parts.map((part) => part && part.functionCall).filter(Boolean);
  const value = calls.length > 0 ? calls : undefined;
  let owner = response;
  let descriptor;
  while (owner && !descriptor) {
    descriptor = Object.getOwnPropertyDescriptor(owner, 'functionCalls');
    owner = Object.getPrototypeOf(owner);
  }
  if (descriptor && descriptor.set) {
    response.functionCalls = value;
    return;
  }
  if (!descriptor || descriptor.writable || descriptor.get) {
    Object.defineProperty(response, 'functionCalls', { value, writable: true, configurable: true, enumerable: true });
  }
}

function rawCallId(functionCall) {
  return typeof functionCall.id === 'string' && functionCall.id !== '' ? functionCall.id : null;
}

/** The native id table of a ToolCallIds (consumeModelStream hands it to the tracker's one step per chunk). */
let nativeIdsOf;

/**
 * GeminiChat's per-attempt id normalisation (docs/behaviour.md §4.1). One per attempt: a
 * retry or fallback starts a new one from the same history.
 */
class ToolCallIds {
  #native;

  static {
    nativeIdsOf = (ids) => ids.#native;
  }

  /** @param {Iterable<string>} [historyIds] every functionCall / functionResponse id in history */
  constructor(historyIds = []) {
    if (historyIds === null || typeof historyIds[Symbol.iterator] !== 'function') {
      throw invalid('ToolCallIds: historyIds must be an iterable of strings');
    }
    const ids = [...historyIds];
    if (!ids.every((id) => typeof id === 'string')) throw invalid('ToolCallIds: historyIds must be strings');
    this.#native = new native.NativeToolCallIds(ids);
  }

  /**
   * Rewrites the response in place: preparations first (reserved ids), then
   * `functionCall` parts (same-attempt duplicates dropped, absent ids
   * generated, the provider id kept under {@link getProviderToolCallId}),
   * then `response.functionCalls` becomes an own property with the
   * normalised calls. Non-string ids count as absent.
   */
  apply(response) {
    if (!isObject(response)) throw invalid('ToolCallIds.apply: response must be an object');
    const chunk = idsOfChunk(response);
    if (!chunk) return;
    // A chunk with neither a preparation nor a call (text, thoughts, usage)
    // has no id to normalise: it does not cross to native.
    const out =
      chunk.preparations.length === 0 && chunk.calls.length === 0
        ? { preparations: [], calls: [] }
        : JSON.parse(
            this.#native.apply(
              JSON.stringify({ preparations: chunk.preparations.map((p) => p.callId), calls: chunk.calls }),
            ),
          );
    rewriteIds(response, chunk, out);
  }
}

/**
 * What a response holds for id normalisation: its preparations, its model
 * content, and the raw id of each `functionCall` part (`null` when absent or
 * not a string); `undefined` when it has neither preparations nor parts.
 */
function idsOfChunk(response) {
  const preparations = getToolCallPreparations(response);
  const content = modelParts(response);
  if (preparations.length === 0 && !content) return undefined;
  const parts = content ? content.parts : [];
  const calls = [];
  for (const part of parts) {
    if (isObject(part) && isObject(part.functionCall)) calls.push(rawCallId(part.functionCall));
  }
  return { preparations, content, parts, calls };
}

/**
 * Puts the final ids `out` (`{preparations, calls}`, a `null` call dropping
 * its part) into the response `idsOfChunk` read.
 */
function rewriteIds(response, { preparations, content, parts, calls: rawIds }, out) {
  if (preparations.length > 0) {
    setToolCallPreparations(
      response,
      preparations.map((p, i) => ({ ...p, callId: out.preparations[i] })),
    );
  }
  if (!content) return;
  const normalized = [];
  let k = 0;
  for (const part of parts) {
    if (!(isObject(part) && isObject(part.functionCall))) {
      normalized.push(part);
      continue;
    }
    const id = out.calls[k];
    const raw = rawIds[k];
    k += 1;
    if (id === null) continue; // a same-attempt duplicate
    const functionCall = { ...part.functionCall, id };
    if (raw !== null) Object.defineProperty(functionCall, PROVIDER_TOOL_CALL_ID, { value: raw, enumerable: false });
    normalized.push({ ...part, functionCall });
  }
  content.parts = normalized;
  syncFunctionCallsField(response, normalized);
}

/** The provider's raw id of a normalised `functionCall`, or `undefined`. */
function getProviderToolCallId(functionCall) {
  return isObject(functionCall) ? functionCall[PROVIDER_TOOL_CALL_ID] : undefined;
}

module.exports = { ToolCallIds, getProviderToolCallId, idsOfChunk, rewriteIds, nativeIdsOf };
