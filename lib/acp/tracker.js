'use strict';
// PreparationTracker: one model stream's preparations (Qwen Code's
// ToolCallPreparationTracker), over the native tracker (core/src/acp/tracker.rs).

const { native } = require('../native.js');
const { getToolCallPreparations } = require('../preparations.js');
const { unreadable } = require('../responses.js');
const { invalid, isObject, isPlainObjectLike } = require('./values.js');
const { ToolCallCards, internalsOf, describeTool } = require('./cards.js');
const { sendAll } = require('./send-all.js');
const { discardCause } = require('./discard.js');
const { CardProgress, progressOptions } = require('./progress.js');
const { idsOfChunk, rewriteIds, nativeIdsOf } = require('./ids.js');

/** The non-empty string ids of a chunk's calls, as `resolve` reads them; `[]` for what is not iterable. */
function resolvableIds(calls) {
  const ids = [];
  if (calls == null || typeof calls[Symbol.iterator] !== 'function') return ids;
  for (const call of calls) {
    if (isObject(call) && typeof call.id === 'string' && call.id !== '') ids.push(call.id);
  }
  return ids;
}

/** An empty list, shared: what most chunks have of preparations, calls and frames. */
const NONE = Object.freeze([]);
/** The final ids of a chunk with neither a preparation nor a call. */
const NO_IDS = Object.freeze({ preparations: NONE, calls: NONE });

/** consumeModelStream's one step per chunk, and what follows its frames: see PreparationTracker#observeChunk. */
let observeChunk;
let callsArrived;

/** The options of a PreparationTracker, checked; `emitter` kept as given. */
function trackerOptions(options) {
  if (options === undefined) return {};
  if (!isPlainObjectLike(options)) throw invalid('PreparationTracker: options must be an object');
  const { emitter } = options;
  if (emitter !== undefined) {
    if (!isObject(emitter) && typeof emitter !== 'function') {
      throw invalid('PreparationTracker: options.emitter must be an object');
    }
    for (const method of ['emitStart', 'emitPreparationDiscarded']) {
      if (typeof emitter[method] !== 'function') {
        throw invalid(`PreparationTracker: options.emitter.${method} must be a function`);
      }
    }
    const optional = emitter.emitPreparationProgress;
    if (optional !== undefined && typeof optional !== 'function') {
      throw invalid('PreparationTracker: options.emitter.emitPreparationProgress must be a function');
    }
  }
  const progress = progressOptions(options.progress, 'PreparationTracker');
  if (progress && !progress.send && typeof emitter?.emitPreparationProgress !== 'function') {
    throw invalid(
      'PreparationTracker: progress needs progress.send, or an emitter with emitPreparationProgress, to show its frames',
    );
  }
  return { emitter, progress };
}

/**
 * One model stream's preparations (docs/behaviour.md §5.3): a preparing card per new
 * preparation, resolution by complete `functionCall` ids, and discards on
 * retry / fallback / cancel / error / normal end (docs/behaviour.md §5.5).
 *
 * Without an emitter, `observe` and `discard` return the frames for the
 * caller to send, and the card ledger alone decides which tools get a card
 * (`ToolCallCards` `suppressedTools`).
 *
 * With `{ emitter }`, the tracker keeps Qwen Code's
 * `ToolCallPreparationTracker` contract
 * (packages/cli/src/acp-integration/session/tool-call-preparation-tracker.ts)
 * call for call: the host's emitter (Qwen's `ToolCallEmitter`, or any object
 * with the same two methods) shows the frames and decides whether a card is
 * shown at all, and is called exactly as Qwen's tracker calls it, so that a
 * host's spies and wrappers see the same calls. `observe` calls
 * `emitter.emitStart(params)` once per new preparation, one at a time, with
 * Qwen's params `{callId, toolName, args: {}, status: 'pending', phase:
 * 'preparing'}`, and awaits the answer (a value or a promise). A truthy
 * answer records the card as shown; a falsy one (Qwen's `emitStart` answers
 * `false` for a suppressed tool) records the call as suppressed: it is never
 * offered again in this stream, and no start or discard is ever built for it
 * (its card is withdrawn from the ledger). If `emitStart` throws or rejects,
 * nothing is recorded, the rest of the response's preparations wait for the
 * next `observe`, and `observe` rejects with that same error. `discard`
 * awaits `emitter.emitPreparationDiscarded(callId, toolName)` for each card
 * to discard (with a third argument, `{reason, idleLimitMs?}`, only when the
 * discard was given a cause: an emitter that takes two, as Qwen's does, is
 * called as Qwen's tracker calls it), tries them all, and rejects with the
 * first failure. Both then
 * return promises that resolve to `undefined`; a preparation still awaiting
 * its answer is neither discarded nor offered twice.
 *
 * The frame this package built for the call in progress is `tracker.frame`
 * while the emitter runs (read it synchronously, before the emitter's first
 * `await`), for a host that sends this package's frames rather than its own.
 */
class PreparationTracker {
  static {
    observeChunk = (tracker, ids, response, calls) => tracker.#observeChunk(ids, response, calls);
    callsArrived = (tracker, calls) => tracker.#callsArrived(calls);
  }

  #native = new native.NativePreparationTracker();
  #cards;
  #emitter;
  #frame;
  /** The live progress of the shown cards (lib/acp/progress.js), or null when off. */
  #progress = null;
  /** Without an emitter: callId → the card `observe` returned a frame for, until it is `sent`. */
  #unsent = new Map();
  /**
   * With an emitter: callId → the tool name of each card it showed, as the
   * preparation had it (a frame carries it bounded), for
   * `emitPreparationDiscarded`.
   */
  #shownNames = new Map();

  /**
   * @param {ToolCallCards} cards the session's cards
   * @param {{ emitter?: { emitStart: (params: object) => unknown, emitPreparationDiscarded: (callId: string, toolName: string) => unknown } }} [options]
   */
  constructor(cards, options) {
    if (!(cards instanceof ToolCallCards)) throw invalid('PreparationTracker: expected a ToolCallCards instance');
    this.#cards = cards;
    const { emitter, progress } = trackerOptions(options);
    this.#emitter = emitter;
    if (progress) {
      this.#progress = new CardProgress(internalsOf(cards, 'PreparationTracker').native, progress, (frame, card) =>
        this.#deliverProgress(frame, card, progress.send),
      );
    }
  }

  // A progress frame goes to the emitter's optional emitPreparationProgress
  // (Qwen's emitter has none: its tracker never calls one), with the frame
  // readable as `tracker.frame`, else to `progress.send`.
  #deliverProgress(frame, card, send) {
    const emitter = this.#emitter;
    if (typeof emitter?.emitPreparationProgress === 'function') {
      const params = {
        callId: card.callId,
        toolName: card.toolName,
        title: frame.title,
        progress: frame._meta.progress,
      };
      return this.#withFrame(frame, () => emitter.emitPreparationProgress(params));
    }
    return send(frame);
  }

  /**
   * Preparing frames for the response's new preparations (docs/behaviour.md §5.3
   * observe); with an emitter, a promise that settles once the emitter has
   * answered for each of them.
   */
  observe(response) {
    if (this.#emitter) return this.#observeThroughEmitter(response);
    const preparations = getToolCallPreparations(response);
    if (preparations.length === 0) return [];
    const state = internalsOf(this.#cards, 'observe');
    const list = preparations.map((p) => ({
      callId: p.callId,
      toolName: p.toolName,
      ...describeTool(state, p.toolName),
    }));
    const frames = JSON.parse(this.#native.observe(state.native, JSON.stringify(list)));
    if (this.#progress) {
      for (const frame of frames) {
        const p = list.find((entry) => entry.callId === frame.toolCallId);
        if (p) this.#unsent.set(p.callId, { ...p, response });
      }
    }
    return frames;
  }

  /**
   * One chunk of `consumeModelStream` (no emitter): what `ids.apply`,
   * `observe` and `resolve` do in turn, in at most one native call, and none
   * for a chunk with no preparation and no call (with `ids`, a chunk whose
   * content has no call part needs no id either). The response is
   * normalised in place as `ids.apply` does. `calls` is the response's
   * `functionCalls` when there are no `ids` (the caller reads them anyway).
   * Returns the preparing frames; the caller sends each and marks it
   * `sent`, then calls `#callsArrived`.
   */
  #observeChunk(ids, response, calls) {
    const chunk = ids ? idsOfChunk(response) : undefined;
    const preparations = ids ? (chunk?.preparations ?? NONE) : getToolCallPreparations(response);
    // With ids, the call parts' provider ids, to normalise; without, the
    // ids `resolve` would read of the response's calls.
    const callIds = ids ? (chunk?.calls ?? NONE) : resolvableIds(calls);
    if (preparations.length === 0 && callIds.length === 0) {
      // Most chunks of a stream (text, argument fragments): no crossing, and
      // nothing allocated beyond what the id rewrite needs.
      if (chunk) rewriteIds(response, chunk, NO_IDS);
      return NONE;
    }
    const state = internalsOf(this.#cards, 'observe');
    const list = preparations.map((p) => ({
      callId: p.callId,
      toolName: p.toolName,
      ...describeTool(state, p.toolName),
    }));
    const text = this.#native.observeChunk(
      state.native,
      ids ? nativeIdsOf(ids) : undefined,
      list.length > 0 ? JSON.stringify(list) : undefined,
      callIds,
    );
    let frames;
    let described = list;
    if (ids) {
      const out = JSON.parse(text);
      rewriteIds(response, chunk, out);
      frames = out.frames;
      if (this.#progress) described = list.map((p, i) => ({ ...p, callId: out.preparations[i] }));
    } else {
      frames = JSON.parse(text);
    }
    if (this.#progress) {
      for (const frame of frames) {
        const p = described.find((entry) => entry.callId === frame.toolCallId);
        if (p) this.#unsent.set(p.callId, { ...p, response });
      }
    }
    return frames;
  }

  // After a chunk's preparing frames are sent: the cards whose call arrived
  // in it count no more (their arguments are complete).
  #callsArrived(calls) {
    if (!this.#progress) return;
    const resolved = resolvableIds(calls);
    for (const id of resolved) this.#unsent.delete(id);
    if (resolved.length > 0) this.#progress.stop(resolved);
  }

  /**
   * Without an emitter, with progress: tells the tracker that a preparing
   * frame `observe` returned has been sent, and its card's progress starts
   * then, so no progress frame can reach a client before its card.
   * (`consumeModelStream` calls it; with an emitter, progress starts once
   * `emitStart` answers.) Any other frame is ignored.
   */
  sent(frame) {
    if (!this.#progress || !isObject(frame)) return;
    const id = frame.toolCallId;
    const card = this.#unsent.get(id);
    if (card === undefined) return;
    this.#unsent.delete(id);
    this.#progress.track(card.callId, card.toolName, card.title, card.response);
  }

  // Qwen's `observe`: the emitter is asked one preparation at a time, and its
  // failure passes through unchanged (it is the host's error, not bad input);
  // every other failure is a ToolCallStreamError.
  async #observeThroughEmitter(response) {
    const emitter = this.#emitter;
    for (const p of getToolCallPreparations(response)) {
      let state, frame, preparation;
      try {
        state = internalsOf(this.#cards, 'observe');
        preparation = { callId: p.callId, toolName: p.toolName, ...describeTool(state, p.toolName) };
        frame = JSON.parse(this.#native.offer(state.native, JSON.stringify(preparation)));
      } catch (err) {
        throw unreadable(err, 'PreparationTracker.observe');
      }
      if (frame === null) continue;
      let emitted;
      try {
        emitted = await this.#withFrame(frame, () =>
          emitter.emitStart({
            callId: p.callId,
            toolName: p.toolName,
            args: {},
            status: 'pending',
            phase: 'preparing',
          }),
        );
      } catch (err) {
        this.#native.answer(state.native, p.callId, 'failed');
        throw err;
      }
      this.#native.answer(state.native, p.callId, emitted ? 'emitted' : 'declined');
      if (emitted) this.#shownNames.set(p.callId, p.toolName);
      if (emitted && this.#progress) this.#progress.track(p.callId, p.toolName, preparation.title, response);
    }
  }

  /** Marks pending preparations whose complete call arrived (non-empty ids only). */
  resolve(functionCalls) {
    if (functionCalls == null) return;
    if (typeof functionCalls[Symbol.iterator] !== 'function') throw invalid('resolve: functionCalls must be iterable');
    const ids = [];
    for (const call of functionCalls) {
      if (isObject(call) && typeof call.id === 'string' && call.id !== '') ids.push(call.id);
    }
    if (ids.length > 0) {
      this.#native.resolve(ids);
      // The call's arguments are complete: its card counts no more.
      if (this.#progress) {
        for (const id of ids) this.#unsent.delete(id);
        this.#progress.stop(ids);
      }
    }
  }

  /**
   * Discarded frames for the pending preparations; resolved ones too when
   * `includeResolved` (retry, fallback, cancel, stream error). Clears first,
   * so a second call returns `[]`. `cause` (lib/acp/discard.js) is why, when
   * the host knows it: each frame's title says it, else a neutral `not run`.
   * With an emitter, a promise that settles once `emitPreparationDiscarded`
   * was awaited for each of them.
   * @param {boolean} [includeResolved]
   * @param {string | {reason: string, idleLimitMs?: number}} [cause]
   */
  discard(includeResolved = false, cause = undefined) {
    // Checked before anything is cleared: a bad cause discards nothing.
    const c = discardCause(cause, 'discard');
    // Every discard ends the stream or its attempt: no progress after it,
    // and no timer left running.
    this.#progress?.stopAll();
    this.#unsent.clear();
    if (this.#emitter) return this.#discardThroughEmitter(includeResolved, c);
    return JSON.parse(this.#nativeDiscard(includeResolved, c));
  }

  #nativeDiscard(includeResolved, cause) {
    return this.#native.discard(
      internalsOf(this.#cards, 'discard').native,
      Boolean(includeResolved),
      cause?.reason,
      cause?.idleLimitMs,
    );
  }

  // Qwen's `discard`: cleared before the first await, so a second discard
  // meanwhile has nothing to do; every card is tried, the first failure wins.
  // The emitter gets the cause as a third argument only when there is one,
  // so that a host's spies see Qwen's two arguments otherwise.
  async #discardThroughEmitter(includeResolved, cause) {
    let frames;
    try {
      frames = JSON.parse(this.#nativeDiscard(includeResolved, cause));
    } catch (err) {
      throw unreadable(err, 'PreparationTracker.discard');
    }
    const emitter = this.#emitter;
    const names = this.#shownNames;
    // Every card that can still be discarded is in `frames` now: the others need no name.
    this.#shownNames = new Map();
    await sendAll(frames, (frame) => {
      const toolName = names.get(frame.toolCallId) ?? frame._meta.toolName;
      return this.#withFrame(frame, () =>
        cause === undefined
          ? emitter.emitPreparationDiscarded(frame.toolCallId, toolName)
          : emitter.emitPreparationDiscarded(frame.toolCallId, toolName, { ...cause }),
      );
    });
  }

  /** Whether live progress still has a timer pending or a tick delivering. */
  get progressRunning() {
    return this.#progress?.running ?? false;
  }

  /**
   * The frame this tracker built for the emitter call in progress: the
   * preparing `tool_call` during `emitStart`, the discarded-preparation
   * update during `emitPreparationDiscarded`; `undefined` at any other time.
   * It is read synchronously, in the emitter's first synchronous part.
   */
  get frame() {
    return this.#frame;
  }

  // Calls the emitter with `frame` readable as `tracker.frame` until the call
  // returns (its synchronous part), so that the call itself stays Qwen's.
  #withFrame(frame, call) {
    this.#frame = frame;
    try {
      return call();
    } finally {
      this.#frame = undefined;
    }
  }
}

module.exports = { PreparationTracker, observeChunk, callsArrived };
