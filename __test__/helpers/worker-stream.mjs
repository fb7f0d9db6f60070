// A deterministic Anthropic write_file stream for the worker tests, cut into
// 512-byte reads (a read ends mid-event, mid-escape, mid-character).
const enc = new TextEncoder();

function argumentsText(bytes) {
  let content = '';
  for (let i = 0; content.length < bytes; i++) content += `const v${i} = "x\\ty${i}"; // é ✓\n`;
  return JSON.stringify({ file_path: '/tmp/a.ts', content: content.slice(0, bytes) });
}

/** The arguments the stream carries, as `JSON.stringify` of the parsed object. */
export function expectedArguments(bytes) {
  return JSON.stringify(JSON.parse(argumentsText(bytes)));
}

export function anthropicWriteFile(bytes) {
  const args = argumentsText(bytes);
  const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let body = sse('message_start', {
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1 } },
  });
  body += sse('content_block_start', {
    index: 0,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
  });
  for (let i = 0; i < args.length; i += 37) {
    body += sse('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: args.slice(i, i + 37) },
    });
  }
  body += sse('content_block_stop', { index: 0 });
  body += sse('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } });
  body += sse('message_stop', {});
  const bytesOut = enc.encode(body);
  const reads = [];
  for (let i = 0; i < bytesOut.length; i += 512) reads.push(bytesOut.slice(i, i + 512));
  return { reads };
}
