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
// title for the card as their base, bounded as every card title is. The
// changes to frames Qwen sends: its card's `tool_call` gets ACP's `name` (the
// Tool Call Name RFD, which Qwen does not send yet), and so does the
// `tool_call_update` of a start whose name is not the one its card opened
// with; a discarded preparation gets a `title` saying it did not run and why,
// and the cause in `_meta.discardReason` (discard-causes.mjs); everything else
// Qwen sends is unchanged. A stalled card names the time after which Qwen
// gives up on the stream, read with Qwen's own resolveStreamIdleTimeoutMs.

import { createRequire } from 'node:module';
import { DiscardCauses } from './discard-causes.mjs';

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
 * A frame that has a `name` already keeps it. A `tool_call` whose `_meta`
 * has Qwen's `toolName` but no `tool_name` also gets `_meta.tool_name`, the
 * key Zed reads a card's tool name from, and only when it creates the card
 * (crates/acp_thread/src/acp_thread.rs, `tool_name_from_meta` in
 * `ToolCall::from_acp`), as this package's own cards carry both.
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
  const meta = out._meta;
  if (kind === 'tool_call' && meta !== null && typeof meta === 'object' && 'toolName' in meta && !('tool_name' in meta))
    out._meta = { ...meta, tool_name: entry.name };
  return out;
}

/**
 * The discarded-preparation frame Qwen built (`update`), with the title and
 * the cause of `frame` (this package's frame for the same card): the title
 * after `status`, where this package's discard has it, and the cause after
 * `_meta.preparationDiscarded`. Every other field stays as Qwen built it.
 */
function explained(update, frame) {
  const out = {};
  for (const [key, value] of Object.entries(update)) {
    if (key === 'title') continue;
    out[key] = value;
    if (key === 'status') out.title = frame.title;
  }
  if (!('title' in out)) out.title = frame.title;
  const { discardReason, idleLimitMs } = frame._meta;
  if (discardReason !== undefined && update._meta !== null && typeof update._meta === 'object') {
    const meta = {};
    for (const [key, value] of Object.entries(update._meta)) {
      meta[key] = value;
      if (key === 'preparationDiscarded') {
        meta.discardReason = discardReason;
        if (idleLimitMs !== undefined) meta.idleLimitMs = idleLimitMs;
      }
    }
    out._meta = meta;
  }
  return out;
}

/**
 * Wraps Qwen's ToolCallEmitter so that every preparing card it shows gets
 * progress frames, every card's `tool_call` ACP's `name`, and every discarded
 * preparation a title that says why it did not run. Returns
 * `{ notePreparations }`, which the preload's host calls for each response
 * with preparations. `options` are lib/acp/progress.js's; `idleLimitOf(config)`,
 * when the release has it, is the idle limit in milliseconds after which Qwen
 * gives up on a stream of the session whose Config is `config`, or undefined.
 */
export function installCardProgress(ToolCallEmitter, options = true, { idleLimitOf } = {}) {
  const rate = progressOptions({ ...(options === true ? {} : options), hostName: 'Qwen' }, 'toolcall-stream/qwen');
  const sources = new CallSources();
  const causes = new DiscardCauses();
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
  /** Per emitter: callId → this package's discarded frame for a discard under way (see `explained`). */
  const explaining = new WeakMap();
  const sessionOf = (emitter) => {
    let s = sessions.get(emitter);
    if (!s) {
      // Qwen's title of each tool this emitter showed a card for (a tool it
      // does not know is titled by its bounded name).
      const titles = new Map();
      // A ledger of this emitter's preparing cards only: it builds the
      // progress frames, refuses one for a card that stopped preparing, and
      // titles a discard.
      const cards = new ToolCallCards({
        suppressedTools: [],
        describe: (name) => (titles.has(name) ? { title: titles.get(name) } : {}),
      });
      const progress = new CardProgress(internalsOf(cards, 'toolcall-stream/qwen').native, rate, (frame) =>
        original.sendUpdate.call(emitter, frame),
      );
      // callId → the tool name of each preparing card it showed.
      s = { cards, progress, names: new Map(), titles };
      sessions.set(emitter, s);
    }
    return s;
  };
  /** Ends a card in the shadow ledger; for a discard, returns this package's frame, with `cause`. */
  const stop = (emitter, callId, toolName, cause) => {
    const s = sessions.get(emitter);
    if (!s || typeof callId !== 'string') return null;
    s.progress.stop([callId]);
    s.names.delete(callId);
    try {
      if (s.cards.isOpen(callId)) return s.cards.discarded(callId, typeof toolName === 'string' ? toolName : '', cause);
    } catch {
      // The shadow ledger is this hook's own: whatever it refuses, Qwen's call goes on.
    }
    return null;
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

  // Qwen's BaseEmitter assigns `this.ctx = ctx` as a session builds its
  // emitter: the session's chat is watched from then on, before its first
  // stream (a card of that stream learns why it is discarded).
  if (!Object.getOwnPropertyDescriptor(proto, 'ctx')) {
    Object.defineProperty(proto, 'ctx', {
      configurable: true,
      set(ctx) {
        Object.defineProperty(this, 'ctx', { value: ctx, writable: true, enumerable: true, configurable: true });
        try {
          causes.hookChatOf(ctx);
        } catch {
          // The session goes on as Qwen built it.
        }
      },
    });
  }
  proto.emitStart = async function emitStart(params) {
    const preparing = params?.phase === 'preparing';
    // Qwen's chat class, reached from the emitter's ACP session, so that a discard learns why (discard-causes.mjs).
    if (preparing) causes.hookChatOf(this.ctx);
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
        const title = this.resolveToolMetadata(toolName, params.args ?? {})?.title;
        // Qwen titles a tool it does not know by its name: the card's
        // title is then the name, bounded as a name is.
        const base = typeof title === 'string' && title !== toolName ? title : undefined;
        if (base === undefined) s.titles.delete(toolName);
        else s.titles.set(toolName, base);
        if (s.cards.preparing(callId, toolName) !== null) {
          s.names.set(callId, toolName);
          const limit = idleLimitOf?.(this.ctx?.config);
          s.progress.trackSource(callId, toolName, base, sources.take(callId), limit);
        }
      } catch {
        // Progress is an addition: a card it cannot follow stays as Qwen showed it.
      }
    }
    return shown;
  };
  proto.sendUpdate = function sendUpdate(update) {
    const frame = update?._meta?.preparationDiscarded === true ? explaining.get(this)?.get(update.toolCallId) : null;
    return original.sendUpdate.call(this, frame ? explained(update, frame) : named(namings.get(this), update));
  };
  proto.emitPreparationDiscarded = async function emitPreparationDiscarded(callId, toolName) {
    let release = () => {};
    try {
      const s = sessions.get(this);
      const cause = causes.causeOf(this.ctx?.config, {
        quietMs: s?.progress.quietMs(callId),
        idleLimitMs: s?.progress.idleLimitOf(callId) ?? idleLimitOf?.(this.ctx?.config),
      });
      const frame = stop(this, callId, toolName, cause);
      if (frame) {
        let pending = explaining.get(this);
        if (!pending) explaining.set(this, (pending = new Map()));
        pending.set(callId, frame);
        release = () => pending.get(callId) === frame && pending.delete(callId);
      }
    } catch {
      // An explanation is an addition: without one, Qwen's frame goes out as it built it.
    }
    try {
      return await original.emitPreparationDiscarded.call(this, callId, toolName);
    } finally {
      release();
    }
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
