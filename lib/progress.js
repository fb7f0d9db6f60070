'use strict';
// Argument progress out of band: which converter made a response that
// carries preparations, so that whoever shows those preparations' cards can
// ask that converter, when it wants, how far each open call's arguments have
// come (counts only, never content). Like the preparations
// (lib/preparations.js), it is kept in a module-level WeakMap keyed by the
// response: never a property, never serialised, never a Part. The converter
// is held weakly: a host that keeps its responses (a transcript) does not
// keep every stream's converter alive, and once a stream is over and its
// converter gone there is nothing left to count.

const sources = new WeakMap();

/** Records `converter` as the maker of `response` (a response with preparations). */
function noteProgressSource(response, converter) {
  sources.set(response, new WeakRef(converter));
}

/** The converter that made `response` while it lives, or undefined (not one of ours, or without preparations). */
function progressSourceOf(response) {
  return response !== null && typeof response === 'object' ? sources.get(response)?.deref() : undefined;
}

/**
 * How far the open calls of the stream that made `response` have come, read
 * now from its converter: `{ received, keepAlivesVisible, calls: [{callId,
 * toolName, argumentBytes, argumentLines}] }` (`received` grows with every
 * input the converter takes, pings and keep-alive reads included where
 * `keepAlivesVisible`: a converter fed SDK objects never sees them), or `null` for a
 * response no converter of this package made with preparations. A finished
 * converter has no open calls.
 */
function getToolCallProgress(response) {
  const source = progressSourceOf(response);
  return source ? source.argumentProgress() : null;
}

module.exports = { noteProgressSource, progressSourceOf, getToolCallProgress };
