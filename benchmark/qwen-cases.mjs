// The streams `npm run bench:qwen` sends through Qwen Code's own content
// generators, as whole SSE bodies.
import * as streams from './streams.mjs';

/**
 * Anthropic `write_file` arguments that are not valid JSON (an unescaped quote
 * inside the content), in `fragments` input_json_delta events of ~50 chars:
 * Qwen 0.21.2 repairs them at the block's stop (jsonrepair).
 */
export function anthropicMalformed(fragments) {
  const sse = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const content = streams.fileContent(fragments * 50).replace(/\\/g, '/');
  const args = `{"file_path": "/work/notes.md", "content": "he said "hi" then ${content.replace(/"/g, "'")}"}`;
  let body = sse({
    type: 'message_start',
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-bench',
      content: [],
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  body += sse({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 'toolu_bench', name: 'write_file', input: {} },
  });
  const step = Math.ceil(args.length / fragments);
  for (let i = 0; i < args.length; i += step)
    body += sse({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: args.slice(i, i + step) },
    });
  body += sse({ type: 'content_block_stop', index: 0 });
  body += sse({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 100 } });
  body += sse({ type: 'message_stop' });
  return body;
}

/** The body of a generated stream (its 16 KiB reads). */
const bodyOf = (stream) => Buffer.concat(stream.reads);

/** `{name, provider, kind, body()}` for every case; `smoke` shrinks the sizes. */
export function qwenCases(smoke) {
  const kb = smoke ? 8 : 100;
  const mb = smoke ? 32 : 1024;
  const text = smoke ? 200 : 5000;
  const malformed = smoke ? [200, 600] : [2000, 6000, 20000];
  return [
    {
      name: `anthropic write_file ${kb} KB`,
      provider: 'anthropic',
      kind: 'tool',
      body: () => bodyOf(streams.anthropicWriteFile(kb * 1024)),
    },
    {
      name: `anthropic write_file ${mb >= 1024 ? '1 MB' : `${mb} KB`}`,
      provider: 'anthropic',
      kind: 'tool',
      body: () => bodyOf(streams.anthropicWriteFile(mb * 1024)),
    },
    {
      name: `openai write_file ${kb} KB`,
      provider: 'openai',
      kind: 'tool',
      body: () => bodyOf(streams.openaiWriteFile(kb * 1024)),
    },
    {
      name: `openai write_file ${mb >= 1024 ? '1 MB' : `${mb} KB`}`,
      provider: 'openai',
      kind: 'tool',
      body: () => bodyOf(streams.openaiWriteFile(mb * 1024)),
    },
    {
      name: `anthropic text ${text} deltas`,
      provider: 'anthropic',
      kind: 'text',
      body: () => bodyOf(streams.anthropicText(text)),
    },
    {
      name: `openai text ${text} deltas`,
      provider: 'openai',
      kind: 'text',
      body: () => bodyOf(streams.openaiText(text)),
    },
    // What both sides pay alike per request (Qwen building it, the HTTP round
    // trip, reading the body): a stream with one thought and one text delta.
    {
      name: 'anthropic text 1 delta (fixed cost)',
      provider: 'anthropic',
      kind: 'fixed',
      body: () => bodyOf(streams.anthropicText(1)),
    },
    {
      name: 'openai text 1 delta (fixed cost)',
      provider: 'openai',
      kind: 'fixed',
      body: () => bodyOf(streams.openaiText(1)),
    },
    ...malformed.map((n) => ({
      name: `anthropic malformed args ${n} fragments`,
      provider: 'anthropic',
      kind: 'malformed',
      fragments: n,
      body: () => anthropicMalformed(n),
    })),
  ];
}
