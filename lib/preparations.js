'use strict';
// Tool-call preparation metadata, attached out of band (spec §5.1): a
// module-level WeakMap keyed by the response object, so it is never an own or
// enumerable property, never serialised, never a Part, and never inherited by
// a copy of the response.
const preparationsByResponse = new WeakMap();
const EMPTY = Object.freeze([]);

function assertObject(response, fn) {
  if (response === null || (typeof response !== 'object' && typeof response !== 'function')) {
    const err = new TypeError(`${fn}: response must be an object`);
    err.code = 'INVALID_ARGUMENT';
    throw err;
  }
}

/** @returns {readonly {callId: string, toolName: string}[]} */
function getToolCallPreparations(response) {
  if (response === null || typeof response !== 'object') return EMPTY;
  return preparationsByResponse.get(response) ?? EMPTY;
}

/** Overwrites (no merge); `[]` clears. */
function setToolCallPreparations(response, preparations) {
  assertObject(response, 'setToolCallPreparations');
  if (!Array.isArray(preparations)) {
    const err = new TypeError('setToolCallPreparations: preparations must be an array');
    err.code = 'INVALID_ARGUMENT';
    throw err;
  }
  if (preparations.length === 0) {
    preparationsByResponse.delete(response);
    return;
  }
  const copy = preparations.map((p) => Object.freeze({ callId: String(p.callId), toolName: String(p.toolName) }));
  preparationsByResponse.set(response, Object.freeze(copy));
}

module.exports = { getToolCallPreparations, setToolCallPreparations };
