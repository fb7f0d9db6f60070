// Types of lib/acp/ (ACP tool cards), re-exported by index.d.ts.

/** An ACP `session/update` payload: the value of `params.update` (docs/behaviour.md §6.2). */
export type SessionUpdate =
  | ToolCallFrame
  | ToolCallUpdateFrame
  | PlanFrame
  | { sessionUpdate: 'agent_message_chunk' | 'agent_thought_chunk'; content: { type: 'text'; text: string } };

export type ToolKind =
  'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';

export interface ToolCallMeta {
  /** The tool name under Qwen Code's key (at most 120 characters: a longer one is cut, ending in `…`). */
  toolName: string;
  /** The same name under Zed's key (the only one Zed reads). */
  tool_name: string;
  /** Only on preparing and discarded frames. */
  phase?: 'preparing';
  /** Only on a discarded preparation: remove the card rather than show a failed tool. */
  preparationDiscarded?: true;
  /** Only on a discarded preparation whose cause the host knew. */
  discardReason?: DiscardReason;
  /** Only with `discardReason: 'idle-timeout'`, when the host gave its limit. */
  idleLimitMs?: number;
  provenance: 'builtin' | 'mcp';
  /** For `mcp__<server>__<tool>` names (at most 120 characters). */
  serverId?: string;
}

/**
 * Why a preparation was discarded (docs/api.md "Why a card did not run"): a
 * retry, a model fallback, a cancel, a stream error, or the host's idle limit.
 */
export type DiscardReason = 'retry' | 'fallback' | 'cancel' | 'stream-error' | 'idle-timeout';

/** A discard's cause: a reason, or a reason with the idle limit that passed. */
export type DiscardCause = DiscardReason | { reason: DiscardReason; idleLimitMs?: number };

export interface ToolCallLocation {
  path: string;
  line: number | null;
}

/** The first frame of a card: preparing (`pending`, `rawInput: {}`) or an unprepared start. */
export interface ToolCallFrame {
  sessionUpdate: 'tool_call';
  toolCallId: string;
  status: 'pending' | 'in_progress';
  /** Printable text: the described title (at most 256 characters), else the tool name (at most 120). */
  title: string;
  /** ACP's tool name field: the tool's programmatic name, as `_meta.toolName` has it. */
  name: string;
  content: [];
  locations: ToolCallLocation[];
  kind: ToolKind;
  rawInput: Record<string, unknown>;
  _meta: ToolCallMeta;
}

/** A start of a prepared card (full fields) or a terminal frame. */
export interface ToolCallUpdateFrame {
  sessionUpdate: 'tool_call_update';
  toolCallId: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  title?: string;
  /** Only on a start whose tool name is not the one its card opened with. */
  name?: string;
  content: object[];
  locations?: ToolCallLocation[];
  kind?: ToolKind;
  rawInput?: Record<string, unknown>;
  rawOutput?: unknown;
  _meta: ToolCallMeta;
}

export interface PlanFrame {
  sessionUpdate: 'plan';
  entries: { content: string; priority: 'medium'; status: 'pending' | 'in_progress' | 'completed' }[];
}

export interface ToolCallCardsOptions {
  /** Tools that never get a card. Replaces the default `['todo_write']`. */
  suppressedTools?: string[];
  /** Title and kind of a tool's card; `kind` is a Qwen `Kind` or an ACP kind (`agent` and unknown kinds become `other`). */
  describe?: (toolName: string) => { title?: string; kind?: string };
}

export interface ToolCallStart {
  callId: string;
  toolName: string;
  /** The complete arguments. */
  rawInput: object;
  title?: string;
  kind?: string;
  locations?: { path: string; line?: number | null }[];
  /** `'in_progress'` (default) or `'pending'` while a permission request is outstanding. */
  status?: 'pending' | 'in_progress';
}

export interface ToolCallResult {
  status: 'completed' | 'failed';
  /** ACP `ToolCallContent` items. */
  content?: object[];
  /** Sent as `rawOutput` unless `undefined`. */
  rawOutput?: unknown;
}

/**
 * The tool cards of one ACP session. Methods that would address an id with no
 * open card return `null`: a `tool_call_update` is never built for a card the
 * client has not seen, and every opened card ends exactly once.
 */
export declare class ToolCallCards {
  constructor(options?: ToolCallCardsOptions);
  /** Preparing `tool_call`; `null` if the tool is suppressed or the card is already open. */
  preparing(callId: string, toolName: string): ToolCallFrame | null;
  /** `tool_call_update` (full fields) if the card is open, else a new `tool_call`; `null` for a suppressed tool. */
  started(call: ToolCallStart): ToolCallFrame | ToolCallUpdateFrame | null;
  /**
   * The `toolCall` of a `session/request_permission` (it replaces the start frame): the same card as a
   * preparation, or one the request opens; it still ends once (`finished` / `failed` / `closeAll`).
   * `null` for a suppressed tool.
   */
  permission(call: Omit<ToolCallStart, 'status'>, content?: object[]): PermissionToolCall | null;
  /** The terminal frame; `null` if no card is open (always so for suppressed tools: use `plan()`). */
  finished(callId: string, toolName: string, result: ToolCallResult): ToolCallUpdateFrame | null;
  /** `finished(…, {status: 'failed', content: [text message]})` (Qwen's `emitError`). */
  failed(callId: string, toolName: string, message: string): ToolCallUpdateFrame | null;
  /**
   * The discarded-preparation frame, its title saying the call did not run and why
   * (`<title> · not run: <cause>`, or a neutral `<title> · not run` without a cause); `null` if no card is open.
   */
  discarded(callId: string, toolName: string, cause?: DiscardCause): ToolCallUpdateFrame | null;
  /**
   * Terminal frames for every open card (end of turn, cancel): a preparing one is discarded with `cause`,
   * a started one fails with `message` (default "Tool execution was cancelled").
   */
  closeAll(message?: string, cause?: DiscardCause): ToolCallUpdateFrame[];
  /** TodoWrite's `plan` update (docs/behaviour.md §6.3), or `null` when there is nothing to show. */
  plan(args?: object, resultDisplay?: unknown): PlanFrame | null;
  isOpen(callId: string): boolean;
  openIds(): string[];
}

/** The `toolCall` of a `session/request_permission` request (Qwen Code's `Session.runTool`). */
export interface PermissionToolCall {
  toolCallId: string;
  status: 'pending';
  title: string;
  /** When the request opens the card (no card was open for the call), or renames it. */
  name?: string;
  content: object[];
  locations: { path: string; line: number | null }[];
  kind: string;
  rawInput: object;
  _meta: { toolName: string; tool_name: string };
}

/** What `emitStart` receives first: the params Qwen Code's tracker passes to `ToolCallEmitter.emitStart`. */
export interface PreparationStartParams {
  callId: string;
  toolName: string;
  /** Never partial arguments. */
  args: Record<string, never>;
  status: 'pending';
  phase: 'preparing';
}

/**
 * A host's tool-call emitter, the shape of Qwen Code's `ToolCallEmitter`
 * (packages/cli/src/acp-integration/session/emitters/ToolCallEmitter.ts): it
 * shows the frames and decides whether a card is shown at all.
 */
export interface PreparationEmitter {
  /**
   * Shows a preparing card, or declines to. Truthy (e.g. `true`): shown, and
   * discarded later unless its call resolves. Falsy (Qwen answers `false` for
   * a suppressed tool): never shown, never discarded, never asked again in
   * this stream. A throw or rejection records nothing and rejects `observe`.
   * Called with `params` alone, as Qwen's tracker calls it; this package's
   * preparing `tool_call` is `tracker.frame` meanwhile.
   */
  emitStart(params: PreparationStartParams): unknown;
  /**
   * Ends a shown card whose call never arrived; called with these two
   * arguments alone, as Qwen's tracker calls it, unless the discard was given
   * a cause: then with a third, `{reason, idleLimitMs?}`. The
   * discarded-preparation update, titled with the cause, is `tracker.frame`
   * meanwhile.
   */
  emitPreparationDiscarded(
    callId: string,
    toolName: string,
    cause?: { reason: DiscardReason; idleLimitMs?: number },
  ): unknown;
  /** Optional: shows a progress frame of a shown card (`tracker.frame` meanwhile). Without it, `progress.send` does. */
  emitPreparationProgress?(params: PreparationProgressParams): unknown;
}

export interface PreparationTrackerOptions<E extends PreparationEmitter | undefined = PreparationEmitter | undefined> {
  /** Keeps Qwen's `ToolCallPreparationTracker` contract: the emitter shows the frames and answers for each card. */
  emitter?: E;
  /** Live progress on the shown cards; needs `progress.send` or the emitter's `emitPreparationProgress`. */
  progress?: boolean | ProgressOptions;
}

/**
 * One model stream's preparations (docs/behaviour.md §5.3). Without an emitter,
 * `observe` and `discard` return the frames to send; with one, they call it
 * and return promises, as Qwen Code's `ToolCallPreparationTracker` does.
 */
export declare class PreparationTracker<E extends PreparationEmitter | undefined = undefined> {
  constructor(cards: ToolCallCards, options?: PreparationTrackerOptions<E>);
  /** The new preparing frames; with an emitter, settles once it has answered for each. */
  observe(response: object): E extends PreparationEmitter ? Promise<void> : ToolCallFrame[];
  resolve(functionCalls: ReadonlyArray<{ id?: string }> | null | undefined): void;
  /**
   * The discarded frames, each titled with `cause` when the host knows it; with an emitter, settles once
   * each was handed to `emitPreparationDiscarded`.
   */
  discard(
    includeResolved?: boolean,
    cause?: DiscardCause,
  ): E extends PreparationEmitter ? Promise<void> : ToolCallUpdateFrame[];
  /**
   * While an emitter method runs (its synchronous part), the frame this
   * package built for that call: the preparing `tool_call` during
   * `emitStart`, the discarded-preparation update during
   * `emitPreparationDiscarded`. `undefined` at any other time.
   */
  readonly frame: ToolCallFrame | ToolCallUpdateFrame | ToolCallProgressFrame | undefined;
  /** Without an emitter: a preparing frame `observe` returned was sent, so its card's progress starts. */
  sent(frame: object): void;
  /** Whether live progress has a timer pending or a tick delivering. */
  readonly progressRunning: boolean;
}

/** One attempt's id normalisation (docs/behaviour.md §4.1). */
export declare class ToolCallIds {
  constructor(historyIds?: Iterable<string>);
  /** Rewrites preparations, `functionCall` parts and `response.functionCalls` in place. */
  apply(response: object): void;
}

/** The provider's raw id of a normalised `functionCall`, or `undefined`. */
export declare function getProviderToolCallId(functionCall: object): string | undefined;

export type StreamEvent =
  | { type: 'chunk'; value: object }
  | {
      type: 'retry';
      retryInfo?: unknown;
      isContinuation?: boolean;
      maxOutputTokensEscalated?: boolean;
      /** Why the attempt was abandoned, when it was not a plain retry (e.g. the host's idle limit). */
      discardCause?: DiscardCause;
    }
  | { type: 'model_fallback'; info?: unknown; discardCause?: DiscardCause }
  | { type: 'compressed'; info?: unknown };

export interface ConsumeModelStreamOptions {
  cards: ToolCallCards;
  /** Receives every frame, in order; awaited. */
  send: (update: SessionUpdate) => unknown;
  /** Checked on each event; when aborted the loop exits and every card is discarded. */
  signal?: AbortSignal;
  /** History ids: when given, chunks are id-normalised here, a fresh `ToolCallIds` per attempt. */
  historyIds?: Iterable<string>;
  /** Called with the first failure of a discard; discard failures never change the outcome. */
  onDiscardError?: (error: unknown) => void;
  /** Live progress on preparing cards: `true` for the defaults; frames go through `send` unless `progress.send` is given. */
  progress?: boolean | ProgressOptions;
}

/** The rate and the channel of live progress on preparing cards (docs/api.md "Live progress on preparing cards"). */
export interface ProgressOptions {
  /** At most one frame per card this often, and a change is shown at the next tick: 10 to 1000 ms (default 250). */
  intervalMs?: number;
  /** A card says it waits once its arguments have not grown for this long (default 5000 ms). */
  stallMs?: number;
  /** While stalled, at most one frame this often (default 1000 ms). */
  stallIntervalMs?: number;
  /**
   * The host's own idle limit: it abandons a stream after this long without data (a positive whole number
   * of milliseconds). A stalled card names it: `… no data from the provider, 45 s (Qwen gives up at 240 s)`.
   */
  idleLimitMs?: number;
  /** Who gives up at `idleLimitMs`, as the title names it (default "the agent"; at most 40 characters shown). */
  hostName?: string;
  /** Where progress frames go (a PreparationTracker without an emitter needs it). */
  send?: (update: ToolCallProgressFrame) => unknown;
  /** A progress send that failed; it ends nothing. */
  onError?: (error: unknown) => void;
}

/** What a card's progress frame reports: counts only, never a byte of the arguments. */
export interface ToolCallProgress {
  argumentBytes: number;
  argumentLines: number;
  elapsedMs: number;
  idleMs: number;
  /** Only while stalled: the model went quiet on a live connection, or the connection went silent. */
  stalled?: 'model' | 'connection';
  /** Only while stalled, when the host gave its idle limit and it has not passed. */
  idleLimitMs?: number;
}

/**
 * A preparing card's live progress: no status, arguments or content, and nothing else the card
 * already has (its name, kind and provenance); the title says it in words.
 */
export interface ToolCallProgressFrame {
  sessionUpdate: 'tool_call_update';
  toolCallId: string;
  title: string;
  _meta: { phase: 'preparing'; progress: ToolCallProgress };
}

/** What `emitPreparationProgress` receives. */
export interface PreparationProgressParams {
  callId: string;
  toolName: string;
  title: string;
  progress: ToolCallProgress;
}

export interface ConsumeModelStreamResult {
  /** The complete calls of the last attempt; `[]` when cancelled. */
  functionCalls: object[];
  /** The latest `usageMetadata`. */
  usage?: object;
  /** The signal was aborted: the calls must not run. */
  cancelled?: true;
}

/**
 * The stream-loop body of docs/behaviour.md §6.4. Rejects with the stream's error after discarding every card.
 * Each discard gives its cause: `retry`, `fallback` (or the event's `discardCause`), `cancel` for an aborted
 * signal, and for a thrown error its own `discardCause`, `idle-timeout` for Qwen Code's
 * `StreamInactivityTimeoutError` (its `idleMs`), else `stream-error`.
 */
export declare function consumeModelStream(
  events: AsyncIterable<StreamEvent> | Iterable<StreamEvent>,
  options: ConsumeModelStreamOptions,
): Promise<ConsumeModelStreamResult>;
