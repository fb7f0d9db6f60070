// The embedded loopback provider: a real HTTP server on 127.0.0.1 that speaks
// the Anthropic Messages API (POST /v1/messages), the OpenAI chat
// completions API (POST /v1/chat/completions) and the OpenAI Responses API
// (POST /v1/responses), streaming (and, for the
// Anthropic empty-stream fallback, non-streaming Messages), and replays the
// recorded scenarios (scenarios.mjs) with realistic pacing (sse-body.mjs).
//
// A request is matched to a scenario by its last user text, to a turn by the
// number of assistant messages after that text, and to an attempt by how many
// identical requests came before it (so a retry gets the next attempt); a
// scenario's `byModel` answers a given model (the fallback model) with its
// own turns.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { scenarios as defaultScenarios, prng } from './scenarios.mjs';
import { renderAnthropic, renderAnthropicMessage, renderOpenAI, renderOpenAIResponses } from './sse-body.mjs';

/** The last user message that is text (not a tool result), and the turn after it. */
function locate(messages, providerKind) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    let text;
    if (typeof m.content === 'string') text = m.content;
    else if (Array.isArray(m.content)) {
      const texts = m.content.filter((b) => b.type === 'text').map((b) => b.text);
      if (texts.length > 0) text = texts.join('\n');
      else if (providerKind === 'anthropic') continue; // tool_result turn
    }
    if (text === undefined) continue;
    const turn = messages.slice(i + 1).filter((x) => x.role === 'assistant').length;
    return { text, turn };
  }
  return { text: '', turn: 0 };
}

/**
 * A Responses request's `input` read as {@link locate} reads messages: the
 * last user message with text, and as its turn the number of tool results
 * (`function_call_output` items) after it (one call per turn).
 */
function locateResponses(input) {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item?.type !== 'message' || item.role !== 'user') continue;
    const content =
      typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : (item.content ?? []);
    const texts = content.filter((c) => c.type === 'input_text').map((c) => c.text);
    if (texts.length === 0) continue;
    const turn = input.slice(i + 1).filter((x) => x?.type === 'function_call_output').length;
    return { text: texts.join('\n'), turn };
  }
  return { text: '', turn: 0 };
}

const defaultFallback = ({ turn }) => ({
  blocks: [{ type: 'text', text: `No recording matches this prompt (turn ${turn}).` }],
  stop: 'end_turn',
});

/**
 * @param {{speed?: number, scenarioSpeed?: Record<string, number>, splitFrames?: boolean, scenarios?: object,
 *   fallback?: (request: {kind: string, text: string, turn: number, body: object}) => object}} options
 *   speed divides every delay (tests use ~20), scenarioSpeed overrides it per
 *   scenario; splitFrames writes some SSE frames
 *   in two TCP writes at an arbitrary byte (possibly inside a UTF-8 sequence);
 *   fallback answers a request that matches no scenario (a host's own side
 *   requests: titles, suggestions, memory) with an attempt.
 * @returns {Promise<{url: string, events: EventEmitter, requests: object[], close(): Promise<void>}>}
 *   events: 'request' (record) and 'frame' ({record, note, at}) for every paced write.
 */
export async function startProvider({
  speed: defaultSpeed = 1,
  scenarioSpeed = {},
  splitFrames = true,
  scenarios = defaultScenarios,
  fallback = defaultFallback,
} = {}) {
  const events = new EventEmitter();
  const requests = [];
  const attemptsByKey = new Map();
  const sockets = new Set();

  const server = http.createServer(async (req, res) => {
    const kind = req.url.endsWith('/messages')
      ? 'anthropic'
      : req.url.endsWith('/chat/completions')
        ? 'openai'
        : req.url.endsWith('/responses')
          ? 'openai-responses'
          : null;
    if (req.method !== 'POST' || !kind) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    let body;
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end('{"error":{"message":"invalid JSON body"}}');
      return;
    }
    const messages = (kind === 'openai-responses' ? body.input : body.messages) ?? [];
    const { text, turn } = kind === 'openai-responses' ? locateResponses(messages) : locate(messages, kind);
    const key = createHash('sha256')
      .update(JSON.stringify([kind, body.model, body.system ?? body.instructions, messages]))
      .digest('hex');
    const attempt = attemptsByKey.get(key) ?? 0;
    attemptsByKey.set(key, attempt + 1);
    const name = Object.keys(scenarios).find((n) => text.includes(scenarios[n].prompt));
    // A scenario may answer differently for a given model (the fallback model).
    const attempts = name ? (scenarios[name].byModel?.[body.model] ?? scenarios[name].turns)[turn] : undefined;
    const spec = attempts ? attempts[Math.min(attempt, attempts.length - 1)] : fallback({ kind, text, turn, body });
    const speed = scenarioSpeed[name] ?? defaultSpeed;
    const record = {
      kind,
      scenario: name ?? null,
      turn,
      attempt,
      body,
      headers: req.headers,
      status: 200,
      aborted: false,
      completed: false,
    };
    requests.push(record);
    events.emit('request', record);

    if (spec.http) {
      record.status = spec.http.status;
      const error = spec.http.error;
      const payload =
        kind === 'anthropic'
          ? { type: 'error', error }
          : { error: { message: error.message, type: error.type, code: spec.http.status } };
      res
        .writeHead(spec.http.status, {
          'content-type': 'application/json',
          'retry-after-ms': String(Math.round(200 / speed)),
        })
        .end(JSON.stringify(payload));
      record.completed = true;
      return;
    }

    const model = body.model ?? 'replay-model';
    const renderKey = `${name}/${turn}/${attempt}`;
    if (kind === 'anthropic' && body.stream !== true) {
      // A non-streaming Messages request (the Anthropic empty-stream
      // fallback): the attempt's answer as one JSON body.
      record.streaming = false;
      res
        .writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${key.slice(0, 16)}` })
        .end(JSON.stringify(renderAnthropicMessage(spec, { model, key: renderKey })));
      record.completed = true;
      return;
    }
    const render = { anthropic: renderAnthropic, openai: renderOpenAI, 'openai-responses': renderOpenAIResponses }[
      kind
    ];
    const frames = render(spec, { model, key: renderKey });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...(kind === 'anthropic' ? { 'request-id': `req_${key.slice(0, 16)}` } : { 'x-request-id': key.slice(0, 16) }),
    });
    res.flushHeaders();
    res.on('close', () => {
      if (!record.completed) record.aborted = true;
    });

    const rand = prng(attempt + turn * 31 + 7);
    const start = performance.now();
    let due = 0;
    for (const frame of frames) {
      due += frame.delayMs / speed;
      const wait = start + due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (record.aborted || res.destroyed) return;
      if (frame.cut) {
        res.write(frame.text);
        res.destroy();
        return;
      }
      if (frame.stall) {
        record.stalled = true;
        // Keep-alives only, until the client gives up: no data, so no progress.
        const keepAlive = kind === 'anthropic' ? 'event: ping\ndata: {"type": "ping"}\n\n' : ': keep-alive\n\n';
        while (!record.aborted && !res.destroyed) {
          res.write(keepAlive);
          await new Promise((r) => setTimeout(r, 20));
        }
        return;
      }
      if (frame.pause) {
        // The model stops writing for a while: keep-alives every second, or
        // not a byte; then the body goes on where it was.
        if (frame.note) events.emit('frame', { record, note: frame.note, at: performance.now() });
        const keepAlive = kind === 'anthropic' ? 'event: ping\ndata: {"type": "ping"}\n\n' : ': keep-alive\n\n';
        const until = performance.now() + frame.pause.ms / speed;
        while (performance.now() < until && !record.aborted && !res.destroyed) {
          await new Promise((r) => setTimeout(r, Math.min(1000 / speed, until - performance.now())));
          if (frame.pause.keepAlive && performance.now() < until) res.write(keepAlive);
        }
        due += frame.pause.ms / speed;
        continue;
      }
      if (frame.unterminated) {
        // Whitespace without a newline, a megabyte at a time, until the client gives up (or 512 MiB).
        res.write(frame.text);
        const spaces = Buffer.alloc(1 << 20, 0x20);
        for (let i = 0; i < 512 && !record.aborted && !res.destroyed; i++) {
          if (!res.write(spaces))
            await new Promise((resolve) => {
              const done = () => {
                res.off('drain', done).off('close', done);
                resolve();
              };
              res.once('drain', done).once('close', done);
            });
        }
        res.destroy();
        return;
      }
      const bytes = Buffer.from(frame.text, 'utf8');
      if (splitFrames && bytes.length > 8 && rand() < 0.15) {
        const at = 1 + Math.floor(rand() * (bytes.length - 1));
        res.write(bytes.subarray(0, at));
        res.write(bytes.subarray(at));
      } else {
        res.write(bytes);
      }
      if (frame.note) events.emit('frame', { record, note: frame.note, at: performance.now() });
    }
    record.completed = true;
    res.end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    events,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
