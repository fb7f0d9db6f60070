// Why Qwen Code discarded a preparing card, worked out from what its ACP
// session already sees. Qwen's session discards a stream's preparations
// (packages/cli/src/acp-integration/session/Session.ts,
// finalizeToolCallPreparations) when its chat's stream yields a RETRY or a
// MODEL_FALLBACK event, when the stream throws, when the prompt is cancelled,
// and when the stream ends; its tracker then calls the emitter with the call's
// id and tool name alone. So the chat's stream is watched here: the chat class
// (GeminiChat, LlmChat from 0.23) is reached through the session's own
// Config (`config.getGeminiClient().getChat()`), and its `sendMessageStream`
// wrapped to note, for the session whose Config made the request, the last
// event or error its stream gave and the request's abort signal
// (`params.config.abortSignal`, which Qwen's cancel aborts). Nothing the
// stream yields is changed, and nothing is noted outside ACP mode with
// progress on (the only mode that installs this).
//
// The cause of a discard is then: `cancel` when that signal is aborted;
// `retry` / `fallback` right after those events; for a thrown error,
// `idle-timeout` with its limit when it is Qwen's StreamInactivityTimeoutError
// (packages/core/src/core/stream-guards.ts, which carries the limit as
// `idleMs`), else `stream-error`. Qwen also retries after its idle timeout
// without saying so in the RETRY event: a retry or an error that comes after
// the card's converter has received nothing at all for the idle limit (the
// guard counts the SDK's chunks, each of which the converter received first)
// is the idle timeout. Where none of this holds (a normal end whose call never
// came, a stream this hook did not see) the cause is not known, and the card
// says a neutral `not run`.

/** How early a silence may be noticed: one progress tick (lib/acp/progress.js) and the timer's jitter. */
const QUIET_SLACK_MS = 400;

/** The cause an event of Qwen's StreamEvent gives a discard that follows it, or undefined. */
function causeOfEvent(event) {
  if (event?.type === 'retry') return 'retry';
  if (event?.type === 'model_fallback') return 'fallback';
  return undefined;
}

/** The cause a stream's error gives: Qwen's idle timeout with its limit, a cancel, or a stream error. */
function causeOfError(err) {
  if (err?.name === 'StreamInactivityTimeoutError' && Number.isInteger(err.idleMs) && err.idleMs > 0)
    return { reason: 'idle-timeout', idleLimitMs: err.idleMs };
  if (err?.name === 'AbortError') return 'cancel';
  return 'stream-error';
}

export class DiscardCauses {
  /** Config → `{ pending, signal }` of the latest stream its chat started. */
  #streams = new WeakMap();
  #hooked = false;

  /**
   * Wraps `sendMessageStream` of the class of the chat `ctx` (a session)
   * streams with, once per process. A session whose chat cannot be reached
   * (no Config, no client yet) is tried again at its next card.
   */
  hookChatOf(ctx) {
    if (this.#hooked) return;
    let chat;
    try {
      chat = ctx?.config?.getGeminiClient?.()?.getChat?.();
    } catch {
      return; // Not started yet: the next card tries again.
    }
    const proto = chat ? Object.getPrototypeOf(chat) : undefined;
    const original = proto?.sendMessageStream;
    if (typeof original !== 'function' || !Object.isExtensible(proto)) return;
    this.#hooked = true;
    const note = (config, params, stream) => this.#watch(config, params, stream);
    proto.sendMessageStream = async function sendMessageStream(...args) {
      const stream = await original.apply(this, args);
      try {
        note(this.config, args[1], stream);
      } catch {
        // Watching is an addition: the stream goes back to Qwen as its chat made it.
      }
      return stream;
    };
  }

  // The stream's own `next`, wrapped on the object Qwen's session iterates
  // (its for await reads `next` once it has the object): the value and the
  // error pass through unchanged.
  #watch(config, params, stream) {
    if (config === null || typeof config !== 'object' || typeof stream?.next !== 'function') return;
    const state = { pending: undefined, signal: params?.config?.abortSignal };
    this.#streams.set(config, state);
    const next = stream.next;
    stream.next = function watchedNext(...args) {
      return next.apply(this, args).then(
        (result) => {
          state.pending = result?.done ? undefined : causeOfEvent(result?.value);
          return result;
        },
        (err) => {
          state.pending = causeOfError(err);
          throw err;
        },
      );
    };
  }

  /**
   * The cause of a discard now, for the session whose Config is `config`:
   * a reason, `{reason: 'idle-timeout', idleLimitMs}`, or undefined.
   * `quietMs` is how long the card's converter has received nothing, and
   * `idleLimitMs` Qwen's idle limit, when known.
   */
  causeOf(config, { quietMs, idleLimitMs } = {}) {
    const state = config !== null && typeof config === 'object' ? this.#streams.get(config) : undefined;
    if (!state) return undefined;
    if (state.signal?.aborted) return 'cancel';
    const cause = state.pending;
    if (
      (cause === 'retry' || cause === 'stream-error') &&
      Number.isInteger(idleLimitMs) &&
      idleLimitMs > 0 &&
      typeof quietMs === 'number' &&
      quietMs >= idleLimitMs - QUIET_SLACK_MS
    )
      return { reason: 'idle-timeout', idleLimitMs };
    return cause;
  }
}
