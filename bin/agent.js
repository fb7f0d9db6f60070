#!/usr/bin/env node
'use strict';
// The reference ACP agent: ACP over stdio (@agentclientprotocol/sdk 2.x app
// API), a real Anthropic or OpenAI-compatible client, and this package's
// native converters on the raw response body. Tool cards appear the moment a
// call's id and name are known (spec §5.5) and always end; retries and
// cancels discard the cards of the abandoned attempt (spec §5.5, §6.5, §6.6).
//
//   toolcall-stream-agent --provider anthropic|openai [--base-url URL] [--model NAME] [--retry-delay-ms N]
//
// The key comes from ANTHROPIC_API_KEY / OPENAI_API_KEY. Diagnostics go to
// stderr; stdout carries only ACP messages.
const fs = require('node:fs/promises');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { Readable, Writable } = require('node:stream');
const { parseArgs } = require('node:util');
const { setTimeout: sleep } = require('node:timers/promises');

const { AnthropicConverter, OpenAIConverter, ToolCallCards, ToolCallIds, consumeModelStream } = require('../index.js');
const { ToolError, resolveInside, WRITE_FLAGS } = require('../agent/workspace.js');
const { version } = require('../package.json');

const MAX_MODEL_REQUESTS_PER_PROMPT = 32;
const MAX_RETRIES = 4;
const MAX_READ_BYTES = 256 * 1024;
const TODO_WRITE = 'todo_write';

const log = (...args) => process.stderr.write(`[toolcall-stream-agent] ${args.join(' ')}\n`);

// ---------------------------------------------------------------------------
// Tools: a small real set, confined to the session's cwd.

const TOOL_SCHEMAS = {
  read_file: {
    description: 'Read a UTF-8 text file inside the working directory.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the working directory' } },
      required: ['path'],
    },
  },
  write_file: {
    description: 'Create or overwrite a UTF-8 text file inside the working directory.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  list_directory: {
    description: 'List the entries of a directory inside the working directory.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  [TODO_WRITE]: {
    description: 'Replace the session todo list (shown to the user as the plan).',
    parameters: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              content: { type: 'string' },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            },
            required: ['content', 'status'],
          },
        },
      },
      required: ['todos'],
    },
  },
};

/** Display names and ACP kinds, as Qwen Code's built-in tools have them (spec §6.2). */
const TOOL_DISPLAY = {
  read_file: { title: 'ReadFile', kind: 'read' },
  write_file: { title: 'WriteFile', kind: 'edit' },
  list_directory: { title: 'ListFiles', kind: 'search' },
};

const text = (t) => ({ type: 'content', content: { type: 'text', text: t } });

/** Each tool returns {output (for the model), content (ACP tool content), rawOutput?}. */
const TOOLS = {
  async read_file(cwd, args) {
    const abs = await resolveInside(cwd, args.path);
    const stat = await fs.stat(abs).catch(() => {
      throw new ToolError(`File not found: ${args.path}`);
    });
    if (!stat.isFile()) throw new ToolError(`Not a file: ${args.path}`);
    if (stat.size > MAX_READ_BYTES)
      throw new ToolError(`File too large to read (${stat.size} bytes, limit ${MAX_READ_BYTES}).`);
    const body = await fs.readFile(abs, 'utf8');
    return { output: body, content: [text(body)] };
  },
  async write_file(cwd, args) {
    const abs = await resolveInside(cwd, args.path);
    if (typeof args.content !== 'string') throw new ToolError('Missing required parameter "content".');
    const existing = await fs.lstat(abs).catch(() => null);
    if (existing && !existing.isFile()) throw new ToolError(`Not a regular file: ${args.path}`);
    const oldText = existing ? await fs.readFile(abs, 'utf8') : null;
    await fs.mkdir(path.dirname(abs), { recursive: true });
    const file = await fs.open(abs, WRITE_FLAGS, 0o666);
    try {
      await file.writeFile(args.content, 'utf8');
    } finally {
      await file.close();
    }
    const bytes = Buffer.byteLength(args.content);
    return {
      output: `Wrote ${bytes} bytes to ${args.path}.`,
      content: [{ type: 'diff', path: abs, oldText, newText: args.content }],
      rawOutput: { path: abs, bytes },
    };
  },
  async list_directory(cwd, args) {
    const abs = await resolveInside(cwd, args.path ?? '.');
    const entries = await fs.readdir(abs, { withFileTypes: true }).catch(() => {
      throw new ToolError(`Directory not found: ${args.path}`);
    });
    const listing = entries
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort()
      .join('\n');
    return { output: listing || '(empty directory)', content: [text(listing || '(empty directory)')] };
  },
};

function locationsFor(cwd, args) {
  return typeof args?.path === 'string' ? [{ path: path.resolve(cwd, args.path) }] : [];
}

// ---------------------------------------------------------------------------
// Providers: the request, and the history in the provider's own format.

function systemPrompt(cwd) {
  return `You are a coding agent. The working directory is ${cwd}; tool paths are relative to it. Use todo_write to keep a plan.`;
}

class AnthropicProvider {
  constructor({ baseURL, model }) {
    const { Anthropic } = require('@anthropic-ai/sdk');
    // The SDK's own retries are off: a retry must reach consumeModelStream as
    // a RETRY event so the abandoned attempt's cards are discarded.
    this.client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL, maxRetries: 0 });
    this.model = model ?? 'claude-sonnet-4-5';
  }
  converter() {
    return new AnthropicConverter({ model: this.model });
  }
  request(session, signal) {
    return this.client.messages
      .create(
        {
          model: this.model,
          max_tokens: 16384,
          system: systemPrompt(session.cwd),
          messages: session.messages,
          tools: Object.entries(TOOL_SCHEMAS).map(([name, t]) => ({
            name,
            description: t.description,
            input_schema: t.parameters,
          })),
          stream: true,
        },
        { signal },
      )
      .asResponse();
  }
  addUserText(session, t) {
    session.messages.push({ role: 'user', content: [{ type: 'text', text: t }] });
  }
  addAssistant(session, t, calls) {
    const content = [];
    if (t) content.push({ type: 'text', text: t });
    for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args ?? {} });
    if (content.length > 0) session.messages.push({ role: 'assistant', content });
  }
  addToolResults(session, results) {
    session.messages.push({
      role: 'user',
      content: results.map((r) => ({
        type: 'tool_result',
        tool_use_id: r.callId,
        content: r.output,
        ...(r.isError ? { is_error: true } : {}),
      })),
    });
  }
  historyIds(session) {
    const ids = [];
    for (const m of session.messages) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') ids.push(b.id);
        else if (b.type === 'tool_result') ids.push(b.tool_use_id);
      }
    }
    return ids;
  }
}

class OpenAIProvider {
  constructor({ baseURL, model }) {
    const { OpenAI } = require('openai');
    this.client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL, maxRetries: 0 });
    this.model = model ?? 'gpt-4.1';
  }
  converter() {
    return new OpenAIConverter({ model: this.model });
  }
  request(session, signal) {
    return this.client.chat.completions
      .create(
        {
          model: this.model,
          messages: [{ role: 'system', content: systemPrompt(session.cwd) }, ...session.messages],
          tools: Object.entries(TOOL_SCHEMAS).map(([name, t]) => ({ type: 'function', function: { name, ...t } })),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      )
      .asResponse();
  }
  addUserText(session, t) {
    session.messages.push({ role: 'user', content: t });
  }
  addAssistant(session, t, calls) {
    if (!t && calls.length === 0) return;
    session.messages.push({
      role: 'assistant',
      content: t || null,
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
            })),
          }
        : {}),
    });
  }
  addToolResults(session, results) {
    for (const r of results) session.messages.push({ role: 'tool', tool_call_id: r.callId, content: r.output });
  }
  historyIds(session) {
    const ids = [];
    for (const m of session.messages) {
      for (const c of m.tool_calls ?? []) ids.push(c.id);
      if (m.role === 'tool') ids.push(m.tool_call_id);
    }
    return ids;
  }
}

// ---------------------------------------------------------------------------
// Retry policy (spec §4.2: rate limits and overload are retried; each retry
// is a RETRY event for the consumer).

const RETRYABLE_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error']);
const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

function isRetryable(err, emittedOutput) {
  if (err?.code === 'STREAM_ERROR') {
    const pe = err.providerError ?? {};
    return RETRYABLE_TYPES.has(pe.type) || RETRYABLE_STATUS.has(Number(pe.code)) || pe.code === 'rate_limit_exceeded';
  }
  if (typeof err?.status === 'number') return RETRYABLE_STATUS.has(err.status);
  // A dropped connection is retried only before any visible output (spec §4.2).
  return (
    !emittedOutput &&
    (err?.name === 'APIConnectionError' ||
      ['ECONNRESET', 'ECONNREFUSED', 'EPIPE'].includes(err?.cause?.code ?? err?.code))
  );
}

function retryDelay(err, attempt, baseMs) {
  const headers = err?.headers;
  const ms = Number(headers?.get?.('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers.get('retry-after-ms') !== null) return Math.min(ms, 10_000);
  const s = Number(headers?.get?.('retry-after'));
  if (Number.isFinite(s) && s > 0) return Math.min(s * 1000, 10_000);
  return baseMs * attempt;
}

const describeError = (err) =>
  err?.code === 'STREAM_ERROR' && err.providerError
    ? `${err.providerError.type ?? 'error'}: ${err.providerError.message ?? err.message}`
    : (err?.message ?? String(err));

// ---------------------------------------------------------------------------
// One model request, with its attempts, as the StreamEvent sequence that
// consumeModelStream consumes (spec §4: CHUNK and RETRY).

async function* modelEvents(session, provider, signal, turn, retryDelayMs) {
  for (let attempt = 1; ; attempt++) {
    // One ToolCallIds per attempt, seeded from history (spec §4.1).
    const ids = new ToolCallIds(provider.historyIds(session));
    const converter = provider.converter();
    turn.text = '';
    turn.finishReason = undefined;
    let emittedOutput = false;
    const chunk = (response) => {
      ids.apply(response);
      const candidate = response.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (typeof part.text === 'string' && part.text) {
          emittedOutput = true;
          if (!part.thought) turn.text += part.text;
        }
      }
      if (candidate?.finishReason) turn.finishReason = candidate.finishReason;
      return { type: 'chunk', value: response };
    };
    let failure;
    try {
      const response = await provider.request(session, signal);
      for await (const bytes of response.body) {
        for (const r of converter.pushBytes(bytes)) yield chunk(r);
      }
      for (const r of converter.end()) yield chunk(r);
      return;
    } catch (err) {
      // Responses converted before an in-band error are never lost.
      if (err?.code === 'STREAM_ERROR') for (const r of err.responses ?? []) yield chunk(r);
      if (signal.aborted || attempt > MAX_RETRIES || !isRetryable(err, emittedOutput)) throw err;
      failure = err;
    }
    const delay = retryDelay(failure, attempt, retryDelayMs);
    log(`attempt ${attempt} failed (${describeError(failure)}); retrying in ${delay} ms`);
    yield {
      type: 'retry',
      retryInfo: { message: describeError(failure), attempt, maxRetries: MAX_RETRIES, delayMs: delay },
    };
    await sleep(delay, undefined, { signal });
  }
}

// ---------------------------------------------------------------------------
// Tool execution (spec §6.8): start frame, run, result frame. todo_write gets
// no card, only a `plan` update (spec §6.3).

async function runTool(session, call, send) {
  const callId = call.id;
  const toolName = call.name;
  const args = call.args && typeof call.args === 'object' ? call.args : {};
  if (toolName === TODO_WRITE) {
    if (!Array.isArray(args.todos)) return { callId, output: 'todo_write: "todos" must be an array.', isError: true };
    const entries = args.todos.map((t) => ({
      content: String(t.content ?? ''),
      priority: 'medium',
      status: ['pending', 'in_progress', 'completed'].includes(t.status) ? t.status : 'pending',
    }));
    send({ sessionUpdate: 'plan', entries });
    return { callId, output: `Todo list updated (${entries.length} items).` };
  }
  const display = TOOL_DISPLAY[toolName];
  send(
    session.cards.started({
      callId,
      toolName,
      rawInput: args,
      title: display ? `${display.title}${typeof args.path === 'string' ? `: ${args.path}` : ''}` : toolName,
      kind: display?.kind ?? 'other',
      locations: locationsFor(session.cwd, args),
    }),
  );
  try {
    const tool = TOOLS[toolName];
    if (!tool) throw new ToolError(`Tool "${toolName}" not found in registry.`);
    const result = await tool(session.cwd, args);
    send(
      session.cards.finished(callId, toolName, {
        status: 'completed',
        content: result.content,
        ...(result.rawOutput ? { rawOutput: result.rawOutput } : {}),
      }),
    );
    return { callId, output: result.output };
  } catch (err) {
    const message = err instanceof ToolError ? err.message : `${toolName} failed: ${err.message}`;
    send(session.cards.finished(callId, toolName, { status: 'failed', content: [text(message)] }));
    return { callId, output: message, isError: true };
  }
}

// ---------------------------------------------------------------------------
// The prompt turn: model request → tools → model request … until the model stops.

function promptText(blocks) {
  return blocks
    .map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'resource_link') return `@${b.uri}`;
      if (b.type === 'resource' && typeof b.resource?.text === 'string')
        return `<file uri="${b.resource.uri}">\n${b.resource.text}\n</file>`;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

const STOP_REASONS = {
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'refusal',
  RECITATION: 'refusal',
  PROHIBITED_CONTENT: 'refusal',
};

async function runPrompt(session, provider, params, signal, send, options) {
  provider.addUserText(session, promptText(params.prompt));
  for (let request = 0; request < MAX_MODEL_REQUESTS_PER_PROMPT; request++) {
    const turn = { text: '', finishReason: undefined };
    let result;
    try {
      result = await consumeModelStream(modelEvents(session, provider, signal, turn, options.retryDelayMs), {
        cards: session.cards,
        send,
        signal,
      });
    } catch (err) {
      if (signal.aborted) return 'cancelled';
      throw err;
    }
    if (signal.aborted) return 'cancelled';
    const calls = result.functionCalls ?? [];
    provider.addAssistant(session, turn.text, calls);
    if (calls.length === 0) return STOP_REASONS[turn.finishReason] ?? 'end_turn';
    const results = [];
    for (const call of calls) {
      // Calls after a cancel are not executed, but the model still gets an answer for each.
      results.push(
        signal.aborted
          ? { callId: call.id, output: 'Cancelled by the user before it ran.', isError: true }
          : await runTool(session, call, send),
      );
    }
    provider.addToolResults(session, results);
    if (signal.aborted) return 'cancelled';
  }
  return 'max_turn_requests';
}

// ---------------------------------------------------------------------------
// ACP wiring.

/**
 * Converts one tiny stream through the public API before serving, so lazy
 * loading (the native addon, the optional @google/genai peer) is not paid by
 * the first card of the first prompt.
 */
function warmUp() {
  const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const converter = new AnthropicConverter({ model: 'warm-up' });
  converter.pushBytes(
    sse('message_start', {
      message: {
        id: 'msg_warm',
        type: 'message',
        role: 'assistant',
        model: 'warm-up',
        content: [],
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    }) +
      sse('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_warm', name: 'read_file', input: {} },
      }),
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string', default: 'anthropic' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'retry-delay-ms': { type: 'string', default: '1000' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: toolcall-stream-agent --provider anthropic|openai [--base-url URL] [--model NAME] [--retry-delay-ms N]\n',
    );
    return;
  }
  if (values.provider !== 'anthropic' && values.provider !== 'openai')
    throw new Error(`--provider must be anthropic or openai, not ${values.provider}`);
  const keyVar = values.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  if (!process.env[keyVar]) throw new Error(`${keyVar} is not set`);
  const providerOptions = { baseURL: values['base-url'], model: values.model };
  const provider =
    values.provider === 'anthropic' ? new AnthropicProvider(providerOptions) : new OpenAIProvider(providerOptions);
  const options = { retryDelayMs: Math.max(0, Number(values['retry-delay-ms']) || 0) };

  warmUp();
  const acp = await import('@agentclientprotocol/sdk');
  const { methods, RequestError } = acp;
  const sessions = new Map();

  const app = acp
    .agent({ name: 'toolcall-stream-agent' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
      },
      agentInfo: { name: 'toolcall-stream-agent', title: 'toolcall-stream reference agent', version },
      authMethods: [],
    }))
    .onRequest(methods.agent.session.new, async ({ params }) => {
      if (!path.isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const cwd = await fs.realpath(params.cwd).catch(() => {
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd does not exist');
      });
      const sessionId = randomUUID();
      sessions.set(sessionId, {
        cwd,
        messages: [],
        cards: new ToolCallCards({
          suppressedTools: [TODO_WRITE],
          describe: (toolName) => TOOL_DISPLAY[toolName] ?? {},
        }),
        running: null,
      });
      return { sessionId };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, signal: requestSignal, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams({ sessionId: params.sessionId }, 'unknown session');
      if (session.running) throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
      const controller = new AbortController();
      const signal = AbortSignal.any([controller.signal, requestSignal]);
      session.running = controller;
      // Updates go out strictly in order, and all of them before the response.
      let outbox = Promise.resolve();
      const send = (update) => {
        if (!update) return outbox;
        for (const u of Array.isArray(update) ? update : [update]) {
          outbox = outbox.then(() =>
            client.notify(methods.client.session.update, { sessionId: params.sessionId, update: u }),
          );
        }
        return outbox;
      };
      try {
        const stopReason = await runPrompt(session, provider, params, signal, send, options);
        return { stopReason };
      } catch (err) {
        log(`prompt failed: ${describeError(err)}`);
        throw RequestError.internalError(
          { providerError: err?.providerError ?? null, status: err?.status ?? null },
          `Model request failed: ${describeError(err)}`,
        );
      } finally {
        // No card is ever left open at the end of a turn (spec §6.9.2).
        send(session.cards.closeAll());
        await outbox.catch((err) => log(`session/update failed: ${err.message}`));
        session.running = null;
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort(new Error('cancelled by the client (session/cancel)'));
    });

  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  await connection.closed;
}

main().catch((err) => {
  log(err?.stack ?? String(err));
  process.exitCode = 1;
});
