'use strict';
// The model providers: each builds its request with the real SDK, owns the
// session history in its own wire format, and names the converter for its
// response body.
const { AnthropicConverter, OpenAIConverter, convertAnthropicResponse } = require('toolcall-stream');
const { TOOL_SCHEMAS } = require('./tools.js');

/** A call's arguments as history may hold them: an object ({} for anything else). */
const argsObject = (args) => (args !== null && typeof args === 'object' && !Array.isArray(args) ? args : {});

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
  get kind() {
    return 'anthropic';
  }
  /** The session's model: the configured one, or the fallback once it took over. */
  modelFor(session) {
    return session.model ?? this.model;
  }
  converter(session, limits) {
    return new AnthropicConverter({ model: this.modelFor(session), limits });
  }
  body(session) {
    return {
      model: this.modelFor(session),
      max_tokens: 16384,
      system: systemPrompt(session.cwd),
      messages: session.messages,
      tools: Object.entries(TOOL_SCHEMAS).map(([name, t]) => ({
        name,
        description: t.description,
        input_schema: t.parameters,
      })),
    };
  }
  request(session, signal) {
    return this.client.messages.create({ ...this.body(session), stream: true }, { signal }).asResponse();
  }
  /**
   * The stream ended with nothing (`AnthropicConverter.emptyStream`): the
   * same request once more without streaming, its body converted, as Qwen
   * Code's AnthropicContentGenerator.processStreamWithEmptyFallback does
   * (some gateways close a stream with HTTP 200 and no content when a quota
   * runs out; the non-streaming answer carries the real error). Its error
   * is the attempt's error.
   */
  async emptyStreamFallback(session, signal) {
    const response = await this.client.messages.create(this.body(session), { signal }).asResponse();
    return convertAnthropicResponse(new Uint8Array(await response.arrayBuffer()));
  }
  addUserText(session, t) {
    session.messages.push({ role: 'user', content: [{ type: 'text', text: t }] });
  }
  addAssistant(session, t, calls) {
    const content = [];
    if (t) content.push({ type: 'text', text: t });
    for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: argsObject(c.args) });
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
  get kind() {
    return 'openai';
  }
  /** The session's model: the configured one, or the fallback once it took over. */
  modelFor(session) {
    return session.model ?? this.model;
  }
  converter(session, limits) {
    // Qwen's pipeline throws StreamContentError on an `error_finish` chunk.
    return new OpenAIConverter({ model: this.modelFor(session), limits, throwOnErrorFinish: true });
  }
  request(session, signal) {
    return this.client.chat.completions
      .create(
        {
          model: this.modelFor(session),
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
              function: { name: c.name, arguments: JSON.stringify(argsObject(c.args)) },
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

/** The provider named on the command line ('anthropic' or 'openai'). */
function createProvider(name, options) {
  if (name === 'anthropic') return new AnthropicProvider(options);
  if (name === 'openai') return new OpenAIProvider(options);
  throw new Error(`--provider must be anthropic or openai, not ${name}`);
}

module.exports = { AnthropicProvider, OpenAIProvider, createProvider };
