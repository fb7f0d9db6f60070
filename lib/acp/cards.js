'use strict';
// ToolCallCards: the JS face of the native card ledger (core/src/acp/cards.rs).
// Native code owns the state and builds every frame (docs/behaviour.md §6.2
// shapes, key order included); this layer validates arguments, calls
// `describe()` (JS callbacks never run from Rust) and parses the one JSON
// text each native call returns.

const { native } = require('../native.js');
const { discardCause } = require('./discard.js');
const { invalid, isObject, isPlainObjectLike, checkString, checkCallId, toJson } = require('./values.js');

// Private state of a ToolCallCards, shared with PreparationTracker.
const internals = new WeakMap();

function internalsOf(cards, what) {
  const state = internals.get(cards);
  if (!state) throw invalid(`${what}: expected a ToolCallCards instance`);
  return state;
}

/**
 * `toolName` as this package's card frames carry it (ACP's `name`,
 * `_meta.toolName`, `_meta.tool_name`): a name longer than any real tool's is
 * cut (core/src/acp/bounded_text.rs).
 */
function frameToolName(toolName) {
  return JSON.parse(native.acpFrameToolName(toolName));
}

/** A described card title as this package's card frames carry it: printable, bounded. */
function frameCardTitle(title) {
  return JSON.parse(native.acpCardTitle(title));
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
   * ACP's `name`, `_meta.phase: 'preparing'`. `null` for a suppressed tool or
   * an id whose card is already open.
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
   * field set if its card is open (prepared; ACP's `name` only if the call's
   * name is not the one the card opened with), else a new `tool_call`. `null`
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
   * `Session.runTool`): `pending`, the complete arguments, `_meta.toolName`,
   * and ACP's `name` when the request opens the card (or renames it).
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
   * `_meta.preparationDiscarded: true`, and a title saying the call did not
   * run and why (`cause`, lib/acp/discard.js: `_meta.discardReason`), or a
   * neutral `not run` without one. `null` if no card is open for the id.
   * @param {string | {reason: string, idleLimitMs?: number}} [cause]
   */
  discarded(callId, toolName, cause) {
    checkCallId(callId, 'discarded');
    checkString(toolName, 'discarded: toolName');
    const c = discardCause(cause, 'discarded');
    return JSON.parse(internalsOf(this, 'discarded').native.discarded(callId, toolName, c?.reason, c?.idleLimitMs));
  }

  /**
   * Terminal frames for every card still open, in opening order (end of
   * turn, cancel): a card still preparing is discarded, with `cause` as
   * `discarded` takes it; a started one fails with `message` (default "Tool
   * execution was cancelled").
   * @param {string} [message]
   * @param {string | {reason: string, idleLimitMs?: number}} [cause]
   */
  closeAll(message, cause) {
    if (message !== undefined) checkString(message, 'closeAll: message');
    const c = discardCause(cause, 'closeAll');
    return JSON.parse(internalsOf(this, 'closeAll').native.closeAll(message, c?.reason, c?.idleLimitMs));
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
    // The values cross whole, as JSON text; native builds only what it reads
    // of them (core/src/acp/plan.rs), so that nesting elsewhere is no limit.
    const argsText = args === undefined ? undefined : toJson(args, 'plan: args');
    const display = resultDisplay === undefined ? undefined : toJson(resultDisplay, 'plan: resultDisplay');
    return JSON.parse(native.acpPlanUpdate(argsText, display));
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

module.exports = { ToolCallCards, internalsOf, describeTool, frameToolName, frameCardTitle };
