// The CommonJS side: `require('toolcall-stream')` is typed by index.d.ts.
import toolcallStream = require('toolcall-stream');
import type { GenerateContentResponse } from 'toolcall-stream';

const converter = new toolcallStream.AnthropicConverter({ model: 'm' });
const chunks: GenerateContentResponse[] = converter.pushBytes('event: ping\ndata: {"type":"ping"}\n\n');
const preparations: readonly toolcallStream.ToolCallPreparation[] = toolcallStream.getToolCallPreparations(
  chunks[0] ?? {},
);
const error: toolcallStream.ToolCallStreamErrorCode = 'LIMIT_EXCEEDED';
void [converter.end(), preparations, error, toolcallStream.liveHandles()];

export {};
