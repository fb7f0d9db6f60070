'use strict';
// The embedding API: how a host application (Qwen Code, or any code with its
// own copy of @google/genai and its own error classes) plugs its classes into
// the converters, so what they return is indistinguishable from what the
// host's own TypeScript converters return:
//
//   host: {
//     GenerateContentResponse,      // responses are `new GenerateContentResponse()` of the host's copy
//     preparations: { set(response, preparations) },   // the host's own preparation store
//     usageProvenance: { set(usageMetadata, provenance) },  // the host's own usage-provenance store
//     createReasoningPart(text) { ... },  // an OpenAI reasoning thought part, with the host's own marker
//     createError(error) { ... },   // ToolCallStreamError → the error the host's retry logic expects
//     onEvent(event) { ... },       // every SDK event / chunk object, before it is converted (telemetry)
//     isRetryableUpstreamError(error) { ... },  // qwen-0.24 Anthropic: the host's classification of a failed source
//     jsToolCallIds: true,          // OpenAI tool-call ids of any type, kept and compared as the host's JS does
//   }
//
// Every field is optional. Without a host, responses are @google/genai's class
// when it is installed, preparations, usage provenance and reasoning marks
// live in this package's stores only (lib/preparations.js, lib/annotations.js),
// and errors are ToolCallStreamError.

const { ToolCallStreamError, invalidArgument } = require('./responses.js');

const isFunction = (v) => typeof v === 'function';

/**
 * Validates `options.host` once, at construction: the internal shape the
 * converters use (`Response` undefined = the default class), or undefined.
 */
function readHost(host, fn) {
  if (host === undefined || host === null) return undefined;
  if (typeof host !== 'object') throw invalidArgument(`${fn}: options.host must be an object`);
  const {
    GenerateContentResponse,
    preparations,
    usageProvenance,
    createReasoningPart,
    createError,
    onEvent,
    isRetryableUpstreamError,
    jsToolCallIds,
  } = host;
  if (GenerateContentResponse !== undefined && !isFunction(GenerateContentResponse))
    throw invalidArgument(`${fn}: options.host.GenerateContentResponse must be a class`);
  if (preparations !== undefined && (preparations === null || !isFunction(preparations.set)))
    throw invalidArgument(
      `${fn}: options.host.preparations must be an object with a set(response, preparations) method`,
    );
  if (usageProvenance !== undefined && (usageProvenance === null || !isFunction(usageProvenance.set)))
    throw invalidArgument(
      `${fn}: options.host.usageProvenance must be an object with a set(usageMetadata, provenance) method`,
    );
  if (createReasoningPart !== undefined && !isFunction(createReasoningPart))
    throw invalidArgument(`${fn}: options.host.createReasoningPart must be a function`);
  if (createError !== undefined && !isFunction(createError))
    throw invalidArgument(`${fn}: options.host.createError must be a function`);
  if (onEvent !== undefined && !isFunction(onEvent))
    throw invalidArgument(`${fn}: options.host.onEvent must be a function`);
  if (isRetryableUpstreamError !== undefined && !isFunction(isRetryableUpstreamError))
    throw invalidArgument(`${fn}: options.host.isRetryableUpstreamError must be a function`);
  if (jsToolCallIds !== undefined && typeof jsToolCallIds !== 'boolean')
    throw invalidArgument(`${fn}: options.host.jsToolCallIds must be a boolean`);
  return Object.freeze({
    Response: GenerateContentResponse,
    setPreparations: preparations ? (response, list) => preparations.set(response, list) : undefined,
    setUsageProvenance: usageProvenance ? (usage, provenance) => usageProvenance.set(usage, provenance) : undefined,
    createReasoningPart,
    createError,
    onEvent,
    isRetryableUpstreamError,
    jsToolCallIds: jsToolCallIds === true,
  });
}

/**
 * The error to throw for `err`: the host's, when it maps this package's
 * errors; `err` itself otherwise. Idempotent: an error that is not a
 * ToolCallStreamError (already the host's) is returned as it is.
 */
function hostError(host, err) {
  if (!host?.createError || !(err instanceof ToolCallStreamError)) return err;
  const mapped = host.createError(err);
  return mapped instanceof Error ? mapped : err;
}

module.exports = { readHost, hostError };
