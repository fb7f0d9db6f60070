'use strict';
// The public API: a small hand-written layer over the generated native
// binding (lib/generated/binding.js). See README.md.
const preparations = require('./lib/preparations.js');
const { getUsageProvenance, isReasoningPart } = require('./lib/annotations.js');
const { getToolCallProgress } = require('./lib/progress.js');
const converters = require('./lib/converters/index.js');
const bodies = require('./lib/bodies.js');
const acp = require('./lib/acp/index.js');
const { liveHandles } = require('./lib/native.js');

module.exports = {
  ...preparations,
  getToolCallProgress,
  getUsageProvenance,
  isReasoningPart,
  ...converters,
  ...bodies,
  ...acp,
  liveHandles,
};
