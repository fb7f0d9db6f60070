'use strict';
// What a converter, a generator or a body conversion is given, checked once
// at its entry: the options (profile, limits, host, response parsing, flags),
// the OpenAI pipeline's AbortSignal, the Anthropic empty-stream fallback, and
// the source iterable. Anything else is INVALID_ARGUMENT before native is
// called.

const { invalidArgument, unreadable } = require('../responses.js');
const { readHost } = require('../host.js');
const { PROVIDER_PROFILES } = require('../generated/wire-constants.js');

/**
 * The limits the Qwen preload gives its converters: none, as stock Qwen has
 * none. What stock cannot hold fails in V8 before either side's memory runs
 * out (RELIABILITY.md, Known limits); JSON repair has no depth limit by
 * default.
 */
const NO_LIMITS = Object.freeze({ maxCallBytes: Infinity, maxBufferedBytes: Infinity });

/**
 * `options.profile`: the Qwen Code release whose behaviour a converter
 * follows (see README, "Profiles"), one of those its provider's row lists
 * (`provider`: the class's `kProvider`; lib/generated/wire-constants.js
 * `PROVIDER_PROFILES`, from core/src/convert/provider.rs). Absent or null:
 * the row's first, its default.
 */
function readProfile(profile, provider, fn) {
  const profiles = Object.hasOwn(PROVIDER_PROFILES, provider) ? PROVIDER_PROFILES[provider] : undefined;
  if (profiles === undefined) throw new TypeError(`${fn}: no native provider is named ${String(provider)}`);
  if (profile === undefined || profile === null) return profiles[0];
  if (!profiles.includes(profile)) throw invalidArgument(`${fn}: options.profile must be ${oneOf(profiles)}`);
  return profile;
}

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`. */
function oneOf(names) {
  const quoted = names.map((name) => `'${name}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
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

/**
 * The options of a converter, a generator or a body conversion of
 * `provider` (its class's `kProvider`, the name of its native row).
 */
function readOptions(options, provider, fn) {
  try {
    return readOptionsOf(options, provider, fn);
  } catch (err) {
    throw unreadable(err, fn);
  }
}

function readOptionsOf(options, provider, fn) {
  if (options === undefined || options === null)
    return {
      limits: undefined,
      profile: readProfile(undefined, provider, fn),
      host: undefined,
      responseParsing: undefined,
      throwOnErrorFinish: false,
      dropEmptyResponses: false,
    };
  if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
  const { model, limits } = options;
  const profile = readProfile(options.profile, provider, fn);
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
  RESPONSE_PARSING,
  readOptions,
  readProfile,
  readOptionsOf,
  readFlag,
  readSignal,
  isAborted,
  readEmptyFallback,
  checkIterable,
  unmappedErrors,
};
