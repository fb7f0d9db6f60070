'use strict';
// ACP tool cards: the JS face of the native card ledger (core/src/acp).
//
// Native code owns the state and builds every frame (docs/behaviour.md §6.2 shapes, key
// order included); this layer validates arguments, calls `describe()` (JS
// callbacks never run from Rust), reads and writes response objects, and runs
// the stream loop of docs/behaviour.md §6.4. Each native call takes strings and returns one
// JSON text, parsed once here.

const { native } = require('./native.js');
const { getToolCallPreparations, setToolCallPreparations } = require('./preparations.js');
const { invalidArgument, unreadable } = require('./responses.js');

/** The provider's raw tool-call id, kept on a normalised `functionCall` (docs/behaviour.md §4.1). */
const PROVIDER_TOOL_CALL_ID = Symbol('providerToolCallId');

const invalid = invalidArgument;

function isObject(value) {
  return value !== null && typeof value === 'object';
}

function isPlainObjectLike(value) {
  return isObject(value) && !Array.isArray(value);
}

function checkString(value, what) {
  if (typeof value !== 'string') throw invalid(`${what} must be a string`);
}

function checkCallId(value, what) {
  if (typeof value !== 'string' || value === '') throw invalid(`${what}: callId must be a non-empty string`);
}

function toJson(value, what) {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    const err = invalid(`${what} is not JSON-serialisable: ${cause && cause.message}`);
    err.cause = cause;
    throw err;
  }
}

/** `JSON.parse(JSON.stringify(value))`; `undefined` when nothing would be written. */
function jsonCopy(value, what) {
  const text = toJson(value, what);
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * What native reads of a TodoWrite value (docs/behaviour.md §6.3 `plan`):
 * `type`, `todos`, and each todo's `content` and `status`. Only that
 * crosses, so a value nested deeper than the native parser goes (512
 * levels) anywhere else is no error, as it is none for `JSON.parse`. A
 * field of another type crosses as `0`, which native skips as it skips any
 * non-string (or non-array). `value` is a JSON copy.
 */
function todoListStandIn(value) {
  if (!isPlainObjectLike(value)) return 0;
  const pick = (from, key, keep) => (key in from ? { [key]: keep(from[key]) ? from[key] : 0 } : {});
  const todo = (t) => (isPlainObjectLike(t) ? { ...pick(t, 'content', isString), ...pick(t, 'status', isString) } : 0);
  const todos = pick(value, 'todos', Array.isArray);
  if (todos.todos) todos.todos = todos.todos.map(todo);
  return { ...pick(value, 'type', isString), ...todos };
}

function isString(value) {
  return typeof value === 'string';
}

/** A result display as native reads it: JSON text is parsed first (as `JSON.parse`). */
function displayStandIn(display) {
  if (typeof display !== 'string') return todoListStandIn(display);
  try {
    return todoListStandIn(JSON.parse(display));
  } catch {
    return 0;
  }
}

// Private state of a ToolCallCards, shared with PreparationTracker.
const internals = new WeakMap();

function internalsOf(cards, what) {
  const state = internals.get(cards);
  if (!state) throw invalid(`${what}: expected a ToolCallCards instance`);
  return state;
}

/** `describe(toolName)` → `{title, kind}`, keeping only string values. */
function describeTool(state, toolName) {
  if (!state.describe) return {};
  const d = state.describe(toolName);
  if (!isObject(d)) return {};
  return {
    title: typeof d.title === 'string' ? d.title : undefined,
    kind: typeof d.kind === 'string' ? d.kind : undefined,
  };
}

/**
 * The tool cards of one ACP session: what Qwen Code's `ToolCallEmitter`
 * tracks (docs/behaviour.md §5.4), plus a ledger of open cards so that a
 * `tool_call_update` is never built for an id the client has not seen (such
 * methods return `null` instead), and every opened card ends exactly once.
 */
class ToolCallCards {
  /**
   * @param {{ suppressedTools?: string[], describe?: (toolName: string) => { title?: string, kind?: string } }} [options]
   *   `suppressedTools` replaces the default `['todo_write']` (docs/behaviour.md §6.3: no
   *   card ever). `describe` gives a card's title and kind for a tool name;
   *   kind is a Qwen `Kind` or ACP kind, mapped per docs/behaviour.md §6.2.
   */
  constructor(options = {}) {
    if (!isPlainObjectLike(options)) throw invalid('ToolCallCards: options must be an object');
    const { suppressedTools, describe } = options;
    if (
      suppressedTools !== undefined &&
      (!Array.isArray(suppressedTools) || !suppressedTools.every((t) => typeof t === 'string'))
    ) {
      throw invalid('ToolCallCards: suppressedTools must be an array of strings');
    }
    if (describe !== undefined && typeof describe !== 'function') {
      throw invalid('ToolCallCards: describe must be a function');
    }
    internals.set(this, {
      native: new native.NativeToolCallCards(suppressedTools === undefined ? undefined : [...suppressedTools]),
      describe,
    });
  }

  /**
   * The preparing `tool_call` (docs/behaviour.md §6.2): `pending`, `rawInput: {}`,
   * `_meta.phase: 'preparing'`. `null` for a suppressed tool or an id whose
   * card is already open.
   */
  preparing(callId, toolName) {
    checkCallId(callId, 'preparing');
    checkString(toolName, 'preparing: toolName');
    const state = internalsOf(this, 'preparing');
    const { title, kind } = describeTool(state, toolName);
    return JSON.parse(state.native.preparing(callId, toolName, title, kind));
  }

  /**
   * A complete call reaching execution: `tool_call_update` with the full
   * field set if its card is open (prepared), else a new `tool_call`. `null`
   * for a suppressed tool. `status` defaults to `'in_progress'`; pass
   * `'pending'` while a permission request is outstanding. Title and kind
   * default to `describe(toolName)`.
   * @param {{ callId: string, toolName: string, rawInput: object, title?: string, kind?: string, locations?: {path: string, line?: number | null}[], status?: 'pending' | 'in_progress' }} call
   */
  started(call) {
    if (!isPlainObjectLike(call)) throw invalid('started: call must be an object');
    const { callId, toolName, rawInput = {}, locations, status } = call;
    checkCallId(callId, 'started');
    checkString(toolName, 'started: toolName');
    if (!isPlainObjectLike(rawInput)) throw invalid('started: rawInput must be an object');
    const state = internalsOf(this, 'started');
    let { title, kind } = call;
    if (title === undefined || kind === undefined) {
      const d = describeTool(state, toolName);
      if (title === undefined) title = d.title;
      if (kind === undefined) kind = d.kind;
    }
    // rawInput never crosses: native frames carry `{}` in its place (what
    // native does not read does not cross; a JS value may nest deeper than
    // any native parser should recurse), and the frame gets what
    // JSON.parse(JSON.stringify(rawInput)) gives.
    const input = JSON.parse(toJson(rawInput, 'started: rawInput'));
    if (!isPlainObjectLike(input)) throw invalid('started: rawInput must be an object');
    const text = toJson({ callId, toolName, title, kind, locations, status }, 'started: call');
    const frame = JSON.parse(state.native.started(text));
    if (frame !== null && 'rawInput' in frame) frame.rawInput = input;
    return frame;
  }

  /**
   * The `toolCall` of a `session/request_permission` request (Qwen Code's
   * `Session.runTool`): `pending`, the complete arguments, `_meta.toolName`.
   * It replaces the start frame: the card stays the same one (one
   * `toolCallId`) whether it was prepared or is opened by the request itself,
   * and it still gets exactly one terminal frame from `finished` / `failed`
   * (allowed or rejected) or `closeAll` (never answered). `null` for a
   * suppressed tool. Title and kind default to `describe(toolName)`.
   * @param {{ callId: string, toolName: string, rawInput: object, title?: string, kind?: string, locations?: {path: string, line?: number | null}[] }} call
   * @param {object[]} [content] what the user is asked about (e.g. a `diff`)
   */
  permission(call, content = []) {
    if (!isPlainObjectLike(call)) throw invalid('permission: call must be an object');
    const { callId, toolName, rawInput = {}, locations } = call;
    checkCallId(callId, 'permission');
    checkString(toolName, 'permission: toolName');
    if (!isPlainObjectLike(rawInput)) throw invalid('permission: rawInput must be an object');
    if (!Array.isArray(content) || !content.every(isPlainObjectLike)) {
      throw invalid('permission: content must be an array of objects');
    }
    const state = internalsOf(this, 'permission');
    let { title, kind } = call;
    if (title === undefined || kind === undefined) {
      const d = describeTool(state, toolName);
      if (title === undefined) title = d.title;
      if (kind === undefined) kind = d.kind;
    }
    // rawInput and content never cross (see started()): the frame gets what
    // JSON.parse(JSON.stringify(…)) gives, native sees stand-ins.
    const input = JSON.parse(toJson(rawInput, 'permission: rawInput'));
    if (!isPlainObjectLike(input)) throw invalid('permission: rawInput must be an object');
    const items = JSON.parse(toJson(content, 'permission: content'));
    if (!Array.isArray(items) || !items.every(isPlainObjectLike)) {
      throw invalid('permission: content must be an array of objects');
    }
    const text = toJson({ callId, toolName, title, kind, locations }, 'permission: call');
    const frame = JSON.parse(
      state.native.permission(
        text,
        toJson(
          items.map(() => ({})),
          'permission: content',
        ),
      ),
    );
    if (frame !== null) {
      frame.content = items;
      frame.rawInput = input;
    }
    return frame;
  }

  /**
   * The terminal `tool_call_update` (docs/behaviour.md §6.2 "Result"/"Error"); `rawOutput`
   * is sent only when not `undefined`. `null` when no card is open for the
   * id, which is always so for suppressed tools: send {@link ToolCallCards#plan}
   * for TodoWrite instead.
   * @param {{ status: 'completed' | 'failed', content?: object[], rawOutput?: unknown }} result
   */
  finished(callId, toolName, result) {
    checkCallId(callId, 'finished');
    checkString(toolName, 'finished: toolName');
    if (!isPlainObjectLike(result)) throw invalid('finished: result must be an object');
    const { status, content, rawOutput } = result;
    const state = internalsOf(this, 'finished');
    // content and rawOutput never cross either (see started()): native checks
    // stand-ins of the same shape (`0` for what is not an object, which it
    // refuses), and the frame gets what JSON.parse(JSON.stringify(…)) gives.
    const copy = JSON.parse(toJson({ content, rawOutput }, 'finished: result'));
    const items = Array.isArray(copy.content) ? copy.content : undefined;
    const standIns = {
      status,
      content: items ? items.map((item) => (isPlainObjectLike(item) ? {} : 0)) : copy.content == null ? null : 0,
      rawOutput: 'rawOutput' in copy ? null : undefined,
    };
    const frame = JSON.parse(state.native.finished(callId, toolName, toJson(standIns, 'finished: result')));
    if (frame !== null) {
      if (items) frame.content = items;
      if ('rawOutput' in frame) frame.rawOutput = copy.rawOutput;
    }
    return frame;
  }

  /**
   * A failed result carrying one text item (Qwen's `emitError`).
   */
  failed(callId, toolName, message) {
    checkString(message, 'failed: message');
    return this.finished(callId, toolName, {
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: message } }],
    });
  }

  /**
   * The discarded-preparation frame (docs/behaviour.md §6.2): `failed`, `content: []`,
   * `_meta.preparationDiscarded: true`. `null` if no card is open for the id.
   */
  discarded(callId, toolName) {
    checkCallId(callId, 'discarded');
    checkString(toolName, 'discarded: toolName');
    return JSON.parse(internalsOf(this, 'discarded').native.discarded(callId, toolName));
  }

  /**
   * Terminal frames for every card still open, in opening order (end of
   * turn, cancel): a card still preparing is discarded; a started one fails
   * with `message` (default "Tool execution was cancelled").
   * @param {string} [message]
   */
  closeAll(message) {
    if (message !== undefined) checkString(message, 'closeAll: message');
    return JSON.parse(internalsOf(this, 'closeAll').native.closeAll(message));
  }

  /**
   * docs/behaviour.md §6.3: the `plan` update that replaces TodoWrite's card, or `null`.
   * Todos come from a `{type:'todo_list', todos}` result display (object or
   * JSON text), else from `args.todos`; an empty plan is sent when
   * `args.todos` is an array but no valid todo was found.
   * @param {object} [args] the TodoWrite call's arguments
   * @param {unknown} [resultDisplay] the tool's result display
   */
  plan(args, resultDisplay) {
    // Native sees stand-ins of what it reads (see todoListStandIn).
    const argsCopy = args === undefined ? undefined : jsonCopy(args, 'plan: args');
    const display = resultDisplay === undefined ? undefined : jsonCopy(resultDisplay, 'plan: resultDisplay');
    return JSON.parse(
      native.acpPlanUpdate(
        argsCopy === undefined ? undefined : JSON.stringify(todoListStandIn(argsCopy)),
        display === undefined ? undefined : JSON.stringify(displayStandIn(display)),
      ),
    );
  }

  /** Whether a card is open for `callId`. */
  isOpen(callId) {
    checkString(callId, 'isOpen: callId');
    return internalsOf(this, 'isOpen').native.isOpen(callId);
  }

  /** Ids of the open cards, in opening order. */
  openIds() {
    return JSON.parse(internalsOf(this, 'openIds').native.openIds());
  }
}

/** The options of a PreparationTracker, checked; `emitter` kept as given. */
function trackerOptions(options) {
  if (options === undefined) return {};
  if (!isPlainObjectLike(options)) throw invalid('PreparationTracker: options must be an object');
  const { emitter } = options;
  if (emitter === undefined) return {};
  if (!isObject(emitter) && typeof emitter !== 'function') {
    throw invalid('PreparationTracker: options.emitter must be an object');
  }
  for (const method of ['emitStart', 'emitPreparationDiscarded']) {
    if (typeof emitter[method] !== 'function') {
      throw invalid(`PreparationTracker: options.emitter.${method} must be a function`);
    }
  }
  return { emitter };
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
 * (packages/cli/src/acp-integration/session/tool-call-preparation-tracker.ts):
 * the host's emitter (Qwen's `ToolCallEmitter`, or any object with the same
 * two methods) shows the frames and decides whether a card is shown at all.
 * `observe` calls `emitter.emitStart(params, frame)` once per new
 * preparation, one at a time, with Qwen's params
 * `{callId, toolName, args: {}, status: 'pending', phase: 'preparing'}` and
 * this package's preparing frame, and awaits the answer (a value or a
 * promise). A truthy answer records the card as shown; a falsy one (Qwen's
 * `emitStart` answers `false` for a suppressed tool) records the call as
 * suppressed: it is never offered again in this stream, and no start or
 * discard is ever built for it (its card is withdrawn from the ledger). If
 * `emitStart` throws or rejects, nothing is recorded, the rest of the
 * response's preparations wait for the next `observe`, and `observe` rejects
 * with that same error. `discard` awaits
 * `emitter.emitPreparationDiscarded(callId, toolName, frame)` for each card to
 * discard, tries them all, and rejects with the first failure. Both then
 * return promises that resolve to `undefined`; a preparation still awaiting
 * its answer is neither discarded nor offered twice.
 */
class PreparationTracker {
  #native = new native.NativePreparationTracker();
  #cards;
  #emitter;

  /**
   * @param {ToolCallCards} cards the session's cards
   * @param {{ emitter?: { emitStart: (params: object, frame: object) => unknown, emitPreparationDiscarded: (callId: string, toolName: string, frame: object) => unknown } }} [options]
   */
  constructor(cards, options) {
    if (!(cards instanceof ToolCallCards)) throw invalid('PreparationTracker: expected a ToolCallCards instance');
    this.#cards = cards;
    this.#emitter = trackerOptions(options).emitter;
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
    return JSON.parse(this.#native.observe(state.native, JSON.stringify(list)));
  }

  // Qwen's `observe`: the emitter is asked one preparation at a time, and its
  // failure passes through unchanged (it is the host's error, not bad input);
  // every other failure is a ToolCallStreamError.
  async #observeThroughEmitter(response) {
    const emitter = this.#emitter;
    for (const p of getToolCallPreparations(response)) {
      let state, frame;
      try {
        state = internalsOf(this.#cards, 'observe');
        const preparation = { callId: p.callId, toolName: p.toolName, ...describeTool(state, p.toolName) };
        frame = JSON.parse(this.#native.offer(state.native, JSON.stringify(preparation)));
      } catch (err) {
        throw unreadable(err, 'PreparationTracker.observe');
      }
      if (frame === null) continue;
      let emitted;
      try {
        emitted = await emitter.emitStart(
          { callId: p.callId, toolName: p.toolName, args: {}, status: 'pending', phase: 'preparing' },
          frame,
        );
      } catch (err) {
        this.#native.answer(state.native, p.callId, 'failed');
        throw err;
      }
      this.#native.answer(state.native, p.callId, emitted ? 'emitted' : 'declined');
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
    if (ids.length > 0) this.#native.resolve(ids);
  }

  /**
   * Discarded frames for the pending preparations; resolved ones too when
   * `includeResolved` (retry, fallback, cancel, stream error). Clears first,
   * so a second call returns `[]`. With an emitter, a promise that settles
   * once `emitPreparationDiscarded` was awaited for each of them.
   */
  discard(includeResolved = false) {
    if (this.#emitter) return this.#discardThroughEmitter(includeResolved);
    return JSON.parse(this.#native.discard(internalsOf(this.#cards, 'discard').native, Boolean(includeResolved)));
  }

  // Qwen's `discard`: cleared before the first await, so a second discard
  // meanwhile has nothing to do; every card is tried, the first failure wins.
  async #discardThroughEmitter(includeResolved) {
    let frames;
    try {
      frames = JSON.parse(this.#native.discard(internalsOf(this.#cards, 'discard').native, Boolean(includeResolved)));
    } catch (err) {
      throw unreadable(err, 'PreparationTracker.discard');
    }
    const emitter = this.#emitter;
    await sendAll(frames, (frame) => emitter.emitPreparationDiscarded(frame.toolCallId, frame._meta.toolName, frame));
  }
}

/** docs/behaviour.md §4.1 `syncFunctionCallsField`: shadow the SDK getter with the normalised calls. */
function syncFunctionCallsField(response, parts) {
  const calls = parts.map((part) => part && part.functionCall).filter(Boolean);
  const value = calls.length > 0 ? calls : undefined;
  let owner = response;
  let descriptor;
  while (owner && !descriptor) {
    descriptor = Object.getOwnPropertyDescriptor(owner, 'functionCalls');
    owner = Object.getPrototypeOf(owner);
  }
  if (descriptor && descriptor.set) {
    response.functionCalls = value;
    return;
  }
  if (!descriptor || descriptor.writable || descriptor.get) {
    Object.defineProperty(response, 'functionCalls', { value, writable: true, configurable: true, enumerable: true });
  }
}

function modelParts(response) {
  const candidates = response.candidates;
  const content = Array.isArray(candidates) && isObject(candidates[0]) ? candidates[0].content : undefined;
  return isObject(content) && Array.isArray(content.parts) ? content : undefined;
}

function rawCallId(functionCall) {
  return typeof functionCall.id === 'string' && functionCall.id !== '' ? functionCall.id : null;
}

/**
 * GeminiChat's per-attempt id normalisation (docs/behaviour.md §4.1). One per attempt: a
 * retry or fallback starts a new one from the same history.
 */
class ToolCallIds {
  #native;

  /** @param {Iterable<string>} [historyIds] every functionCall / functionResponse id in history */
  constructor(historyIds = []) {
    if (historyIds === null || typeof historyIds[Symbol.iterator] !== 'function') {
      throw invalid('ToolCallIds: historyIds must be an iterable of strings');
    }
    const ids = [...historyIds];
    if (!ids.every((id) => typeof id === 'string')) throw invalid('ToolCallIds: historyIds must be strings');
    this.#native = new native.NativeToolCallIds(ids);
  }

  /**
   * Rewrites the response in place: preparations first (reserved ids), then
   * `functionCall` parts (same-attempt duplicates dropped, absent ids
   * generated, the provider id kept under {@link getProviderToolCallId}),
   * then `response.functionCalls` becomes an own property with the
   * normalised calls. Non-string ids count as absent.
   */
  apply(response) {
    if (!isObject(response)) throw invalid('ToolCallIds.apply: response must be an object');
    const preparations = getToolCallPreparations(response);
    const content = modelParts(response);
    if (preparations.length === 0 && !content) return;
    const parts = content ? content.parts : [];
    const rawIds = [];
    for (const part of parts) {
      if (isObject(part) && isObject(part.functionCall)) rawIds.push(rawCallId(part.functionCall));
    }
    const out = JSON.parse(
      this.#native.apply(JSON.stringify({ preparations: preparations.map((p) => p.callId), calls: rawIds })),
    );
    if (preparations.length > 0) {
      setToolCallPreparations(
        response,
        preparations.map((p, i) => ({ ...p, callId: out.preparations[i] })),
      );
    }
    if (!content) return;
    const normalized = [];
    let k = 0;
    for (const part of parts) {
      if (!(isObject(part) && isObject(part.functionCall))) {
        normalized.push(part);
        continue;
      }
      const id = out.calls[k];
      const raw = rawIds[k];
      k += 1;
      if (id === null) continue; // a same-attempt duplicate
      const functionCall = { ...part.functionCall, id };
      if (raw !== null) Object.defineProperty(functionCall, PROVIDER_TOOL_CALL_ID, { value: raw, enumerable: false });
      normalized.push({ ...part, functionCall });
    }
    content.parts = normalized;
    syncFunctionCallsField(response, normalized);
  }
}

/** The provider's raw id of a normalised `functionCall`, or `undefined`. */
function getProviderToolCallId(functionCall) {
  return isObject(functionCall) ? functionCall[PROVIDER_TOOL_CALL_ID] : undefined;
}

function functionCallsOf(response) {
  // A GenerateContentResponse has the SDK getter; a normalised response has
  // an own property; a plain object has neither.
  if ('functionCalls' in response) return response.functionCalls;
  const content = modelParts(response);
  if (!content) return undefined;
  const calls = content.parts.filter((p) => isObject(p) && isObject(p.functionCall)).map((p) => p.functionCall);
  return calls.length > 0 ? calls : undefined;
}

/** Sends every frame, awaiting each; rethrows the first failure after trying all (docs/behaviour.md §5.3 discard). */
async function sendAll(frames, send) {
  let failure;
  let failed = false;
  for (const frame of frames) {
    try {
      await send(frame);
    } catch (err) {
      if (!failed) failure = err;
      failed = true;
    }
  }
  if (failed) throw failure;
}

/** consumeModelStream's arguments, checked; `historyIds` copied. */
function streamOptions(events, options) {
  if (
    !isObject(events) ||
    (typeof events[Symbol.asyncIterator] !== 'function' && typeof events[Symbol.iterator] !== 'function')
  ) {
    throw invalid('consumeModelStream: events must be an (async) iterable');
  }
  if (!isPlainObjectLike(options)) throw invalid('consumeModelStream: options must be an object');
  const { cards, send, signal, historyIds, onDiscardError } = options;
  if (!(cards instanceof ToolCallCards)) throw invalid('consumeModelStream: options.cards must be a ToolCallCards');
  if (typeof send !== 'function') throw invalid('consumeModelStream: options.send must be a function');
  if (signal !== undefined && !(isObject(signal) && typeof signal.aborted === 'boolean')) {
    throw invalid('consumeModelStream: options.signal must be an AbortSignal');
  }
  if (onDiscardError !== undefined && typeof onDiscardError !== 'function') {
    throw invalid('consumeModelStream: options.onDiscardError must be a function');
  }
  return { cards, send, signal, history: historyIds === undefined ? undefined : [...historyIds], onDiscardError };
}

/**
 * The one stream-loop body of docs/behaviour.md §6.4 (Qwen copies it into four paths).
 * Per chunk: text / thought frames, then preparing cards, then call
 * collection. `retry` / `model_fallback` discard every card of the abandoned
 * attempt (resolved too) and clear the collected calls; `compressed` is
 * ignored. A thrown stream error or an aborted signal discards everything; a
 * normal end discards only cards whose call never arrived, leaving the rest
 * open for execution. Discard failures never change the outcome.
 *
 * With `historyIds`, chunks are id-normalised here (a fresh
 * {@link ToolCallIds} per attempt); leave it out if the stream already is.
 *
 * @param {AsyncIterable<{type: string, value?: object}> | Iterable<{type: string, value?: object}>} events
 * @param {{ cards: ToolCallCards, send: (update: object) => unknown, signal?: AbortSignal, historyIds?: Iterable<string>, onDiscardError?: (error: unknown) => void }} options
 * @returns {Promise<{ functionCalls: object[], usage?: object, cancelled?: true }>}
 */
async function consumeModelStream(events, options) {
  let cards, send, signal, history, onDiscardError;
  try {
    ({ cards, send, signal, history, onDiscardError } = streamOptions(events, options));
  } catch (err) {
    throw unreadable(err, 'consumeModelStream');
  }
  const newAttemptIds = () => (history === undefined ? undefined : new ToolCallIds(history));

  const tracker = new PreparationTracker(cards);
  let ids = newAttemptIds();
  let functionCalls = [];
  let usage;
  let streamFailed = false;

  // Qwen's finalizeToolCallPreparations: discard, and swallow failures.
  const finalize = async (includeResolved) => {
    try {
      await sendAll(tracker.discard(includeResolved), send);
    } catch (err) {
      if (onDiscardError) {
        try {
          onDiscardError(err);
        } catch {
          // A failing observer must not change the outcome either.
        }
      }
    }
  };

  try {
    for await (const event of events) {
      if (signal && signal.aborted) break;
      if (!isObject(event) || typeof event.type !== 'string') {
        throw invalid('consumeModelStream: each event must be an object with a string type');
      }
      if (event.type === 'chunk') {
        const response = event.value;
        if (!isObject(response)) throw invalid('consumeModelStream: a chunk event needs a response value');
        if (ids) ids.apply(response);
        const content = modelParts(response);
        if (content) {
          for (const part of content.parts) {
            if (isObject(part) && typeof part.text === 'string' && part.text !== '') {
              await send({
                sessionUpdate: part.thought ? 'agent_thought_chunk' : 'agent_message_chunk',
                content: { type: 'text', text: part.text },
              });
            }
          }
        }
        if (response.usageMetadata) usage = response.usageMetadata;
        for (const frame of tracker.observe(response)) await send(frame);
        const calls = functionCallsOf(response);
        if (calls && calls.length > 0) {
          tracker.resolve(calls);
          functionCalls.push(...calls);
        }
      } else if (event.type === 'retry' || event.type === 'model_fallback') {
        await finalize(true);
        functionCalls = [];
        ids = newAttemptIds();
      }
    }
  } catch (err) {
    streamFailed = true;
    throw err;
  } finally {
    await finalize(streamFailed || Boolean(signal && signal.aborted));
  }
  if (signal && signal.aborted) {
    // docs/behaviour.md §6.6: the collected calls are never executed.
    return usage === undefined ? { functionCalls: [], cancelled: true } : { functionCalls: [], usage, cancelled: true };
  }
  return usage === undefined ? { functionCalls } : { functionCalls, usage };
}

/**
 * One error channel: whatever a public method or constructor of `Class`
 * throws (a hostile argument's getter, a `describe()` that throws, a native
 * error) reaches the caller as a ToolCallStreamError.
 */
function guardClass(Class) {
  const proto = Class.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === 'constructor' || typeof d.value !== 'function') continue;
    const method = d.value;
    const what = `${Class.name}.${key}`;
    const value = {
      [key](...args) {
        try {
          return method.apply(this, args);
        } catch (err) {
          throw unreadable(err, what);
        }
      },
    }[key];
    Object.defineProperty(proto, key, { ...d, value });
  }
  return new Proxy(Class, {
    construct(target, args, newTarget) {
      try {
        return Reflect.construct(target, args, newTarget);
      } catch (err) {
        throw unreadable(err, Class.name);
      }
    },
  });
}

module.exports = {
  ToolCallCards: guardClass(ToolCallCards),
  PreparationTracker: guardClass(PreparationTracker),
  ToolCallIds: guardClass(ToolCallIds),
  consumeModelStream,
  getProviderToolCallId(functionCall) {
    try {
      return getProviderToolCallId(functionCall);
    } catch (err) {
      throw unreadable(err, 'getProviderToolCallId');
    }
  },
};
