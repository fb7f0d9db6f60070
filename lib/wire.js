'use strict';
// The JS side of the wire protocol between the native converters and this
// package (the format: core/src/wire/mod.rs; the binding's side: src/wire.rs).
// Nothing else in lib/ reads what native returns or throws.
//
// - A batch is what every converter call returns: a number (the state word
//   alone: nothing converted, no error) or the text of one JSON array whose
//   items are a chunk-header item `{c}` (OpenAI: the header native built
//   from a chunk's id, created and model, with those fields, kept in the
//   state for the object path) or an event-header item `{e}` (Anthropic: the
//   header of the chunk a text or thinking delta converts to, kept in the
//   state for the object path) or a messages item `{m}` (OpenAI Responses:
//   the message metadata its parts share, kept in the state), header items `{h}`, compact chunks `[0, text]` / `[1, thought]`
//   / `[2]` (`[2, n]`: n of them) / `[3, text]` (an OpenAI reasoning thought)
//   / `[4, text, serial]` (an OpenAI Responses text part and its message), full items `{r, p?, s?}`, at most one error item `{error}`
//   after the responses converted before it, and the state word last.
//   When a call's large string arguments were lifted out of the text
//   (core/src/wire/lift.rs), the batch is an array: the text, then the
//   lifted strings, in the order the full items' `x` lists them (`[part
//   index, key]`); each goes back into its call's `args` at its key.
// - The error encoding is one object `{code, name, message, type?, offset?,
//   providerError?, providerEvent?, hostError?, fatal}`: a batch's error item, or the message of the
//   napi `GenericFailure` thrown by every entry that returns no batch
//   (constructors, the ACP classes, the helpers). Both decode here to a
//   ToolCallStreamError with `code`, `fatal` and `responses`; whatever else
//   a native call throws (napi's own argument checks) is INVALID_ARGUMENT.
// - The state word is the converter state the object path
//   (lib/object-path.js) depends on, as it is after the call, error batches
//   included. A `NativeState` holds the last one the converter returned; it
//   is never set from anything but a native answer.

const { setToolCallPreparations } = require('./preparations.js');
const { noteProgressSource } = require('./progress.js');
const { attachUsageProvenance, reasoningPart, markReasoningParts } = require('./annotations.js');
const { toResponse, simpleResponse, ToolCallStreamError } = require('./responses.js');
// The state word's bits, the compact chunk kinds and the item keys, as the core defines them (written from core/src/wire/ by
// scripts/generate.mjs).
const {
  FINISHED,
  QUIET,
  TEXT_READY,
  HEADER,
  PAYLOAD,
  GATHER_SHIFT,
  GATHER_BITS,
  TAG_CLOSING,
  STOP_GATHERED,
  BUDGET_SHIFT,
  KIND_THOUGHT,
  KIND_EMPTY,
  KIND_REASONING,
  KIND_MESSAGE_TEXT,
  KEY_HEADER,
  KEY_CHUNK_HEADER,
  KEY_EVENT_HEADER,
  KEY_RESPONSE,
  KEY_PREPARATIONS,
  KEY_SANITIZED,
  KEY_USAGE_PROVENANCE,
  KEY_REASONING_PARTS,
  KEY_LIFTED,
  KEY_MESSAGES,
  KEY_MESSAGE_PARTS,
  KEY_ERROR,
} = require('./generated/wire-constants.js');

// The state word is an integer below 2^53, wider than JS's 32-bit bit
// operators: its fields above bit 31 are read by division.
const GATHER_UNIT = 2 ** GATHER_SHIFT;
const GATHER_RANGE = 2 ** GATHER_BITS;
const BUDGET_UNIT = 2 ** BUDGET_SHIFT;

/** What a decoded batch without responses returns: never handed out. */
const NOTHING = Object.freeze([]);

/**
 * A converter's native state as last reported: its slot, the state word its
 * last call returned (`word`) and the header native sent last for the
 * responses the object path builds (Anthropic `header`, OpenAI
 * `chunkHeader`). Every field is what native handed over, as it handed it.
 */
class NativeState {
  constructor(slot, word) {
    this.slot = slot;
    this.word = word;
    /**
     * Anthropic: `{f, responseId?, modelVersion?}`, the header of the chunk a
     * text or thinking delta converts to while the word has HEADER
     * (core/src/convert/anthropic/event_header.rs), or null.
     */
    this.header = null;
    /**
     * OpenAI: `{id?, created, model?, h}`, the header `h` native built from a
     * chunk with those fields (core/src/convert/openai/chunk_header.rs), or null.
     */
    this.chunkHeader = null;
    /** The converter this state belongs to: the progress source of its responses (lib/progress.js). */
    this.converter = undefined;
  }

  get finished() {
    return (this.word & FINISHED) !== 0;
  }

  /** OpenAI: a closing thinking-tag candidate is pending (kept after a fatal error, not after free()). */
  get tagClosing() {
    return (this.word & TAG_CLOSING) !== 0;
  }

  /** Anthropic: the index of the block whose fragments may be gathered, or -1. */
  get gatherIndex() {
    return (Math.floor(this.word / GATHER_UNIT) % GATHER_RANGE) - 1;
  }

  /** UTF-16 units of arguments that may still be gathered before a limit could fail. */
  get budget() {
    return Math.floor(this.word / BUDGET_UNIT);
  }
}

/**
 * Decodes one batch into `state` (its word and header) and the responses
 * (NOTHING for none). Throws a ToolCallStreamError, carrying the responses converted
 * before it, when the batch holds an error; the state is taken first.
 * `sanitized` receives pipeline-only annotations; `host` (lib/host.js)
 * supplies the response class, a second preparation store, a second
 * usage-provenance store and its reasoning-part factory.
 */
function decode(state, batch, sanitized, host) {
  if (typeof batch === 'number') {
    state.word = batch;
    return NOTHING;
  }
  let lifted;
  let nextLifted = 1;
  if (typeof batch !== 'string') {
    lifted = batch;
    batch = batch[0];
  }
  const items = JSON.parse(batch);
  const last = items.length - 1;
  state.word = items[last];
  const out = new Array(last);
  let n = 0;
  let header;
  for (let i = 0; i < last; i++) {
    const item = items[i];
    if (Array.isArray(item)) {
      const kind = item[0];
      if (kind === KIND_EMPTY) {
        // `[2]`, or `[2, n]`: a run of n part-less chunks.
        for (let run = item.length > 1 ? item[1] : 1; run > 0; run--)
          out[n++] = simpleResponse(header, undefined, host);
        continue;
      }
      out[n++] = simpleResponse(
        header,
        kind === KIND_THOUGHT
          ? { text: item[1], thought: true }
          : kind === KIND_REASONING
            ? reasoningPart(item[1], host)
            : kind === KIND_MESSAGE_TEXT
              ? { text: item[1], responsesMessage: sharedMessage(state, item[2]) }
              : { text: item[1] },
        host,
      );
      continue;
    }
    if (item[KEY_HEADER]) {
      header = item[KEY_HEADER];
      continue;
    }
    if (item[KEY_CHUNK_HEADER]) {
      state.chunkHeader = item[KEY_CHUNK_HEADER];
      continue;
    }
    if (item[KEY_EVENT_HEADER]) {
      state.header = item[KEY_EVENT_HEADER];
      continue;
    }
    if (item[KEY_MESSAGES]) {
      updateMessages(state, item[KEY_MESSAGES]);
      continue;
    }
    if (item[KEY_ERROR]) {
      out.length = n;
      const e = item[KEY_ERROR];
      throw new ToolCallStreamError(e.message, { ...e, responses: out });
    }
    const plain = item[KEY_RESPONSE];
    const lift = item[KEY_LIFTED];
    if (lift) nextLifted = putBack(plain, lift, lifted, nextLifted);
    const response = toResponse(plain, host);
    const preparations = item[KEY_PREPARATIONS];
    if (preparations) {
      setToolCallPreparations(response, preparations);
      if (state.converter) noteProgressSource(response, state.converter);
      if (host?.setPreparations) host.setPreparations(response, preparations);
    }
    const sanitization = item[KEY_SANITIZED];
    if (sanitization && sanitized) sanitized.set(response, sanitization);
    const usage = item[KEY_USAGE_PROVENANCE];
    if (usage) attachUsageProvenance(response.usageMetadata, usage, host);
    const messageParts = item[KEY_MESSAGE_PARTS];
    if (messageParts) shareMessages(state, response, messageParts);
    const reasoning = item[KEY_REASONING_PARTS];
    if (reasoning) markReasoningParts(response, reasoning, host);
    out[n++] = response;
  }
  out.length = n;
  return n === 0 ? NOTHING : out;
}

/**
 * The OpenAI Responses message metadata created or changed by a call
 * (core/src/convert/openai_responses/message_item.rs): `[[serial, object],
 * …]`. One object per message, kept in `state`, updated in place: Qwen's
 * parts of one message hold the same object, to which `updateMessage` adds
 * a `phase` later. Its `id` key is there even when undefined, as in
 * Qwen's `{ id: item.id }`.
 */
function updateMessages(state, changed) {
  state.messages ??= new Map();
  for (const [serial, now] of changed) {
    const message = state.messages.get(serial);
    if (message === undefined) {
      const created = { id: now.id };
      if (now.phase !== undefined) created.phase = now.phase;
      state.messages.set(serial, created);
    } else if (now.phase !== undefined) {
      message.phase = now.phase;
    }
  }
}

/**
 * The shared object of message `serial`, for a compact `[4, text, serial]`:
 * native sends a message's `{m}` item before or in the batch of its first
 * part, so a serial it has not sent means native and this package disagree
 * (INTERNAL), never a part built without its message.
 */
function sharedMessage(state, serial) {
  const message = state.messages?.get(serial);
  if (message === undefined) {
    throw new ToolCallStreamError(`toolcall-stream: a text part names the unknown message ${String(serial)}`, {
      code: 'INTERNAL',
    });
  }
  return message;
}

/** A full item's `[[part index, serial], …]`: each such part holds its message's shared object. */
function shareMessages(state, response, places) {
  const parts = response.candidates[0].content.parts;
  for (const [at, serial] of places) {
    const message = state.messages?.get(serial);
    if (message !== undefined) parts[at].responsesMessage = message;
  }
}

/**
 * Puts a full item's lifted string arguments back: `places` lists `[part
 * index, key]` in the order the strings follow the batch text from `next`.
 * The key is already in `args` (its value a placeholder), so it keeps the
 * place `JSON.parse` of the whole text would have given it. Returns the
 * index of the next string.
 */
function putBack(response, places, strings, next) {
  const parts = response.candidates[0].content.parts;
  for (const [at, key] of places) parts[at].functionCall.args[key] = strings[next++];
  return next;
}

/**
 * What a native entry threw, as the package's one error type: the error
 * object in a `GenericFailure` message, else (napi's own argument
 * conversion, a throwing getter it called) INVALID_ARGUMENT.
 */
function nativeError(err) {
  if (err instanceof ToolCallStreamError) return err;
  const message = typeof err?.message === 'string' ? err.message : String(err);
  if (err?.code === 'GenericFailure' && message.startsWith('{')) {
    let item;
    try {
      item = JSON.parse(message);
    } catch {
      item = undefined;
    }
    if (item !== null && typeof item === 'object' && typeof item.code === 'string') {
      return new ToolCallStreamError(item.message, item);
    }
  }
  const wrapped = new ToolCallStreamError(`toolcall-stream: ${message}`, { code: 'INVALID_ARGUMENT' });
  wrapped.cause = err;
  return wrapped;
}

module.exports = { NativeState, decode, nativeError, NOTHING, QUIET, TEXT_READY, HEADER, PAYLOAD, STOP_GATHERED };
