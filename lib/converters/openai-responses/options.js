'use strict';
// The options of an OpenAI Responses converter, checked at its entry: those
// every converter takes (lib/converters/options.js) and the Responses
// API's own.

const { invalidArgument, unreadable } = require('../../responses.js');
const { readProfile, readOptionsOf, readFlag } = require('../options.js');

/**
 * The options of an OpenAI Responses converter (`provider`: its class's
 * `kProvider`): those every converter takes (profile, limits, host),
 * `model` (a string: Qwen's configured model) and `preparations` (a
 * boolean).
 */
function readResponsesOptions(options, provider, fn) {
  try {
    if (options === undefined || options === null) options = {};
    if (typeof options !== 'object') throw invalidArgument(`${fn}: options must be an object`);
    const { model, responseParsing } = options;
    const profile = readProfile(options.profile, provider, fn);
    if (responseParsing !== undefined && responseParsing !== null) {
      throw invalidArgument(`${fn}: options.responseParsing does not apply to the Responses API`);
    }
    const { limits, host } = readOptionsOf({ limits: options.limits, host: options.host }, provider, fn);
    if (model !== undefined && typeof model !== 'string')
      throw invalidArgument(`${fn}: options.model must be a string`);
    return { limits, profile, host, model, preparations: readFlag(options, 'preparations', fn) };
  } catch (err) {
    throw unreadable(err, fn);
  }
}

module.exports = { readResponsesOptions };
