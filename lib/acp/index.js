'use strict';
// ACP tool cards (docs/api.md): the classes and the stream loop, each
// public method guarded so that whatever it throws reaches the caller as a
// ToolCallStreamError. One file per job, mirroring core/src/acp/.

const { unreadable } = require('../responses.js');
const { ToolCallCards } = require('./cards.js');
const { PreparationTracker } = require('./tracker.js');
const { ToolCallIds, getProviderToolCallId } = require('./ids.js');
const { consumeModelStream } = require('./stream.js');
const { guardClass } = require('./guard.js');

module.exports = {
  ToolCallCards: guardClass(ToolCallCards),
  PreparationTracker: guardClass(PreparationTracker),
  ToolCallIds: guardClass(ToolCallIds),
  consumeModelStream,
  getProviderToolCallId(functionCall) {
    try {
      return getProviderToolCallId(functionCall);
    } catch (err) {
      throw unreadable(err, 'getProviderToolCallId');
    }
  },
};
