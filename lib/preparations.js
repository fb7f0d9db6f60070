'use strict';
// Tool-call preparation metadata, attached out of band (docs/behaviour.md §5.1): a
// module-level WeakMap keyed by the response object, so it is never an own or
// enumerable property, never serialised, never a Part, and never inherited by
// a copy of the response.
const preparationsByResponse = new WeakMap();
const EMPTY = Object.freeze([]);

const { invalidArgument, unreadable } = require('./responses.js');

function assertObject(response, fn) {
  if (response === null || (typeof response !== 'object' && typeof response !== 'function')) {
    throw invalidArgument(`${fn}: response must be an object`);
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
  let copy;
  try {
    if (!Array.isArray(preparations)) {
      throw invalidArgument('setToolCallPreparations: preparations must be an array');
    }
    copy = preparations.map((p) => Object.freeze({ callId: String(p.callId), toolName: String(p.toolName) }));
  } catch (err) {
    throw unreadable(err, 'setToolCallPreparations');
  }
  if (copy.length === 0) preparationsByResponse.delete(response);
  else preparationsByResponse.set(response, Object.freeze(copy));
}

module.exports = { getToolCallPreparations, setToolCallPreparations };
