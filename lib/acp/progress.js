'use strict';
// Live progress on preparing cards: while a call's arguments stream, its
// card is updated with how far they have come (counts only, never a byte of
// them) and, once they stop growing, with how long and why. One timer per
// model stream (per PreparationTracker), running only while a card is
// tracked; each tick reads each converter once (lib/progress.js) and the
// card ledger builds the frame (core/src/acp/progress.rs), refusing it for a
// card that is no longer preparing. A stalled card names the host's idle
// limit when the host gives one (`idleLimitMs`).

const { performance } = require('node:perf_hooks');
const { progressSourceOf } = require('../progress.js');
const { invalid, isPlainObjectLike } = require('./values.js');
const { frameCardTitle } = require('./cards.js');
const { isIdleLimit } = require('./discard.js');

/** The rate, by default: see docs/api.md "Live progress on preparing cards". */
const DEFAULTS = Object.freeze({ intervalMs: 250, stallMs: 5000, stallIntervalMs: 1000 });

/** GeminiChat's id for a reused provider id (docs/behaviour.md §4.1): `<raw>__qwen_dup_<n>`. */
const DUPLICATE_ID = /^(.*)__qwen_dup_\d+$/s;

/** Who gives up at the idle limit, as a stalled card's title names it, unless the host names itself. */
const DEFAULT_HOST_NAME = 'the agent';

/**
 * The `progress` option, checked: `undefined` / `false` (off), `true`
 * (the defaults), or `{ intervalMs, stallMs, stallIntervalMs, idleLimitMs,
 * hostName, send, onError }`. `intervalMs` (at most one frame per card this
 * often, and a change is shown at the next tick) must be 10–1000 so that
 * while bytes arrive no visible change is more than a second apart; the
 * stall times must be positive. `idleLimitMs` is the host's own idle limit
 * (it abandons a stream after that long without data), a positive whole
 * number of milliseconds: a stalled card names it, as `hostName` (default
 * "the agent") `gives up at <limit>`. Returns null when off.
 */
function progressOptions(value, what) {
  if (value === undefined || value === false) return null;
  if (value === true) return { ...DEFAULTS };
  if (!isPlainObjectLike(value)) throw invalid(`${what}: progress must be a boolean or an object`);
  const out = { ...DEFAULTS };
  for (const key of ['intervalMs', 'stallMs', 'stallIntervalMs']) {
    const v = value[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw invalid(`${what}: progress.${key} must be a positive number of milliseconds`);
    }
    out[key] = v;
  }
  if (out.intervalMs < 10 || out.intervalMs > 1000) {
    throw invalid(`${what}: progress.intervalMs must be between 10 and 1000`);
  }
  if (value.idleLimitMs !== undefined) {
    if (!isIdleLimit(value.idleLimitMs)) {
      throw invalid(`${what}: progress.idleLimitMs must be a positive whole number of milliseconds`);
    }
    out.idleLimitMs = value.idleLimitMs;
  }
  if (value.hostName !== undefined) {
    if (typeof value.hostName !== 'string' || value.hostName.trim() === '') {
      throw invalid(`${what}: progress.hostName must be a non-empty string`);
    }
    // Bounded and made printable where the title is built (core/src/acp/discard.rs host_name).
    out.hostName = value.hostName;
  }
  for (const key of ['send', 'onError']) {
    const v = value[key];
    if (v !== undefined && typeof v !== 'function') throw invalid(`${what}: progress.${key} must be a function`);
    out[key] = v;
  }
  return out;
}

/** The snapshot entry of `callId`: the same id, or the provider's id of a normalised one. */
function findCall(calls, callId) {
  let found = calls.find((c) => c.callId === callId);
  if (!found) {
    const raw = DUPLICATE_ID.exec(callId);
    if (raw) found = calls.find((c) => c.callId === raw[1]);
  }
  return found;
}

/**
 * The progress of one model stream's preparing cards. `deliver(frame,
 * card)` hands a frame on (the tracker's `send`, or the host emitter's
 * `emitPreparationProgress`); it is awaited, one frame at a time, and a
 * tick never starts while the last one is still delivering, so a slow
 * transport gets fewer frames, never a queue. A failed delivery is given
 * to `onError` and stops nothing else.
 */
class CardProgress {
  #cards;
  #options;
  #deliver;
  /** callId → card state, in the order the cards opened. */
  #tracked = new Map();
  #timer = null;
  #ticking = false;

  /**
   * @param {object} cards the native card ledger (`NativeToolCallCards`)
   * @param {{intervalMs: number, stallMs: number, stallIntervalMs: number, onError?: Function}} options
   * @param {(frame: object, card: {callId: string, toolName: string}) => unknown} deliver
   */
  constructor(cards, options, deliver) {
    this.#cards = cards;
    this.#options = options;
    this.#deliver = deliver;
  }

  /**
   * Starts counting a card that was just shown for a preparation of
   * `response`. A response no converter of this package made has no
   * progress source: its card gets no progress frames.
   */
  track(callId, toolName, title, response) {
    this.trackSource(callId, toolName, title, progressSourceOf(response));
  }

  /**
   * {@link CardProgress#track} with the converter itself (`argumentProgress()`), or nothing.
   * `idleLimitMs`, when given, is this card's host idle limit in place of the option's (a host
   * whose limit depends on the model, as Qwen's does).
   */
  trackSource(callId, toolName, title, source, idleLimitMs) {
    if (!source || this.#tracked.has(callId)) return;
    const now = performance.now();
    this.#tracked.set(callId, {
      callId,
      toolName,
      // Bounded once, so a tick never carries more of it across.
      title: typeof title === 'string' ? frameCardTitle(title) : undefined,
      source,
      openedAt: now,
      bytes: 0,
      lines: 0,
      lastGrowth: now,
      lastInput: now,
      received: undefined,
      shownBytes: 0,
      shownLines: 0,
      shownStall: undefined,
      lastFrame: now,
      idleLimitMs: isIdleLimit(idleLimitMs) ? idleLimitMs : this.#options.idleLimitMs,
    });
    this.#schedule();
  }

  /**
   * How long, in milliseconds, the converter of a tracked card has received
   * nothing at all (no byte of the raw body, no SDK object), read now; at
   * most that long, since a silence is noticed at a tick. `undefined` for a
   * card not tracked, or whose converter cannot answer.
   */
  quietMs(callId) {
    const card = this.#tracked.get(callId);
    if (!card) return undefined;
    let snapshot;
    try {
      snapshot = card.source.argumentProgress();
    } catch {
      return undefined;
    }
    if (!snapshot || typeof snapshot.received !== 'number') return undefined;
    if (snapshot.received !== card.received) return 0;
    return performance.now() - card.lastInput;
  }

  /** The host idle limit of a tracked card, or `undefined`. */
  idleLimitOf(callId) {
    return this.#tracked.get(callId)?.idleLimitMs;
  }

  /** No more frames for these cards (their call arrived, or they ended). */
  stop(callIds) {
    for (const id of callIds) this.#tracked.delete(id);
    if (this.#tracked.size === 0) this.#cancel();
  }

  /** No more frames for any card; the timer is gone. */
  stopAll() {
    this.#tracked.clear();
    this.#cancel();
  }

  /** Whether a timer is pending (for tests: a stream that ended leaves none). */
  get running() {
    return this.#timer !== null || this.#ticking;
  }

  #cancel() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #schedule() {
    if (this.#timer !== null || this.#ticking || this.#tracked.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#tick().then(
        () => this.#schedule(),
        (err) => this.#report(err),
      );
    }, this.#options.intervalMs);
  }

  #report(err) {
    const onError = this.#options.onError;
    if (!onError) return;
    try {
      onError(err);
    } catch {
      // A failing observer changes nothing either.
    }
  }

  async #tick() {
    this.#ticking = true;
    try {
      const now = performance.now();
      const snapshots = new Map();
      const due = [];
      for (const card of this.#tracked.values()) {
        let snapshot = snapshots.get(card.source);
        if (snapshot === undefined) {
          try {
            snapshot = card.source.argumentProgress();
          } catch (err) {
            // A converter that cannot answer (freed, failed) has no open calls.
            this.#report(err);
            snapshot = null;
          }
          snapshots.set(card.source, snapshot);
        }
        const call = snapshot && findCall(snapshot.calls, card.callId);
        if (!call) {
          // The arguments are complete (the call closed), or the stream ended.
          due.push([card, null]);
          continue;
        }
        if (call.argumentBytes > card.bytes) {
          card.bytes = call.argumentBytes;
          card.lastGrowth = now;
        }
        card.lines = Math.max(card.lines, call.argumentLines);
        card.keepAlivesVisible = snapshot.keepAlivesVisible !== false;
        if (snapshot.received !== card.received) {
          if (card.received !== undefined) card.lastInput = now;
          card.received = snapshot.received;
        }
        const frame = this.#frameIfDue(card, now);
        if (frame !== undefined) due.push([card, frame]);
      }
      for (const [card, frame] of due) {
        if (this.#tracked.get(card.callId) !== card) continue; // stopped meanwhile
        if (frame === null) {
          this.#tracked.delete(card.callId);
          continue;
        }
        const built = this.#build(card, frame);
        if (built === null) {
          // The ledger says the card is no longer preparing.
          this.#tracked.delete(card.callId);
          continue;
        }
        card.lastFrame = now;
        card.shownBytes = frame.argumentBytes;
        card.shownLines = frame.argumentLines;
        card.shownStall = frame.stalled;
        try {
          await this.#deliver(built, card);
        } catch (err) {
          this.#report(err);
        }
      }
    } finally {
      this.#ticking = false;
    }
  }

  /** The progress to show now, or undefined when nothing visible changed. */
  #frameIfDue(card, now) {
    const { stallMs, stallIntervalMs, intervalMs } = this.#options;
    const idleMs = now - card.lastGrowth;
    // 'connection' only where the converter sees keep-alives (it takes the
    // raw body): fed SDK objects, it cannot tell a silent connection from a
    // quiet model on a live one, and says the model is awaited.
    let stalled;
    if (idleMs >= stallMs) {
      stalled = card.keepAlivesVisible && now - card.lastInput >= stallMs ? 'connection' : 'model';
    }
    const sinceFrame = now - card.lastFrame;
    // A tick can come a little early: allow for the timer's jitter.
    const grown = card.bytes !== card.shownBytes || card.lines !== card.shownLines;
    const show = stalled
      ? stalled !== card.shownStall || sinceFrame >= stallIntervalMs * 0.95
      : grown && sinceFrame >= intervalMs * 0.95;
    if (!show) return undefined;
    return {
      argumentBytes: card.bytes,
      argumentLines: card.lines,
      elapsedMs: Math.floor(now - card.openedAt),
      idleMs: Math.floor(idleMs),
      stalled,
    };
  }

  #build(card, p) {
    const { idleLimitMs } = card;
    const hostName = this.#options.hostName ?? DEFAULT_HOST_NAME;
    return JSON.parse(
      this.#cards.progress(
        card.callId,
        card.title,
        p.argumentBytes,
        p.argumentLines,
        p.elapsedMs,
        p.idleMs,
        p.stalled,
        idleLimitMs,
        hostName,
      ),
    );
  }
}

module.exports = { CardProgress, progressOptions, DEFAULTS };
