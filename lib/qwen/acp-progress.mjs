// Live progress on Qwen Code's own preparing cards, in ACP mode. Qwen shows
// a preparing card through its ToolCallEmitter
// (packages/cli/src/acp-integration/session/emitters/ToolCallEmitter.ts,
// emitStart with phase 'preparing') and then nothing until the call starts.
// This adds, and only adds, progress frames between the two: the emitter's
// methods are wrapped to learn when a card is shown and when it stops
// preparing (a start, a discard, a result, an error), and the frames go out
// through the emitter's own sendUpdate, after Qwen's preparing frame and
// before anything that ends the card. The counts come from the native
// converters the preload installed (lib/progress.js), and the frames are
// built by this package's card ledger (lib/acp/progress.js) with Qwen's own
// title for the card as their base, bounded as every card title is. The one
// change to a frame Qwen sends: its card's `tool_call` gets ACP's `name` (the
// Tool Call Name RFD, which Qwen does not send yet), and so does the
// `tool_call_update` of a start whose name is not the one its card opened
// with; everything else Qwen sends is unchanged.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ToolCallCards, internalsOf, frameToolName } = require('../acp/cards.js');
const { CardProgress, progressOptions } = require('../acp/progress.js');
const { progressSourceOf } = require('../progress.js');

/**
 * What the wrapping relies on in Qwen's ToolCallEmitter, checked on its code
 * before anything is touched: its own methods, and in each what decides
 * where a card is (`sendUpdate` is inherited from BaseEmitter).
 */
const EMITTER_CONTRACT = [
  ['emitStart', ['params.phase === "preparing"', 'this.sendUpdate(', 'preparedCallIds']],
  ['emitPreparationDiscarded', ['preparationDiscarded: true', 'this.sendUpdate(']],
  ['emitResult', ['params.callId']],
  ['emitError', []],
  ['resolveToolMetadata', []],
];

/** A method's text in a class's source: from its header to the next member's. */
function methodText(classText, method) {
  const header = new RegExp(`\\n  (?:async )?${method}\\(`).exec(classText);
  if (!header) return undefined;
  const rest = classText.slice(header.index + 1);
  const next = /\n  (?:async |static )?[A-Za-z_$#][\w$]*\(/.exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

/**
 * Why the source of Qwen's ToolCallEmitter class (`class … { … }` as the
 * bundle has it) is not one the wrapping fits, or undefined when it is.
 * `--check` reads it from the bundle's text; the preload from the class.
 */
export function emitterCodeMismatch(classText) {
  if (typeof classText !== 'string') return "Qwen's ToolCallEmitter was not found in the bundle";
  for (const [method, marks] of EMITTER_CONTRACT) {
    const code = methodText(classText, method);
    if (code === undefined) return `ToolCallEmitter.${method} was not found`;
    const missing = marks.find((mark) => !code.includes(mark));
    if (missing) return `ToolCallEmitter.${method} is not the code this hook knows (no ${missing})`;
  }
  return undefined;
}

/** The source of the ToolCallEmitter class in a bundle chunk's text (esbuild's `var X = class … {\n};`), or undefined. */
export function emitterClassText(chunkText) {
  const start = chunkText.indexOf('var ToolCallEmitter = class');
  if (start < 0) return undefined;
  const end = chunkText.indexOf('\n};\n', start);
  return end < 0 ? undefined : chunkText.slice(start, end + 3);
}

/** {@link emitterCodeMismatch} of the live class, which must also have its inherited `sendUpdate`. */
export function emitterMismatch(ToolCallEmitter) {
  if (typeof ToolCallEmitter !== 'function') return "Qwen's ToolCallEmitter was not found in the bundle";
  const mismatch = emitterCodeMismatch(Function.prototype.toString.call(ToolCallEmitter));
  if (mismatch) return mismatch;
  if (typeof ToolCallEmitter.prototype.sendUpdate !== 'function') return 'ToolCallEmitter.sendUpdate was not found';
  return undefined;
}

/**
 * The converters of the calls whose preparations the preload's responses
 * carried, by call id (Qwen's emitter hears of a call by its id alone).
 * Weak, and bounded: an id whose card never shows (Qwen outside ACP mode)
 * costs one small entry until newer ones push it out.
 */
class CallSources {
  #byId = new Map();
  static LIMIT = 256;

  /** A response with `preparations` came from its converter. */
  note(response, preparations) {
    const source = progressSourceOf(response);
    if (!source) return;
    const ref = new WeakRef(source);
    for (const p of preparations) {
      this.#byId.delete(p.callId);
      this.#byId.set(p.callId, ref);
    }
    while (this.#byId.size > CallSources.LIMIT) this.#byId.delete(this.#byId.keys().next().value);
  }

  /** The converter of `callId` (GeminiChat's `<id>__qwen_dup_<n>` read as `<id>`), or undefined. */
  take(callId) {
    let ref = this.#byId.get(callId);
    if (!ref) {
      const raw = /^(.*)__qwen_dup_\d+$/s.exec(callId);
      if (raw) ref = this.#byId.get(raw[1]);
    }
    return ref?.deref();
  }
}

/**
 * `update` with ACP's `name` after its title (where this package's own card
 * frames have it), when it is the frame of a start `naming` waits for: the
 * `tool_call` that opens a card, or a `tool_call_update` that renames one.
 * A frame that has a `name` already keeps it.
 */
function named(naming, update) {
  const entry = naming?.get(update?.toolCallId);
  if (!entry || 'name' in update) return update;
  const kind = update.sessionUpdate;
  if (kind !== 'tool_call' && !(kind === 'tool_call_update' && entry.renamed)) return update;
  const out = {};
  for (const [key, value] of Object.entries(update)) {
    out[key] = value;
    if (key === 'title') out.name = entry.name;
  }
  if (!('name' in out)) out.name = entry.name;
  return out;
}

/**
 * Wraps Qwen's ToolCallEmitter so that every preparing card it shows gets
 * progress frames, and every card's `tool_call` ACP's `name`. Returns
 * `{ notePreparations }`, which the preload's host calls for each response
 * with preparations. `options` are lib/acp/progress.js's.
 */
export function installCardProgress(ToolCallEmitter, options = true) {
  const rate = progressOptions(options, 'toolcall-stream/qwen');
  const sources = new CallSources();
  const proto = ToolCallEmitter.prototype;
  const original = {
    emitStart: proto.emitStart,
    emitPreparationDiscarded: proto.emitPreparationDiscarded,
    emitResult: proto.emitResult,
    emitError: proto.emitError,
    sendUpdate: proto.sendUpdate,
  };
  /** Per emitter (one per ACP session): its shadow ledger and its progress. */
  const sessions = new WeakMap();
  /** Per emitter: callId → `{name, renamed}` of each start under way (see `named`). */
  const namings = new WeakMap();
  const sessionOf = (emitter) => {
    let s = sessions.get(emitter);
    if (!s) {
      // A ledger of this emitter's preparing cards only: it builds the
      // progress frames and refuses one for a card that stopped preparing.
      const cards = new ToolCallCards({ suppressedTools: [] });
      const progress = new CardProgress(internalsOf(cards, 'toolcall-stream/qwen').native, rate, (frame) =>
        original.sendUpdate.call(emitter, frame),
      );
      // callId → the tool name of each preparing card it showed.
      s = { cards, progress, names: new Map() };
      sessions.set(emitter, s);
    }
    return s;
  };
  const stop = (emitter, callId, toolName) => {
    const s = sessions.get(emitter);
    if (!s || typeof callId !== 'string') return;
    s.progress.stop([callId]);
    s.names.delete(callId);
    try {
      if (s.cards.isOpen(callId)) s.cards.discarded(callId, typeof toolName === 'string' ? toolName : '');
    } catch {
      // The shadow ledger is this hook's own: whatever it refuses, Qwen's call goes on.
    }
  };

  // While a start is under way, the frame Qwen sends for it gets ACP's name
  // (Qwen's emitStart builds it from `params.toolName` and sends it through
  // `this.sendUpdate`). Returns what ends that.
  const nameFrames = (emitter, callId, toolName, renamed) => {
    if (typeof callId !== 'string' || typeof toolName !== 'string') return () => {};
    let name;
    try {
      name = frameToolName(toolName);
    } catch {
      return () => {}; // The frame goes out as Qwen built it.
    }
    let naming = namings.get(emitter);
    if (!naming) namings.set(emitter, (naming = new Map()));
    const entry = { name, renamed };
    naming.set(callId, entry);
    return () => {
      if (naming.get(callId) === entry) naming.delete(callId);
    };
  };

  proto.emitStart = async function emitStart(params) {
    const preparing = params?.phase === 'preparing';
    const callId = params?.callId;
    const toolName = params?.toolName;
    const openedAs = preparing ? undefined : sessions.get(this)?.names.get(callId);
    // A start (in_progress, or pending before a permission request) ends the
    // preparing phase before Qwen's frame goes out.
    if (!preparing) stop(this, callId, toolName);
    const release = nameFrames(this, callId, toolName, openedAs !== undefined && openedAs !== toolName);
    let shown;
    try {
      shown = await original.emitStart.call(this, params);
    } finally {
      release();
    }
    if (preparing && shown) {
      try {
        const s = sessionOf(this);
        if (s.cards.preparing(callId, toolName) !== null) {
          s.names.set(callId, toolName);
          const title = this.resolveToolMetadata(toolName, params.args ?? {})?.title;
          // Qwen titles a tool it does not know by its name: the card's
          // title is then the name, bounded as a name is.
          const base = typeof title === 'string' && title !== toolName ? title : undefined;
          s.progress.trackSource(callId, toolName, base, sources.take(callId));
        }
      } catch {
        // Progress is an addition: a card it cannot follow stays as Qwen showed it.
      }
    }
    return shown;
  };
  proto.sendUpdate = function sendUpdate(update) {
    return original.sendUpdate.call(this, named(namings.get(this), update));
  };
  proto.emitPreparationDiscarded = function emitPreparationDiscarded(callId, toolName) {
    stop(this, callId, toolName);
    return original.emitPreparationDiscarded.call(this, callId, toolName);
  };
  proto.emitResult = function emitResult(params) {
    stop(this, params?.callId, params?.toolName);
    return original.emitResult.call(this, params);
  };
  proto.emitError = function emitError(callId, ...rest) {
    stop(this, callId, rest[0]);
    return original.emitError.call(this, callId, ...rest);
  };
  return { notePreparations: (response, preparations) => sources.note(response, preparations) };
}
