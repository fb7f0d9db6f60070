'use strict';
// Reading a response's model parts and calls, whatever made the response
// (a GenerateContentResponse, a normalised response, a plain object).

const { isObject } = require('./values.js');

function modelParts(response) {
  const candidates = response.candidates;
  const content = Array.isArray(candidates) && isObject(candidates[0]) ? candidates[0].content : undefined;
  return isObject(content) && Array.isArray(content.parts) ? content : undefined;
}

function functionCallsOf(response) {
  // A GenerateContentResponse has the SDK getter; a normalised response has
  // an own property; a plain object has neither.
  if ('functionCalls' in response) return response.functionCalls;
  const content = modelParts(response);
  if (!content) return undefined;
  const calls = content.parts.filter((p) => isObject(p) && isObject(p.functionCall)).map((p) => p.functionCall);
  return calls.length > 0 ? calls : undefined;
}

module.exports = { modelParts, functionCallsOf };
