// What goes wrong in the SSE body: malformed frames, in-band errors (Anthropic's
// `event: error`, an OpenAI `{error: …}` chunk), proxy error pages and
// non-JSON error data, unknown events and stray lines.

// Envoy's reply when it cannot reach the upstream: what a proxy puts where a
// provider's error would be.
export const ENVOY = 'upstream connect error or disconnect/reset before headers. reset reason: connection termination';
const HTML =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

export function malformedFrame(c, provider) {
  const raw = c.pick([
    '{"type":',
    'not json',
    "{'a': 1}",
    '{"a":1}}',
    'NaN',
    '{"choices":[{"delta":{"content":"x"}}]',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\x"}}',
    '',
    ' ',
  ]);
  return {
    event: provider === 'anthropic' ? c.pick(['content_block_delta', 'message_delta', 'message_start']) : null,
    raw,
  };
}

function anthropicError(c) {
  const error = {
    type: c.pick(['overloaded_error', 'rate_limit_error', 'api_error', 'invalid_request_error', 'weird_error']),
    message: c.pick(['Overloaded', 'Rate limited', 'Internal server error', '']),
  };
  const body = { type: 'error', error, ...(c.chance(0.3) ? { request_id: `req_${c.int(1e6)}` } : {}) };
  return c.weighted([
    [6, { event: 'error', data: body }],
    [2, { event: 'error', raw: ENVOY }],
    [1, { event: 'error', raw: HTML }],
    [1, { event: 'error' }],
    [1, { event: 'error', raw: '' }],
    [1, { event: 'error', lines: JSON.stringify(body, null, 1).split('\n') }],
    [1, { event: 'error', lines: ['', JSON.stringify(body)] }],
    [1, { event: 'error', data: { type: 'error', error: c.pick([null, 'Overloaded', 529, []]) } }],
  ]);
}

function openaiError(c) {
  const error = c.weighted([
    [
      6,
      {
        message: c.pick(['Rate limit reached', 'Internal error', '']),
        type: c.pick(['rate_limit_exceeded', 'server_error', 'invalid_request_error']),
        code: c.pick([429, 500, '429', 'rate_limit_exceeded', null, 1302]),
        ...(c.chance(0.2) ? { status: c.pick([429, 503, 400]) } : {}),
      },
    ],
    [1, 'Rate limit reached'],
    [1, 503],
    [1, ['a']],
    [1, true],
  ]);
  return c.weighted([
    [6, { event: null, data: { error } }],
    [1, { event: 'error', data: { error } }],
    [1, { event: null, data: { error, choices: [] } }],
    [2, { event: null, raw: ENVOY }],
    [1, { event: null, lines: JSON.stringify({ error }, null, 1).split('\n') }],
  ]);
}

export const inBandError = (c, provider) => (provider === 'anthropic' ? anthropicError(c) : openaiError(c));

/** A frame the SDKs skip or treat specially: unknown events, data-only Anthropic frames, thread.* events. */
export function strayFrame(c, provider) {
  if (provider === 'anthropic')
    return c.pick([
      { event: 'unknown_event', data: { type: 'unknown_event' } },
      { data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'data-only' } } },
      { event: 'completion', data: { type: 'completion', completion: 'x' } },
      { event: 'ping', raw: 'not json' },
      { lines: [] },
    ]);
  return c.pick([
    { event: 'thread.run.created', data: { id: 'run_1' } },
    { event: 'message', data: { id: 'x', object: 'chat.completion.chunk', choices: [] } },
    { raw: '[DONE]' },
    { event: 'ping', data: {} },
  ]);
}

/** A whole body a proxy sends instead of the stream: `{status, contentType, frames}`. */
export function proxyPage(c) {
  return c.pick([
    { status: 200, contentType: 'text/html', frames: [HTML] },
    { status: 200, contentType: 'text/plain', frames: [ENVOY] },
    { status: 503, contentType: 'text/plain', frames: [ENVOY] },
    { status: 502, contentType: 'text/html', frames: [HTML] },
    { status: 200, contentType: 'text/event-stream', frames: [`data: ${ENVOY}\n\n`] },
  ]);
}
