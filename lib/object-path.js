'use strict';
// The object path of the converters: the hot SDK event and chunk objects
// converted in JS, without serialising them for native. (The other two ways
// past the general conversion are native: the template path, OpenAI chunk
// text converted from a kept response, core/src/convert/openai/template/mod.rs; and the
// byte path, runs of hot SSE events handed over whole, core/src/foundations/sse.rs.)
// Each predicate below states the condition under which it is taken, read
// only from the event's hot shape (lib/generated/hot-shapes.js, written from
// the shapes the core declares) and from what the converter's last native
// call handed over (lib/wire.js `NativeState`: the state word, and the
// header native sent for the responses built here), and why its result
// equals the native conversion's. Every response built here takes its
// header from native and its key order from the core
// (lib/generated/simple-response.js).
// __test__/object-path.test.mjs checks each predicate against the native
// conversion (event objects vs their JSON text), including after end(),
// after a fatal error and after a limit.
//
// Every native call of a converter first hands over what is gathered here
// (`flush`), so the state word a predicate reads is native's state with
// nothing pending but this module's own gathered arguments.

const { native } = require('./native.js');
const { decode, NOTHING, QUIET, TEXT_READY, HEADER, PAYLOAD, STOP_GATHERED } = require('./wire.js');
const { simpleResponse } = require('./responses.js');
const {
  anthropicShape,
  openaiShape,
  ANTHROPIC_INPUT_JSON_DELTA,
  ANTHROPIC_TEXT_DELTA,
  ANTHROPIC_THINKING_DELTA,
  ANTHROPIC_BLOCK_STOP,
  OPENAI_CONTENT_ONLY,
  OPENAI_ARGUMENTS_ONLY,
} = require('./generated/hot-shapes.js');

/**
 * Test builds only (__test__/helpers/object-path-counts.mjs sets them before
 * this module loads; read once, here). With
 * TOOLCALL_STREAM_OBJECT_PATH_COUNTS=1 each predicate below counts how often
 * it was taken (`objectPathCounts`), so the differential tests can show that
 * the object path was exercised, not only that it agrees with native.
 * TOOLCALL_STREAM_OBJECT_PATH_OFF=<predicate,…> keeps the named predicates
 * from ever being taken: native converts those inputs instead, outputs stay
 * equal and only the counts tell, which proves the counting check can fail.
 * Unset (every real use), nothing is counted and every predicate is on.
 */
const COUNTING = process.env.TOOLCALL_STREAM_OBJECT_PATH_COUNTS === '1';
const OFF = new Set((process.env.TOOLCALL_STREAM_OBJECT_PATH_OFF ?? '').split(',').filter(Boolean));
/** The predicates, by the name the counts and the OFF switch use. */
const PREDICATES = ['anthropicGather', 'anthropicText', 'anthropicStopGathered', 'openaiText', 'openaiGather'];
const ANTHROPIC_GATHER = !OFF.has('anthropicGather');
const ANTHROPIC_TEXT = !OFF.has('anthropicText');
const ANTHROPIC_STOP_GATHERED = !OFF.has('anthropicStopGathered');
const OPENAI_TEXT = !OFF.has('openaiText');
const OPENAI_GATHER = !OFF.has('openaiGather');
const counts = Object.fromEntries(PREDICATES.map((name) => [name, 0]));

/** How often each predicate was taken since the last reset (all 0 unless counting). */
function objectPathCounts() {
  return { ...counts };
}

function resetObjectPathCounts() {
  for (const name of PREDICATES) counts[name] = 0;
}

/** Gathered argument text is handed to native at least every this many UTF-16 units. */
const FLUSH_AT = 1 << 20;

/**
 * The shape a shape function found and the index it captured, read at once
 * after the call (the text it captured is its return value): one object for
 * every call, so that no call allocates.
 */
const found = { shape: 0, index: 0 };

/**
 * Gathered argument text as it crosses to native: itself, or, when it holds
 * a lone surrogate (which cannot cross as UTF-8), a JSON string literal
 * (`encoded`).
 */
function crossing(text) {
  return text.isWellFormed() ? text : JSON.stringify(text);
}

/** The object path of one AnthropicConverter (SDK event objects). */
class AnthropicObjectPath {
  /** The converter's NativeState (lib/wire.js). */
  #state;
  #host;
  /** Gathered `partial_json` text of block #index, not yet handed to native. */
  #args = '';
  #index = NaN;
  #key = '';
  #flushAt = 0;

  constructor(state, host) {
    this.#state = state;
    this.#host = host;
  }

  /** The object path's output for `event`, or undefined: convert it natively (after `flush`). */
  take(event) {
    if (this.#state.finished) return undefined;
    const text = anthropicShape(event, found);
    switch (found.shape) {
      case ANTHROPIC_INPUT_JSON_DELTA:
        return ANTHROPIC_GATHER ? this.#gather(found.index, text) : undefined;
      case ANTHROPIC_TEXT_DELTA:
        return ANTHROPIC_TEXT ? this.#text(text, false) : undefined;
      case ANTHROPIC_THINKING_DELTA:
        return ANTHROPIC_TEXT ? this.#text(text, true) : undefined;
      case ANTHROPIC_BLOCK_STOP:
        if (this.#args !== '' && (this.#state.word & STOP_GATHERED) !== 0 && ANTHROPIC_STOP_GATHERED) {
          return this.#stopGathered(found.index);
        }
        return undefined;
      default:
        return undefined;
    }
  }

  /**
   * Gathering. Taken for an `input_json_delta` (ANTHROPIC_INPUT_JSON_DELTA:
   * a string `partial_json`, a number `index ?? 0`): an empty fragment yields nothing, as
   * native appends nothing for it; else only for the block the state word
   * names (`gather`). Native would append the fragment to that block and
   * yield nothing; here it is appended to the gathered text, handed over
   * (`flush`) before any other native call, so native sees the same appends
   * in the same order. Limits: the gathered text is handed over as soon as
   * its length exceeds the block's `budget` from the state word (UTF-16
   * units that cannot take more bytes than a limit leaves), so a limit
   * fails at the event that crosses it, as natively; and at least every
   * FLUSH_AT units. One difference from the JSON-text path, on purpose: a
   * surrogate pair split between two fragments is joined here, as the
   * reference's string concatenation joins it, where native decoding each
   * event's text alone keeps the halves as two 6-byte escapes, noted as
   * lone surrogates (core/src/foundations/json/lone_escapes.rs). Arguments parse, and
   * broken ones repair, to the same value either way; near a limit the
   * text path counts 8 bytes more.
   */
  #gather(index, fragment) {
    if (fragment === '') {
      if (COUNTING) counts.anthropicGather++;
      return NOTHING;
    }
    if (this.#args !== '') {
      if (index === this.#index) return this.#append(fragment);
      this.flush();
    }
    const state = this.#state;
    if (index !== state.gatherIndex) return undefined;
    this.#index = index;
    this.#key = String(index);
    this.#flushAt = Math.min(FLUSH_AT, state.budget);
    return this.#append(fragment);
  }

  #append(fragment) {
    if (COUNTING) counts.anthropicGather++;
    this.#args += fragment;
    if (this.#args.length > this.#flushAt) this.flush();
    return NOTHING;
  }

  /**
   * Text and thinking deltas. Taken when the state word has `header`: no
   * message_start usage is pending and the last response yielded has the
   * current response id and model, so native would yield exactly one chunk
   * with the header native sent (`NativeState.header`) and the text (none
   * for empty text), as built here (`simpleResponse`, the Anthropic key
   * order, `createTime` now). Not
   * before native has yielded a payload (the state word's `payload`,
   * 0.24.4's end-of-stream check): the first text of a stream takes the
   * native path, which records it, so no second copy of that flag is kept.
   */
  #text(text, thought) {
    const state = this.#state;
    if ((state.word & HEADER) === 0 || state.header === null) return undefined;
    if (text !== '' && (state.word & PAYLOAD) === 0) return undefined;
    if (COUNTING) counts.anthropicText++;
    if (text === '') return NOTHING;
    const header = state.header;
    header.createTime = String(Date.now());
    return [simpleResponse(header, thought ? { text, thought: true } : { text }, this.#host)];
  }

  /**
   * The stop of a block whose every fragment is still gathered here. Taken
   * when the state word has `stop_gathered` (the profile does not hold
   * calls for the stop reason), the stop's index is the gathered block's,
   * the gathered text parses as JSON, and native confirms that the block is
   * a tool_use block with no arguments on its side (else nothing changed:
   * the native path). Native takes the text's bytes as it would keep them
   * (well-formed text's UTF-8 length; text with lone surrogates it counts
   * itself) and closes the block with the native path's limit checks and chunk,
   * `{}` standing in for the arguments; the parsed value goes in their
   * place, which is what JS parses from the text native would hand back
   * (valid JSON is passed through verbatim).
   */
  #stopGathered(index) {
    if (index !== this.#index) return undefined;
    let args;
    try {
      args = JSON.parse(this.#args);
    } catch {
      return undefined;
    }
    const state = this.#state;
    const text = this.#args;
    // Well-formed text: its UTF-8 length (a fact of the string, counted by
    // Node's SIMD); with lone surrogates, the text for native to count.
    const batch = text.isWellFormed()
      ? native.anthropicStopHeld(state.slot, this.#key, Buffer.byteLength(text), undefined)
      : native.anthropicStopHeld(state.slot, this.#key, undefined, JSON.stringify(text));
    if (batch === undefined || batch === null) return undefined;
    if (COUNTING) counts.anthropicStopGathered++;
    this.#args = '';
    const out = decode(state, batch, undefined, this.#host);
    out[0].candidates[0].content.parts[0].functionCall.args = args;
    return out;
  }

  /** Hands the gathered text to native (`crossing`). */
  flush() {
    if (this.#args === '') return;
    const fragments = this.#args;
    this.#args = '';
    const text = crossing(fragments);
    const state = this.#state;
    decode(state, native.anthropicAppendInput(state.slot, this.#key, text, text !== fragments), undefined, this.#host);
  }

  /** Drops the gathered text (its block is still open, so it cannot change what is yielded). */
  drop() {
    this.#args = '';
  }
}

/** The object path of one OpenAIConverter (chat.completion.chunk objects). */
class OpenAIObjectPath {
  #state;
  #host;
  /** Gathered argument-only deltas, `[index, arguments, …]`, not yet handed to native. */
  #fragments = [];
  #fragmentChars = 0;
  #flushAt = 0;

  constructor(state, host) {
    this.#state = state;
    this.#host = host;
  }

  /**
   * The one response for `chunk`, or undefined: take the native path (after
   * `flush`). Only for a chunk with native's last chunk header (`knownHeader`).
   */
  take(chunk) {
    const state = this.#state;
    // The state word first: while it allows neither, no chunk is looked at
    // (a stream's reasoning, a call's first delta).
    const textReady = OPENAI_TEXT && (state.word & TEXT_READY) !== 0 && this.#fragments.length === 0;
    const quiet = OPENAI_GATHER && (state.word & QUIET) !== 0;
    if ((!textReady && !quiet) || chunk === null || typeof chunk !== 'object') return undefined;
    const header = knownHeader(state, chunk);
    if (header === undefined) return undefined;
    const text = openaiShape(chunk, found);
    const shape = found.shape;
    if (shape === OPENAI_CONTENT_ONLY) {
      return textReady && text.isWellFormed() ? this.#text(header, text) : undefined;
    }
    if (shape === OPENAI_ARGUMENTS_ONLY && quiet) return this.#gather(header, found.index, text);
    return undefined;
  }

  /**
   * Content-only deltas (OPENAI_CONTENT_ONLY, well-formed: a lone surrogate cannot
   * cross as UTF-8, the JSON text path keeps it). Taken when the state word has
   * `text_ready` (no tool-call or reasoning state, no response parsing that
   * could hold or rewrite text) and nothing is gathered: native normalises
   * the text exactly as its full conversion does (openai_push_text_delta)
   * and hands back where the normalised text starts in `content` (nearly
   * always: no string is made on either side) or the text itself; the
   * response is `convertOpenAIChunkToGemini`'s for a chunk with one text
   * part (none for empty text), built here with native's header for the
   * chunk. The state word is unchanged by the call (src/object_path.rs).
   */
  #text(header, content) {
    if (COUNTING) counts.openaiText++;
    const normalized = native.openaiPushTextDelta(this.#state.slot, content);
    const text = typeof normalized === 'number' ? (normalized === 0 ? content : content.slice(normalized)) : normalized;
    return simpleResponse(header, text === '' ? undefined : { text }, this.#host);
  }

  /**
   * Argument-only tool-call deltas (OPENAI_ARGUMENTS_ONLY). Taken when the
   * state word has `quiet` (no held parts, no thinking-tag candidate): native
   * would feed the arguments to the parser and yield a response with no
   * parts, built here with native's header for the chunk. The arguments are
   * handed over in order (`flush`) before any other native call; as soon as
   * their length exceeds the state word's `budget` (UTF-16 units) they are
   * handed over with this chunk, so a limit fails at the chunk that crosses
   * it, as natively.
   */
  #gather(header, index, fragment) {
    if (COUNTING) counts.openaiGather++;
    if (this.#fragments.length === 0) {
      this.#flushAt = Math.min(FLUSH_AT, this.#state.budget);
    }
    this.#fragments.push(index, fragment);
    this.#fragmentChars += fragment.length;
    if (this.#fragmentChars > this.#flushAt) this.flush();
    return simpleResponse(header, undefined, this.#host);
  }

  /** Hands the gathered deltas to native's parser, in order. */
  flush() {
    if (this.#fragments.length === 0) return;
    const text = JSON.stringify(this.#fragments);
    this.#fragments = [];
    this.#fragmentChars = 0;
    const state = this.#state;
    decode(state, native.openaiPushFragments(state.slot, text), undefined, this.#host);
  }

  drop() {
    this.#fragments = [];
    this.#fragmentChars = 0;
  }
}

/**
 * The header native built for a chunk with this chunk's `id`, `created` and
 * `model` (lib/wire.js `NativeState.chunkHeader`), else undefined: the chunk
 * takes the native path, which sends the header it builds. That header
 * depends on the values of those three fields alone
 * (core/src/convert/openai/chunk_header.rs), which native reads from the chunk's JSON text
 * and sends back as JSON: a primitive `===` a value native sent has that
 * value in JSON too, so native would build this chunk the same header; an
 * object is never `===` a value decoded from a batch. Native sends a header
 * only for a truthy `created`: none stands for `Date.now()`.
 */
function knownHeader(state, chunk) {
  const known = state.chunkHeader;
  if (known === null || chunk.id !== known.id || chunk.created !== known.created || chunk.model !== known.model) {
    return undefined;
  }
  return known.h;
}

module.exports = { AnthropicObjectPath, OpenAIObjectPath, PREDICATES, objectPathCounts, resetObjectPathCounts };
