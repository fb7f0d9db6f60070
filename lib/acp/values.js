'use strict';
// Argument checks and JSON copies shared by the ACP classes: every bad
// argument is a ToolCallStreamError (INVALID_ARGUMENT).

const { invalidArgument } = require('../responses.js');

const invalid = invalidArgument;

function isObject(value) {
  return value !== null && typeof value === 'object';
}

function isPlainObjectLike(value) {
  return isObject(value) && !Array.isArray(value);
}

function checkString(value, what) {
  if (typeof value !== 'string') throw invalid(`${what} must be a string`);
}

function checkCallId(value, what) {
  if (typeof value !== 'string' || value === '') throw invalid(`${what}: callId must be a non-empty string`);
}

function toJson(value, what) {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    const err = invalid(`${what} is not JSON-serialisable: ${cause && cause.message}`);
    err.cause = cause;
    throw err;
  }
}

module.exports = { invalid, isObject, isPlainObjectLike, checkString, checkCallId, toJson };
