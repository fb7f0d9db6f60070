// ESM entry: the same objects as `require('toolcall-stream')` (one
// implementation, CommonJS), so classes, WeakMap-held preparations and
// `instanceof` checks are shared between `import` and `require` callers.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cjs = require('./index.js');

export const {
  getToolCallPreparations,
  setToolCallPreparations,
  getToolCallProgress,
  getUsageProvenance,
  isReasoningPart,
  AnthropicConverter,
  OpenAIConverter,
  OpenAIResponsesConverter,
  convertAnthropicStream,
  convertOpenAIStream,
  convertAnthropicResponse,
  convertOpenAIResponse,
  ToolCallStreamError,
  toResponse,
  ToolCallCards,
  PreparationTracker,
  ToolCallIds,
  consumeModelStream,
  getProviderToolCallId,
  liveHandles,
} = cjs;

export default cjs;
