#!/usr/bin/env node
'use strict';
// The reference ACP agent: ACP over stdio, a real Anthropic or
// OpenAI-compatible client, and toolcall-stream's native converters on the raw
// response body. Tool cards appear the moment a call's id and name are known
// and always end; retries and cancels discard the cards of the abandoned
// attempt. This file reads the arguments and wires the parts in lib/.
//
//   toolcall-stream-agent --provider anthropic|openai [--base-url URL] [--model NAME] [--retry-delay-ms N]
//     [--fallback-model NAME] [--approve ask|always] [--stall-timeout-ms N] [--max-frame-bytes N]
//     [--run-repaired-arguments] [--no-progress] [--progress-stall-ms N]
//
// Tools that change the workspace ask first (session/request_permission)
// unless --approve=always or the client picks the auto-edit / yolo mode.
// The key comes from ANTHROPIC_API_KEY / OPENAI_API_KEY. Diagnostics go to
// stderr; stdout carries only ACP messages.
const { Readable, Writable } = require('node:stream');
const { parseArgs } = require('node:util');

const { AnthropicConverter } = require('toolcall-stream');
const { log } = require('../lib/log.js');
const { createProvider } = require('../lib/providers.js');
const { serve } = require('../lib/server.js');
const { DEFAULT_MAX_FRAME_BYTES } = require('../lib/frames.js');

/** Qwen Code's DEFAULT_STREAM_IDLE_TIMEOUT_MS (the OpenAI pipeline's inactivity watchdog). */
const DEFAULT_STALL_TIMEOUT_MS = 240_000;

const USAGE = `Usage: toolcall-stream-agent --provider anthropic|openai [options]

  --base-url URL            the provider's API origin
  --model NAME              the model
  --fallback-model NAME     the model to use once the model's retries are exhausted
  --approve ask|always      ask before a tool changes the workspace (default), or never ask
  --retry-delay-ms N        base delay between attempts (default 1000)
  --stall-timeout-ms N      abort and retry an attempt that sends no data for N ms (pings do not count; default ${DEFAULT_STALL_TIMEOUT_MS})
  --max-frame-bytes N       bound of one outgoing ACP line (default ${DEFAULT_MAX_FRAME_BYTES}; the SDKs refuse 32 MiB)
  --run-repaired-arguments  run calls whose arguments were cut off (max_tokens) or repaired, as Qwen Code does
  --no-progress             keep preparing cards as they opened: no live count of the arguments received, no stall notice
  --progress-stall-ms N     a preparing card says the model is waiting once its arguments have not grown for N ms (default 5000)
`;

/** A positive integer option, or the default. */
function positive(value, name, fallback) {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, not ${value}`);
  return n;
}

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
      'fallback-model': { type: 'string' },
      approve: { type: 'string', default: 'ask' },
      'stall-timeout-ms': { type: 'string' },
      'max-frame-bytes': { type: 'string' },
      'run-repaired-arguments': { type: 'boolean', default: false },
      'no-progress': { type: 'boolean', default: false },
      'progress-stall-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.provider !== 'anthropic' && values.provider !== 'openai')
    throw new Error(`--provider must be anthropic or openai, not ${values.provider}`);
  const keyVar = values.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  if (!process.env[keyVar]) throw new Error(`${keyVar} is not set`);
  const provider = createProvider(values.provider, { baseURL: values['base-url'], model: values.model });
  if (values.approve !== 'ask' && values.approve !== 'always')
    throw new Error(`--approve must be ask or always, not ${values.approve}`);
  const options = {
    retryDelayMs: Math.max(0, Number(values['retry-delay-ms']) || 0),
    approve: values.approve,
    fallbackModel: values['fallback-model'],
    stallTimeoutMs: positive(values['stall-timeout-ms'], 'stall-timeout-ms', DEFAULT_STALL_TIMEOUT_MS),
    maxFrameBytes: positive(values['max-frame-bytes'], 'max-frame-bytes', DEFAULT_MAX_FRAME_BYTES),
    runRepairedArguments: values['run-repaired-arguments'],
    progress: !values['no-progress'] && {
      stallMs: positive(values['progress-stall-ms'], 'progress-stall-ms', 5000),
    },
  };

  // A client that is gone cannot be told anything more: say so on stderr and
  // exit non-zero, so whoever launched the agent sees the failure.
  const onBroken = (err) => {
    log(`ACP connection broken: ${err?.message ?? err}`);
    process.exit(1);
  };
  process.stdout.on('error', onBroken);
  warmUp();
  await serve({
    provider,
    options,
    output: Writable.toWeb(process.stdout),
    input: Readable.toWeb(process.stdin),
    onBroken,
  });
}

main().catch((err) => {
  log(err?.stack ?? String(err));
  process.exitCode = 1;
});
