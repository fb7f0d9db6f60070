'use strict';
// What crosses into a converter: an event or chunk as JSON text, raw body
// bytes or text (a lone high surrogate at a piece's end waits for the next),
// and the decoded batch handed back as the caller's own array.

const { native } = require('../native.js');
const { invalidArgument } = require('../responses.js');
const { decode, NOTHING } = require('../wire.js');

/**
 * JSON text of an event/chunk given as an object or as its JSON text. `null`
 * is the JSON value null, as its text: the converter rejects it where the
 * reference's own code fails on it (INVALID_EVENT with the reference's
 * TypeError as `hostError`).
 */
function eventText(value, fn) {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value !== 'object') {
    throw invalidArgument(`${fn}: expected an object or its JSON text, got ${typeof value}`);
  }
  try {
    return JSON.stringify(value);
  } catch (cause) {
    const err = invalidArgument(`${fn}: the value cannot be serialised as JSON: ${cause.message}`);
    err.cause = cause;
    throw err;
  }
}

/**
 * Raw input into a converter. Text split between the two UTF-16 units of a
 * character cannot cross as UTF-8: a trailing high surrogate waits in
 * `carry` for the next piece.
 */
function pushRaw(slot, data, carry, fn) {
  if (typeof data === 'string') {
    if (carry.text) {
      data = carry.text + data;
      carry.text = '';
    }
    const last = data.charCodeAt(data.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      carry.text = data.slice(-1);
      data = data.slice(0, -1);
    }
    return native.converterPushText(slot, data);
  }
  if (data instanceof Uint8Array) return native.converterPushBytes(slot, data);
  if (data instanceof ArrayBuffer) return native.converterPushBytes(slot, new Uint8Array(data));
  throw invalidArgument(`${fn}: expected a Uint8Array, Buffer or string`);
}

/** A decoded batch as the caller's own array (NOTHING is shared). */
const fresh = (out) => (out === NOTHING ? [] : out);

/** A lone high surrogate left at the end of the input. */
function flushCarry(state, carry, host) {
  if (carry.text) {
    const text = carry.text;
    carry.text = '';
    decode(state, native.converterPushText(state.slot, text), undefined, host);
  }
}

/** Raw response-body bytes, as a generator's source may yield them. */
const isBytes = (item) => item instanceof Uint8Array || item instanceof ArrayBuffer;

module.exports = { eventText, pushRaw, fresh, flushCarry, isBytes };
