// Renders one scenario attempt (scenarios.mjs) as the SSE body a real provider
// sends: Anthropic Messages events or OpenAI chat.completion.chunk data lines,
// each frame with the delay (ms, at speed 1) after the previous one. The pacing
// is that of a fast model: ~0.3 s to the first byte, ~40 text tokens/s, tool
// arguments at ~1.4 KB/s in 10–40 character fragments.
// An attempt with `interrupt: {block, fraction, error?}` stops after that
// fraction of the block's arguments and sends `error` as the provider's
// mid-stream error event; without `error` the body simply ends there, as when
// a proxy closes the connection mid-stream. A tool block with `pauses:
// [{fraction, ms, keepAlive}]` goes quiet for `ms` once that fraction of its
// arguments is out, as a model that stops writing does: with keep-alives on
// the connection (Anthropic `ping` events, OpenAI `: keep-alive` comments), or
// with no byte at all; then its arguments go on.
import { prng } from './scenarios.mjs';

const PACE = {
  firstByteMs: 300,
  blockGapMs: 120,
  toolStartToArgsMs: 250,
  textTokenMs: 25,
  argCharsPerSec: 1400,
};

/** Splits text into word-ish tokens of 1–3 words (text and thinking deltas). */
function textPieces(text, rand) {
  const words = text.match(/\S+\s*/g) ?? [text];
  const out = [];
  for (let i = 0; i < words.length;) {
    const n = 1 + Math.floor(rand() * 3);
    out.push(words.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

/** Splits JSON argument text into 10–40 character fragments, as providers do (or `size`-character ones). */
function argPieces(json, rand, size) {
  const out = [];
  for (let i = 0; i < json.length;) {
    const n = size ?? 10 + Math.floor(rand() * 31);
    out.push(json.slice(i, i + n));
    i += n;
  }
  return out;
}

const argDelay = (piece) => (piece.length / PACE.argCharsPerSec) * 1000;

/**
 * Walks an attempt's blocks, calling `emit(kind, payload, delayMs, note)` for
 * every provider-neutral step; stops where `attempt.interrupt` says.
 * Returns true when it was interrupted. A tool block's arguments are
 * `JSON.stringify(input)`, or `rawInput` verbatim (text a model may send
 * that is not valid JSON), in `pieceBytes`-character fragments if given.
 */
function walk(attempt, seed, emit) {
  const rand = prng(seed);
  const stopAt = attempt.interrupt;
  for (const [index, block] of attempt.blocks.entries()) {
    const gap = PACE.blockGapMs;
    if (block.type === 'text' || block.type === 'thinking') {
      emit('start', { index, block }, gap);
      for (const piece of textPieces(block.text, rand)) emit('delta', { index, block, piece }, PACE.textTokenMs);
      emit('stop', { index, block }, 5);
      continue;
    }
    const json = block.rawInput ?? JSON.stringify(block.input);
    // An interrupted block stops after `fraction` of its argument text.
    const interrupted = stopAt && stopAt.block === index;
    const pieces = argPieces(
      interrupted ? json.slice(0, Math.max(1, Math.floor(json.length * stopAt.fraction))) : json,
      rand,
      block.pieceBytes,
    );
    emit('start', { index, block }, gap, { tool: block.name, id: block.id, argBytes: json.length });
    let sent = 0;
    const pauses = [...(block.pauses ?? [])];
    for (const [i, piece] of pieces.entries()) {
      sent += piece.length;
      emit('delta', { index, block, piece }, i === 0 ? PACE.toolStartToArgsMs : argDelay(piece), {
        tool: block.name,
        id: block.id,
        argSent: sent,
        argBytes: json.length,
      });
      while (pauses.length > 0 && sent >= json.length * pauses[0].fraction) {
        emit('pause', { index, block, pause: pauses.shift() }, 0);
      }
    }
    if (interrupted) return true;
    emit('stop', { index, block }, 5, { tool: block.name, id: block.id, argsComplete: true });
  }
  return false;
}

function seedOf(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const outputTokens = (attempt) => Math.ceil(JSON.stringify(attempt.blocks).length / 4);

/**
 * How an interrupted attempt ends when `interrupt.then` says so, instead of
 * with an in-band error: 'stall' (the provider then sends only keep-alives
 * until the client gives up), 'cut' (half a frame, then the socket is
 * destroyed), 'unterminated' (the provider then starts a `data:` line and sends
 * whitespace without a newline, megabyte after megabyte), 'whitespace' (the
 * same on a line of its own, which is no `data:` line). Marked frames the
 * provider acts on.
 */
function interruptTail(interrupt) {
  if (interrupt.then === 'stall') return [{ delayMs: 20, text: '', stall: true }];
  if (interrupt.then === 'cut') return [{ delayMs: 20, text: 'data: {"type":"content_block_delta","ind', cut: true }];
  if (interrupt.then === 'unterminated') return [{ delayMs: 20, text: 'data: ', unterminated: true }];
  if (interrupt.then === 'whitespace') return [{ delayMs: 20, text: '', unterminated: true }];
  return null;
}

/** @returns {{delayMs: number, text: string, note?: object}[]} */
export function renderAnthropic(attempt, { model, key }) {
  const frames = [];
  const sse = (type, data, delayMs, note) =>
    frames.push({ delayMs, text: `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`, note });
  const msgId = `msg_01${seedOf(key).toString(36)}`;
  sse(
    'message_start',
    {
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 412, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    },
    PACE.firstByteMs,
  );
  sse('ping', {}, 2);
  const interrupted = walk(attempt, seedOf(key), (kind, { index, block, piece, pause }, delayMs, note) => {
    if (kind === 'pause') {
      frames.push({ delayMs, text: '', pause, note: { tool: block.name, id: block.id, pause } });
      return;
    }
    if (kind === 'start') {
      const content_block =
        block.type === 'text'
          ? { type: 'text', text: '' }
          : block.type === 'thinking'
            ? { type: 'thinking', thinking: '', signature: '' }
            : { type: 'tool_use', id: block.id, name: block.name, input: {} };
      sse('content_block_start', { index, content_block }, delayMs, note);
    } else if (kind === 'delta') {
      const delta =
        block.type === 'text'
          ? { type: 'text_delta', text: piece }
          : block.type === 'thinking'
            ? { type: 'thinking_delta', thinking: piece }
            : { type: 'input_json_delta', partial_json: piece };
      sse('content_block_delta', { index, delta }, delayMs, note);
    } else {
      if (block.type === 'thinking')
        sse(
          'content_block_delta',
          { index, delta: { type: 'signature_delta', signature: `sig${seedOf(block.text).toString(36)}` } },
          3,
        );
      sse('content_block_stop', { index }, delayMs, note);
    }
  });
  if (interrupted) {
    const tail = interruptTail(attempt.interrupt);
    if (tail) frames.push(...tail);
    else if (attempt.interrupt.error)
      sse('error', { error: attempt.interrupt.error }, 40, { error: attempt.interrupt.error.type });
    return frames;
  }
  // `omitStop`: the body ends cleanly after the last block, with no message_delta / message_stop.
  if (attempt.omitStop) return frames;
  sse(
    'message_delta',
    { delta: { stop_reason: attempt.stop, stop_sequence: null }, usage: { output_tokens: outputTokens(attempt) } },
    20,
  );
  sse('message_stop', {}, 2);
  return frames;
}

/**
 * The non-streaming Messages API answer for a recorded attempt (what
 * `messages.create` without `stream` returns): its blocks complete, at once.
 */
export function renderAnthropicMessage(attempt, { model, key }) {
  const content = attempt.blocks.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text }
      : block.type === 'thinking'
        ? { type: 'thinking', thinking: block.text, signature: `sig${seedOf(block.text).toString(36)}` }
        : { type: 'tool_use', id: block.id, name: block.name, input: block.rawInput ?? block.input },
  );
  return {
    id: `msg_01${seedOf(key).toString(36)}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: attempt.stop ?? null,
    stop_sequence: null,
    usage: {
      input_tokens: 412,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: outputTokens(attempt),
    },
  };
}

/** OpenAI-style ids for the same recorded call (`toolu_01X` → `call_X`). */
export const openaiCallId = (id) => id.replace(/^toolu_01/, 'call_');

/** @returns {{delayMs: number, text: string, note?: object}[]} */
export function renderOpenAI(attempt, { model, key }) {
  const frames = [];
  const id = `chatcmpl-${seedOf(key).toString(36)}`;
  const created = 1767225600;
  const chunk = (delta, delayMs, note, finish_reason = null) =>
    frames.push({
      delayMs,
      text: `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_replay', choices: [{ index: 0, delta, logprobs: null, finish_reason }] })}\n\n`,
      note,
    });
  chunk({ role: 'assistant', content: '' }, PACE.firstByteMs);
  const toolIndex = new Map();
  let completeNote; // OpenAI calls are complete only at the finish chunk
  const interrupted = walk(attempt, seedOf(key), (kind, { block, piece, pause }, delayMs, rawNote) => {
    if (kind === 'pause') {
      frames.push({ delayMs, text: '', pause, note: { tool: block.name, id: openaiCallId(block.id), pause } });
      return;
    }
    const note = rawNote && { ...rawNote, id: openaiCallId(rawNote.id) };
    if (kind === 'stop' && note?.argsComplete) completeNote = note;
    if (block.type === 'text' || block.type === 'thinking') {
      if (kind === 'delta')
        chunk(block.type === 'text' ? { content: piece } : { reasoning_content: piece }, delayMs, note);
      return;
    }
    // By block, not id: two blocks with one id are two calls (a duplicate id).
    if (!toolIndex.has(block)) toolIndex.set(block, toolIndex.size);
    const index = toolIndex.get(block);
    if (kind === 'start')
      chunk(
        {
          tool_calls: [
            { index, id: openaiCallId(block.id), type: 'function', function: { name: block.name, arguments: '' } },
          ],
        },
        delayMs,
        note,
      );
    else if (kind === 'delta') chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, delayMs, note);
  });
  if (interrupted) {
    const tail = interruptTail(attempt.interrupt);
    if (tail) {
      frames.push(...tail);
      return frames;
    }
    const err = attempt.interrupt.error;
    if (err)
      frames.push({
        delayMs: 40,
        text: `data: ${JSON.stringify({ error: { message: err.message, type: err.type, code: err.code ?? 529 } })}\n\n`,
        note: { error: err.type },
      });
    return frames;
  }
  // `omitStop`: the body ends cleanly with no finish chunk, usage or [DONE].
  if (attempt.omitStop) return frames;
  const finish = { tool_use: 'tool_calls', max_tokens: 'length' }[attempt.stop] ?? 'stop';
  chunk({}, 20, completeNote, finish);
  frames.push({
    delayMs: 2,
    text: `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_replay', choices: [], usage: { prompt_tokens: 412, completion_tokens: outputTokens(attempt), total_tokens: 412 + outputTokens(attempt) } })}\n\n`,
  });
  frames.push({ delayMs: 1, text: 'data: [DONE]\n\n' });
  return frames;
}

/**
 * The attempt as an OpenAI Responses API stream (POST /v1/responses with
 * `stream: true`): `event:`/`data:` frames, each output an item with its
 * `output_item.added` and `output_item.done`, a tool call's arguments as
 * `response.function_call_arguments.delta` events, `response.completed`
 * with the usage at the end. An interrupt's error is an `error` event.
 */
export function renderOpenAIResponses(attempt, { model, key }) {
  const frames = [];
  const id = `resp_${seedOf(key).toString(36)}`;
  const sse = (type, data, delayMs, note) =>
    frames.push({ delayMs, text: `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`, note });
  sse(
    'response.created',
    { response: { id, object: 'response', model, status: 'in_progress', output: [] } },
    PACE.firstByteMs,
  );
  const items = new Map();
  const itemOf = (block, index) => {
    if (!items.has(block)) {
      const itemId = `${block.type === 'tool_use' ? 'fc' : block.type === 'thinking' ? 'rs' : 'msg'}_${index}`;
      items.set(block, { output_index: items.size, itemId, text: '' });
    }
    return items.get(block);
  };
  const done = [];
  const interrupted = walk(attempt, seedOf(key), (kind, { index, block, piece, pause }, delayMs, rawNote) => {
    if (kind === 'pause') {
      frames.push({ delayMs, text: '', pause, note: { tool: block.name, id: openaiCallId(block.id), pause } });
      return;
    }
    const note = rawNote && { ...rawNote, id: openaiCallId(rawNote.id) };
    const item = itemOf(block, index);
    const at = { output_index: item.output_index };
    if (block.type === 'text' || block.type === 'thinking') {
      const reasoning = block.type === 'thinking';
      if (kind === 'start')
        sse(
          'response.output_item.added',
          {
            ...at,
            item: reasoning
              ? { type: 'reasoning', id: item.itemId, summary: [] }
              : { type: 'message', id: item.itemId, role: 'assistant', status: 'in_progress', content: [] },
          },
          delayMs,
          note,
        );
      else if (kind === 'delta') {
        item.text += piece;
        sse(
          reasoning ? 'response.reasoning_summary_text.delta' : 'response.output_text.delta',
          { ...at, item_id: item.itemId, ...(reasoning ? { summary_index: 0 } : { content_index: 0 }), delta: piece },
          delayMs,
          note,
        );
      } else {
        const finished = reasoning
          ? { type: 'reasoning', id: item.itemId, summary: [{ type: 'summary_text', text: item.text }] }
          : {
              type: 'message',
              id: item.itemId,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: item.text, annotations: [] }],
            };
        done.push(finished);
        sse('response.output_item.done', { ...at, item: finished }, delayMs, note);
      }
      return;
    }
    const call = { type: 'function_call', id: item.itemId, call_id: openaiCallId(block.id), name: block.name };
    if (kind === 'start')
      sse(
        'response.output_item.added',
        { ...at, item: { ...call, arguments: '', status: 'in_progress' } },
        delayMs,
        note,
      );
    else if (kind === 'delta') {
      item.text += piece;
      sse('response.function_call_arguments.delta', { ...at, item_id: item.itemId, delta: piece }, delayMs, note);
    } else {
      sse('response.function_call_arguments.done', { ...at, item_id: item.itemId, arguments: item.text }, delayMs);
      const finished = { ...call, arguments: item.text, status: 'completed' };
      done.push(finished);
      sse('response.output_item.done', { ...at, item: finished }, 2, note);
    }
  });
  if (interrupted) {
    const tail = interruptTail(attempt.interrupt);
    if (tail) {
      frames.push(...tail);
      return frames;
    }
    const err = attempt.interrupt.error;
    if (err) sse('error', { code: err.code ?? err.type, message: err.message }, 40, { error: err.type });
    return frames;
  }
  if (attempt.omitStop) return frames;
  const usage = { input_tokens: 412, output_tokens: outputTokens(attempt), total_tokens: 412 + outputTokens(attempt) };
  const incomplete = attempt.stop === 'max_tokens';
  sse(
    incomplete ? 'response.incomplete' : 'response.completed',
    {
      response: {
        id,
        object: 'response',
        model,
        status: incomplete ? 'incomplete' : 'completed',
        output: done,
        usage,
        ...(incomplete ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
      },
    },
    20,
  );
  return frames;
}
