'use strict';
// What the agent needs to know about a response body that the converter
// does not report: the raw argument text of each tool call (to tell arguments
// that parsed as they came from those that only parsed after repair), each
// call's raw id (to find same-attempt duplicates, which the id normalisation
// drops), and whether bytes carried data (pings and comments are not
// progress, for the stall watchdog). It reads only the `data:` lines that
// can hold tool calls; the converter still does the real decoding.

/**
 * A partial line longer than this is not kept: the converter refuses it at
 * the same length (model-request.js CONVERTER_LIMITS.maxBufferedBytes).
 */
const MAX_PARTIAL_LINE = 32 << 20;

/** A line that is not `data:` (`event:`, `id:`, comments) is kept up to this length, then skipped. */
const MAX_OTHER_LINE = 1024;

/** Longer than any keep-alive `data:` line. */
const MAX_PING_LINE = 64;

const PING_DATA = /^data:\s*\{\s*"type"\s*:\s*"ping"\s*\}\s*$/;

class StreamObserver {
  /** @param {'anthropic' | 'openai'} kind */
  constructor(kind) {
    this.kind = kind;
    /** The current unterminated line, or null while skipping one that cannot matter. */
    this.partial = '';
    /** Whether `partial` is a `data:` line (undefined until it has five characters). */
    this.partialIsData = undefined;
    this.decoder = new TextDecoder();
    /** Raw tool calls in order: {rawId, name, text}. */
    this.calls = [];
    this.byIndex = new Map();
  }

  /** Feeds body bytes; returns true when they carried data (not only pings, comments or blank lines). */
  push(bytes) {
    const chunk = this.decoder.decode(bytes, { stream: true });
    let progress = false;
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', from);
      if (nl < 0) break;
      const piece = chunk.slice(from, nl);
      from = nl + 1;
      // A skipped line (long, and not data) counts when it is not blank.
      if (this.partial === null) progress ||= /\S/.test(piece);
      else if (this.line((this.partial + piece).replace(/\r$/, ''))) progress = true;
      this.partial = '';
      this.partialIsData = undefined;
    }
    const rest = chunk.slice(from);
    if (rest === '') return progress;
    if (this.partial !== null) {
      this.partial += rest;
      // Decided once, while the line is short, so a long line is not flattened at every chunk.
      if (this.partialIsData === undefined && this.partial.length >= 5)
        this.partialIsData = this.partial.startsWith('data:');
      // Only `data:` lines are read, and none longer than the converter accepts.
      if (
        (this.partialIsData === false && this.partial.length > MAX_OTHER_LINE) ||
        this.partial.length > MAX_PARTIAL_LINE
      )
        this.partial = null;
    }
    // The unterminated rest of a line is progress when the line is data longer than a ping, or
    // skipped; and not blank. A ping split mid-line is not progress.
    const longData = this.partialIsData === true && (this.partial === null || this.partial.length > MAX_PING_LINE);
    return progress || ((longData || this.partial === null) && /\S/.test(rest));
  }

  /** One complete line; true when it is data. */
  line(line) {
    if (line === '' || line.startsWith(':') || line === 'event: ping' || PING_DATA.test(line)) return false;
    if (!line.startsWith('data:')) return true;
    const payload = line.slice(5).trim();
    if (
      this.kind === 'anthropic'
        ? payload.includes('"tool_use"') || payload.includes('input_json_delta')
        : payload.includes('"tool_calls"')
    ) {
      let event;
      try {
        event = JSON.parse(payload);
      } catch {
        return true;
      }
      if (this.kind === 'anthropic') this.anthropic(event);
      else this.openai(event);
    }
    return true;
  }

  anthropic(event) {
    if (event?.type === 'content_block_start' && event.content_block?.type === 'tool_use') {
      const b = event.content_block;
      const initial =
        b.input && typeof b.input === 'object' && Object.keys(b.input).length > 0 ? JSON.stringify(b.input) : '';
      const call = { rawId: b.id ?? null, name: b.name, text: initial };
      this.calls.push(call);
      this.byIndex.set(event.index, call);
    } else if (event?.type === 'content_block_delta' && event.delta?.type === 'input_json_delta') {
      const call = this.byIndex.get(event.index);
      if (call) call.text += event.delta.partial_json ?? '';
    }
  }

  openai(event) {
    for (const tc of event?.choices?.[0]?.delta?.tool_calls ?? []) {
      let call = this.byIndex.get(tc.index);
      if (!call || (tc.id && call.rawId && tc.id !== call.rawId)) {
        call = { rawId: tc.id ?? null, name: tc.function?.name, text: '' };
        this.calls.push(call);
        this.byIndex.set(tc.index, call);
      }
      if (!call.rawId && tc.id) call.rawId = tc.id;
      if (!call.name && tc.function?.name) call.name = tc.function.name;
      if (typeof tc.function?.arguments === 'string') call.text += tc.function.arguments;
    }
  }

  /**
   * Why the raw arguments of the call with provider id `rawId` must not run,
   * or null: they are not complete JSON (they needed repair), or not an object.
   */
  argumentProblem(rawId) {
    const call = this.calls.find((c) => c.rawId === rawId);
    if (!call) return null;
    // Empty arguments are {}, as Qwen's converter substitutes them
    // (packages/core/src/core/anthropicContentGenerator/converter.ts).
    const text = call.text.trim() === '' ? '{}' : call.text;
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      return 'its arguments were not valid JSON as streamed (they were cut off or malformed, and would only run after repair)';
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return 'its arguments are not a JSON object';
    return null;
  }

  /**
   * The raw call whose argument text is over `limit` bytes, or null: the
   * call a converter's LIMIT_EXCEEDED refused (the observer reads every line
   * the converter reads, before it does).
   */
  callOver(limit) {
    // Characters are at most 3 bytes each in UTF-8: shorter texts need no count.
    return this.calls.find((c) => c.text.length * 3 > limit && Buffer.byteLength(c.text) > limit) ?? null;
  }

  /** The raw calls whose id already appeared earlier in this body. */
  duplicates() {
    const seen = new Set();
    const out = [];
    for (const c of this.calls) {
      if (c.rawId === null) continue;
      if (seen.has(c.rawId)) out.push(c);
      else seen.add(c.rawId);
    }
    return out;
  }
}

module.exports = { StreamObserver };
