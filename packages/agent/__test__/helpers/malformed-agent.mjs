// A stub ACP agent over stdio that answers one prompt with messages a
// lenient reader would accept in part: the proof that the Python client's
// strict check (__test__/python/acp_client.py) fails on what the SDK would
// silently salvage, skip or ignore, and passes what is valid. Run as a
// script by e2e-python-client.test.mjs; UPDATES and BAD_STOP_REASON say what
// each message is.
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The session/update payloads sent during the prompt, each with whether the strict check must refuse it. */
export const UPDATES = [
  { why: 'valid: a tool card', invalid: false, update: { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'T' } },
  {
    why: 'valid: the usage frame',
    invalid: false,
    update: {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: '' },
      _meta: { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, durationMs: 4 },
    },
  },
  {
    why: 'a status outside the enum (the SDK salvages it to null)',
    invalid: true,
    update: { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'bogus' },
  },
  {
    why: 'a malformed content item (the SDK skips it)',
    invalid: true,
    update: {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      content: [{ type: 'diff', path: '/x', newText: 7 }],
    },
  },
  {
    why: 'a text block without text (the SDK refuses it)',
    invalid: true,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text' } },
  },
  {
    why: 'a field the schema does not know (the SDK drops it)',
    invalid: true,
    update: { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', rawInputs: {} },
  },
];

/** The prompt's response: a stop reason outside the enum (invalid). */
export const BAD_STOP_REASON = 'done';

function serve() {
  const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    const { id, method, params } = JSON.parse(line);
    if (method === 'initialize') send({ id, result: { protocolVersion: 1 } });
    else if (method === 'session/new') send({ id, result: { sessionId: 'stub-session' } });
    else if (method === 'session/prompt') {
      for (const { update } of UPDATES)
        send({ method: 'session/update', params: { sessionId: params.sessionId, update } });
      send({ id, result: { stopReason: BAD_STOP_REASON } });
    } else if (id !== undefined) send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve();
