'use strict';
// What a converter, a generator or a body conversion is given, checked once
// at its entry: the options (profile, limits, host, response parsing, flags),
// the OpenAI pipeline's AbortSignal, the Anthropic empty-stream fallback, and
// the source iterable. Anything else is INVALID_ARGUMENT before native is
// called.

const { invalidArgument, unreadable } = require('../responses.js');
const { readHost } = require('../host.js');

/**
 * The limits the Qwen preload gives its converters: none, as stock Qwen has
 * none. What stock cannot hold fails in V8 before either side's memory runs
 * out (RELIABILITY.md, Known limits); JSON repair has no depth limit by
 * default.
 */
const NO_LIMITS = Object.freeze({ maxCallBytes: Infinity, maxBufferedBytes: Infinity });

/** The Qwen Code release whose behaviour a converter follows (see README, "Profiles"). */
const PROFILES = ['qwen-0.21', 'qwen-0.24'];

function readProfile(profile, fn) {
  if (profile === undefined || profile === null) return PROFILES[0];
  if (!PROFILES.includes(profile)) {
    throw invalidArgument(`${fn}: options.profile must be 'qwen-0.21' or 'qwen-0.24'`);
  }
  return profile;
}

/**
 * `options.responseParsing`: Qwen Code's `responseParsingOptions` (what the
 * provider's `getResponseParsingOptions(model)` returns), read as Qwen's
 * converter reads them: `contentOnlyThinkingTagLeaks === true`, a truthy
 * `taggedThinkingTags` or `taggedThinkingTagsAfterReasoning`. Any other
 * option that is on is one this converter does not implement:
 * INVALID_ARGUMENT, rather than a silently different conversion. Options
 * that are off are ignored whatever their name.
 */
function readResponseParsing(parsing, fn) {
  if (parsing === undefined || parsing === null) return undefined;
  if (typeof parsing !== 'object') throw invalidArgument(`${fn}: options.responseParsing must be an object`);
  for (const key of Object.keys(parsing)) {
    if (RESPONSE_PARSING.includes(key) || !parsing[key]) continue;
    throw invalidArgument(`${fn}: options.responseParsing.${key} is not supported`);
  }
  return {
    contentOnlyThinkingTagLeaks: parsing.contentOnlyThinkingTagLeaks === true,
    taggedThinkingTags: Boolean(parsing.taggedThinkingTags),
    taggedThinkingTagsAfterReasoning: Boolean(parsing.taggedThinkingTagsAfterReasoning),
  };
}

/** The `responseParsingOptions` this converter implements. */
const RESPONSE_PARSING = ['contentOnlyThinkingTagLeaks', 'taggedThinkingTags', 'taggedThinkingTagsAfterReasoning'];

function readOptions(options, fn) {
  try {
    return readOptionsOf(options, fn);
  } catch (err) {
    throw unreadable(err, fn);
  }
}

function readOptionsOf(options, fn) {
  if (options === undefined || options === null)
    return {
      limits: undefined,
      profile: PROFILES[0],
      host: undefined,
      responseParsing: undefined,
      throwOnErrorFinish: false,
      dropEmptyResponses: false,
    };
  if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
  const { model, limits } = options;
  const profile = readProfile(options.profile, fn);
  const host = readHost(options.host, fn);
  const responseParsing = readResponseParsing(options.responseParsing, fn);
  const throwOnErrorFinish = readFlag(options, 'throwOnErrorFinish', fn);
  const dropEmptyResponses = readFlag(options, 'dropEmptyResponses', fn);
  // Deprecated and ignored: neither release names a configured model in
  // its responses. Still type-checked, so old callers keep failing loudly.
  if (model !== undefined && model !== null && typeof model !== 'string') {
    throw invalidArgument(`${fn}: options.model must be a string`);
  }
  let nativeLimits;
  if (limits !== undefined && limits !== null) {
    if (typeof limits !== 'object') throw invalidArgument(`${fn}: options.limits must be an object`);
    nativeLimits = {};
    for (const key of ['maxCallBytes', 'maxBufferedBytes', 'maxRepairDepth']) {
      const v = limits[key];
      if (v === undefined) continue;
      // `Infinity` is no limit.
      if (typeof v !== 'number' || !(v >= 1))
        throw invalidArgument(`${fn}: options.limits.${key} must be a number >= 1 (Infinity: no limit)`);
      nativeLimits[key] = v;
    }
  }
  return { limits: nativeLimits, profile, host, responseParsing, throwOnErrorFinish, dropEmptyResponses };
}

/**
 * The releases an OpenAI Responses converter follows: 0.23.3 (text parts
 * without message metadata) and 0.23.4 to 0.24.4 ('qwen-0.24', the
 * default). Qwen Code has no Responses generator before 0.23.3.
 */
const RESPONSES_PROFILES = ['qwen-0.23.3', 'qwen-0.24'];

/**
 * The options of an OpenAI Responses converter: those every converter
 * takes (limits, host), its own profile, `model` (a string: Qwen's
 * configured model) and `preparations` (a boolean).
 */
function readResponsesOptions(options, fn) {
  try {
    if (options === undefined || options === null) options = {};
    if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
    const { profile = RESPONSES_PROFILES[1], model, responseParsing } = options;
    if (!RESPONSES_PROFILES.includes(profile)) {
      throw invalidArgument(`${fn}: options.profile must be 'qwen-0.23.3' or 'qwen-0.24'`);
    }
    if (responseParsing !== undefined && responseParsing !== null) {
      throw invalidArgument(`${fn}: options.responseParsing does not apply to the Responses API`);
    }
    const { limits, host } = readOptionsOf({ limits: options.limits, host: options.host }, fn);
    if (model !== undefined && typeof model !== 'string')
      throw invalidArgument(`${fn}: options.model must be a string`);
    return { limits, profile, host, model, preparations: readFlag(options, 'preparations', fn) };
  } catch (err) {
    throw unreadable(err, fn);
  }
}

/** An optional boolean option (absent or null: false). */
function readFlag(options, name, fn) {
  const v = options[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidArgument(`${fn}: options.${name} must be a boolean`);
  return v;
}

/**
 * `options.signal` of `convertOpenAIStream`: the request's AbortSignal (any
 * object with an `aborted` flag), or undefined.
 */
function readSignal(options, fn) {
  let signal;
  try {
    signal = options?.signal;
  } catch (err) {
    throw unreadable(err, fn);
  }
  if (signal === undefined || signal === null) return undefined;
  if (typeof signal !== 'object' || !('aborted' in signal)) {
    throw invalidArgument(`${fn}: options.signal must be an AbortSignal`);
  }
  return signal;
}

/** Whether `signal` is aborted; a signal that cannot be read counts as not aborted. */
function isAborted(signal) {
  try {
    return signal?.aborted === true;
  } catch {
    return false;
  }
}

function readEmptyFallback(options) {
  let fallback;
  try {
    fallback = options?.emptyFallback;
  } catch (err) {
    throw unreadable(err, 'convertAnthropicStream');
  }
  if (fallback !== undefined && fallback !== null && typeof fallback !== 'function') {
    throw invalidArgument('convertAnthropicStream: options.emptyFallback must be a function');
  }
  return fallback ?? undefined;
}

function checkIterable(items, fn) {
  let ok;
  try {
    ok =
      items !== null &&
      typeof items === 'object' &&
      (typeof items[Symbol.asyncIterator] === 'function' || typeof items[Symbol.iterator] === 'function');
  } catch (err) {
    throw unreadable(err, fn);
  }
  if (!ok) throw invalidArgument(`${fn}: expected an (async) iterable`);
}

/**
 * The generators map errors to the host's themselves, after yielding what
 * was converted before the error: their converter keeps this package's.
 */
const unmappedErrors = (options, host) =>
  host?.createError ? { ...options, host: { ...options.host, createError: undefined } } : options;

module.exports = {
  NO_LIMITS,
  PROFILES,
  RESPONSE_PARSING,
  readOptions,
  readResponsesOptions,
  RESPONSES_PROFILES,
  readSignal,
  isAborted,
  readEmptyFallback,
  checkIterable,
  unmappedErrors,
};
