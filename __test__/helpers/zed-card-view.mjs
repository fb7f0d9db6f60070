// What a Zed user reads on an ACP tool card: a small model of Zed's own rules,
// taken from Zed's source (zed-industries/zed, crates/acp_thread/src/acp_thread.rs
// at commit 00293ca725b3984331830c74fa3229c2106e2b58), so that a test can feed
// it the frames an agent sent and assert the text on screen instead of the
// frames. Each rule names the Zed function it comes from. Zed reads the tool
// name only from `_meta.tool_name` ("a workaround since ACP's ToolCall doesn't
// have a dedicated name field"), also in a later version that already speaks
// ACP v2; ACP's standard `name` (the Tool Call Name RFD) is modelled as an
// option. What it leaves out: content, diffs, terminals and locations are kept
// only as counts, and a label's inline markdown is not rendered (the words
// are the same).

/**
 * `ToolCallStatus`'s Display (acp_thread.rs, `impl Display for ToolCallStatus`):
 * the status word Zed writes for a card (`ToolCall::to_markdown`: "Status: …").
 */
export const STATUS_WORDS = {
  pending: 'Pending',
  waiting: 'Waiting for confirmation',
  in_progress: 'In Progress',
  completed: 'Completed',
  failed: 'Failed',
  rejected: 'Rejected',
  canceled: 'Canceled',
};

/**
 * `impl From<acp::ToolCallStatus> for ToolCallStatus`: the four ACP v1
 * statuses map one to one; anything else (ACP v2's `cancelled`, say) falls
 * into the `_ =>` arm and reads as Pending.
 */
export function zedStatus(acpStatus) {
  return ['pending', 'in_progress', 'completed', 'failed'].includes(acpStatus) ? acpStatus : 'pending';
}

/** util/src/markdown.rs `MarkdownEscaped`: the markdown source Zed stores for an edit card's title. */
export function markdownEscaped(text) {
  let out = '';
  for (const c of text) {
    if ('\\`*_[^$~&#+=-'.includes(c)) out += `\\${c}`;
    else if (c === '<') out += '&lt;';
    else if (c === '>') out += '&gt;';
    else out += c;
  }
  return out;
}

/**
 * The label rule, the same at creation (`ToolCall::from_acp`) and on every
 * title change (`ToolCall::update_fields`): `execute` keeps the title as
 * text; `edit` escapes it as markdown, so it shows literally, every line;
 * any other kind shows only its first line, followed by `…` when there are
 * more. Returns the stored source and the words the user reads.
 */
export function zedLabel(kind, title) {
  if (kind === 'execute') return { source: title, shown: title };
  if (kind === 'edit') return { source: markdownEscaped(title), shown: title };
  const nl = title.indexOf('\n');
  const line = nl >= 0 ? `${title.slice(0, nl)}…` : title;
  return { source: line, shown: line };
}

/**
 * One agent thread's tool cards as Zed holds them (`AcpThread.entries`).
 * Feed it, in wire order, every `session/update` (`sessionUpdate`), every
 * `session/request_permission` (`requestPermission`) and the user's answer
 * (`authorize`), the user's Stop (`cancel`) and the turn's end (`stopped`).
 *
 * @param {{nameFrom?: 'meta' | 'acp'}} [options] where the tool name is read:
 *   'meta' (this Zed: `tool_name_from_meta`, `_meta.tool_name`, at creation
 *   only); 'acp' (ACP's standard `name`, as the Tool Call Name RFD has a
 *   client read it: at creation and from any update that carries it), for a
 *   Zed that reads the standard field.
 */
export class ZedThread {
  constructor({ nameFrom = 'meta' } = {}) {
    this.nameFrom = nameFrom;
    /** The cards in thread order; an id may appear twice (Zed looks up the last one). */
    this.entries = [];
    /** Every change of what a card shows: {entry, id, text}. */
    this.log = [];
  }

  /** `index_for_tool_call`: the last entry with that id (entries are searched from the end). */
  #find(id) {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i].id === id) return this.entries[i];
    return undefined;
  }

  #record(card) {
    const text = cardText(card);
    const previous = this.log.findLast((l) => l.card === card);
    if (previous?.text !== text) this.log.push({ card, id: card.id, text });
  }

  /** `ToolCall::from_acp`: a new card. Its name is read here and nowhere else (meta rule). */
  #create(call, status) {
    if (typeof call.title !== 'string')
      // `upsert_tool_call_inner`: `update.try_into()?` fails for a new card without a title.
      throw new Error(`Zed refuses a new card ${call.toolCallId} without a title`);
    const kind = call.kind ?? 'other';
    const card = {
      id: call.toolCallId,
      kind,
      label: zedLabel(kind, call.title),
      status,
      toolName: this.#nameOf(call),
      content: (call.content ?? []).length,
      rawInput: call.rawInput,
    };
    this.entries.push(card);
    this.#record(card);
    return card;
  }

  #nameOf(frame) {
    if (this.nameFrom === 'acp') return typeof frame.name === 'string' ? frame.name : undefined;
    // `tool_name_from_meta`: `_meta.tool_name`, a string, or nothing.
    const v = frame._meta?.tool_name;
    return typeof v === 'string' ? v : undefined;
  }

  /**
   * `ToolCall::update_fields`: kind, status, title (the label, by the new
   * kind's rule, at any status), content, locations, raw input and output
   * are replaced when present; `_meta` is read only for subagent info, so
   * the tool name stays what creation gave it (meta rule).
   */
  #updateFields(card, fields) {
    if (fields.kind !== undefined && fields.kind !== null) card.kind = fields.kind;
    if (fields.status !== undefined && fields.status !== null) card.status = zedStatus(fields.status);
    if (typeof fields.title === 'string') card.label = zedLabel(card.kind, fields.title);
    if (Array.isArray(fields.content)) card.content = fields.content.length;
    if (fields.rawInput !== undefined) card.rawInput = fields.rawInput;
    if (this.nameFrom === 'acp' && typeof fields.name === 'string') card.toolName = fields.name;
  }

  /** `AcpThread::handle_session_update`, for the two tool updates (others do not touch cards). */
  sessionUpdate(update) {
    if (update.sessionUpdate === 'tool_call') this.#upsert(update, zedStatus(update.status ?? 'pending'), true);
    else if (update.sessionUpdate === 'tool_call_update') this.#updateToolCall(update);
  }

  /**
   * `upsert_tool_call` / `upsert_tool_call_inner`: a `tool_call` whose id is
   * already on screen updates that card (every field of a ToolCall is
   * present, so kind, title and content are replaced too) and then sets the
   * status; otherwise a new card.
   */
  #upsert(call, status, whole) {
    const card = this.#find(call.toolCallId);
    if (!card) return this.#create(call, status);
    const fields = whole ? { ...call, kind: call.kind ?? 'other', content: call.content ?? [] } : call;
    this.#updateFields(card, fields);
    card.status = status;
    this.#record(card);
    return card;
  }

  /**
   * `AcpThread::update_tool_call`: an update for an id with no card pushes a
   * new Failed card labelled "Tool call not found" (kind fetch); otherwise
   * `update_fields`.
   */
  #updateToolCall(update) {
    const card = this.#find(update.toolCallId);
    if (!card) {
      const lost = {
        id: update.toolCallId,
        kind: 'fetch',
        label: zedLabel('fetch', 'Tool call not found'),
        status: 'failed',
        toolName: undefined,
        content: 1,
      };
      this.entries.push(lost);
      this.#record(lost);
      return;
    }
    this.#updateFields(card, update);
    this.#record(card);
  }

  /**
   * `request_tool_call_authorization`: the request's tool call is upserted
   * with status WaitingForConfirmation (`upsert_tool_call_inner`), opening the
   * card if none is on screen.
   */
  requestPermission(toolCall) {
    this.#upsert(toolCall, 'waiting', false);
  }

  /**
   * `authorize_tool_call`: the user's answer. A reject option makes the card
   * Rejected, an allow option In Progress, until the agent's next frame.
   */
  authorize(id, optionKind) {
    const card = this.#find(id);
    if (!card || card.status !== 'waiting') return;
    card.status = optionKind === 'reject_once' || optionKind === 'reject_always' ? 'rejected' : 'in_progress';
    this.#record(card);
  }

  /**
   * `AcpThread::cancel` → `mark_pending_tools_as_canceled`: the user's Stop
   * marks every Pending, WaitingForConfirmation and InProgress card Canceled
   * at once, before the agent answers; a later frame still replaces that
   * status (`update_fields`).
   */
  cancel() {
    for (const card of this.entries)
      if (['pending', 'waiting', 'in_progress'].includes(card.status)) {
        card.status = 'canceled';
        this.#record(card);
      }
  }

  /** `run_turn`: a turn that ends with stopReason `cancelled` marks the cards still open Canceled too. */
  stopped(stopReason) {
    if (stopReason === 'cancelled') this.cancel();
  }

  /** The cards with id `id`, oldest first. */
  cardsOf(id) {
    return this.entries.filter((c) => c.id === id);
  }

  /** What the last card with id `id` shows now: `label [Status]`. */
  read(id) {
    const card = this.#find(id);
    return card ? cardText(card) : undefined;
  }

  /** Everything a card with id `id` showed, in order, without repeats (all its cards, if it opened twice). */
  history(id) {
    return this.log.filter((l) => l.id === id).map((l) => l.text);
  }
}

/** The words a user reads on a card: its label and its status word (`ToolCall::to_markdown`'s two lines, on one). */
export function cardText(card) {
  return `${card.label.shown} [${STATUS_WORDS[card.status]}]`;
}

/**
 * A deliberately broken agent, for showing that the tests' assertions can
 * fail: with TOOLCALL_STREAM_ZED_VIEW_BREAK set to `title`, `status`,
 * `content`, `name` or `progress`, the frames fed to the model lose their
 * titles, statuses or content (updates only), their tool names, or the live
 * progress frames are dropped. Returns the frame to feed, or null.
 */
export function brokenFrame(update, how = process.env.TOOLCALL_STREAM_ZED_VIEW_BREAK) {
  if (!how || (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update')) return update;
  const copy = structuredClone(update);
  if (how === 'progress' && copy._meta?.progress) return null;
  if (how === 'title' && copy.sessionUpdate === 'tool_call_update') delete copy.title;
  if (how === 'status' && copy.sessionUpdate === 'tool_call_update') delete copy.status;
  if (how === 'content' && copy.sessionUpdate === 'tool_call_update') delete copy.content;
  if (how === 'name') {
    delete copy.name;
    if (copy._meta) delete copy._meta.tool_name;
  }
  return copy;
}
