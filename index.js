'use strict';
// The public API: a small hand-written layer over the generated native
// binding (binding.js). See README.md.
const preparations = require('./lib/preparations.js');
// sanitizationOf, closingTagPendingOf and RESPONSE_PARSING are internal (the Qwen preload's); everything else is public.
const { sanitizationOf, closingTagPendingOf, RESPONSE_PARSING, ...converters } = require('./lib/converters.js');
const acp = require('./lib/acp.js');
const { liveHandles } = require('./lib/native.js');

module.exports = {
  ...preparations,
  ...converters,
  ...acp,
  liveHandles,
};
