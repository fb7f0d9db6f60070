// Shared by the acp-*.test.mjs files: ACP schema validation (schema v1 from
// @agentclientprotocol/sdk, draft 2020-12) and the card invariants checker.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default;
const schema = JSON.parse(
  readFileSync(new URL('../node_modules/@agentclientprotocol/sdk/schema/v1/schema.json', import.meta.url), 'utf8'),
);

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, 'acp');
const validateNotification = ajv.compile({ $ref: 'acp#/$defs/SessionNotification' });
const validatePermission = ajv.compile({ $ref: 'acp#/$defs/RequestPermissionRequest' });

/** The options every permission request in these tests offers (Qwen's edit set plus reject always). */
export const PERMISSION_OPTIONS = [
  { optionId: 'proceed_always', name: 'Allow All Edits', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Reject All Edits', kind: 'reject_always' },
];

/** Asserts `update` is a valid `session/update` payload (wrapped as SessionNotification params). */
export function assertValidUpdate(update) {
  const params = { sessionId: 'sess-1', update };
  if (!validateNotification(params)) {
    assert.fail(`invalid ACP update ${JSON.stringify(update)}: ${ajv.errorsText(validateNotification.errors)}`);
  }
}

/**
 * What a client (Zed) concludes from the tool frames, checked frame by frame:
 * the first frame for an id (and the first after its card closed) is a
 * `tool_call`; no `tool_call_update` for an id without an open card; a
 * preparing frame has `rawInput: {}`; any other rawInput is the complete
 * arguments (`fullArgs(id)`).
 */
export class CardClient {
  open = new Set();
  /** Open cards still preparing: only they may get live progress frames. */
  preparing = new Set();
  terminals = new Map();
  opens = new Map();
  frames = [];
  constructor(fullArgs = () => undefined) {
    this.fullArgs = fullArgs;
  }
  receive(update) {
    assertValidUpdate(update);
    this.frames.push(update);
    const { sessionUpdate: kind, toolCallId: id } = update;
    if (kind === 'tool_call') {
      assert.ok(!this.open.has(id), `tool_call for already open card ${id}`);
      this.#opened(id);
    } else if (kind === 'tool_call_update') {
      assert.ok(this.open.has(id), `tool_call_update for ${id} without an open card`);
      if (update.status === 'completed' || update.status === 'failed') {
        this.open.delete(id);
        this.terminals.set(id, (this.terminals.get(id) ?? 0) + 1);
      }
    } else {
      return;
    }
    if (update._meta?.progress) {
      // Live progress: only while the card prepares, and nothing of the call.
      assert.equal(kind, 'tool_call_update');
      assert.ok(this.preparing.has(id), `a progress frame for ${id}, which is not preparing`);
      assert.ok(update.status === undefined || update.status === 'pending', 'a progress frame changes no status');
      assert.ok(!('rawInput' in update) && !('content' in update), 'a progress frame carries nothing of the call');
      return;
    }
    if (kind === 'tool_call' && update._meta?.phase === 'preparing') this.preparing.add(id);
    else this.preparing.delete(id);
    if (update._meta?.phase === 'preparing') {
      if (kind === 'tool_call') {
        assert.deepEqual(update.rawInput, {}, 'a preparing frame carries no arguments');
        assert.equal(update.status, 'pending');
      } else {
        assert.equal(update._meta.preparationDiscarded, true);
        assert.ok(!('rawInput' in update));
      }
    } else if ('rawInput' in update) {
      assert.deepEqual(update.rawInput, this.fullArgs(id), `rawInput of ${id} is not its complete arguments`);
    }
  }
  #opened(id) {
    this.open.add(id);
    this.opens.set(id, (this.opens.get(id) ?? 0) + 1);
  }
  /**
   * A `session/request_permission` `toolCall`: a valid request, `pending`,
   * the complete arguments; like Zed, it opens the card when none is open.
   */
  permission(toolCall) {
    const params = { sessionId: 'sess-1', options: PERMISSION_OPTIONS, toolCall };
    if (!validatePermission(params)) {
      assert.fail(
        `invalid permission request ${JSON.stringify(toolCall)}: ${ajv.errorsText(validatePermission.errors)}`,
      );
    }
    assert.equal(toolCall.status, 'pending');
    this.preparing.delete(toolCall.toolCallId);
    assert.deepEqual(
      toolCall.rawInput,
      this.fullArgs(toolCall.toolCallId),
      'a permission request carries the complete arguments',
    );
    if (!this.open.has(toolCall.toolCallId)) this.#opened(toolCall.toolCallId);
  }
  /** Exactly one terminal frame for every time a card was opened. */
  assertOneTerminalPerOpen() {
    for (const [id, count] of this.opens) assert.equal(this.terminals.get(id), count, `terminal frames of ${id}`);
  }
}

/**
 * Random ops (a fast-check arbitrary's values) as the event stream
 * `consumeModelStream` reads. `abort` aborts `controller`, `throw` throws,
 * `chunk` yields the response `toResponse(parts, op)` makes of the op's text
 * and calls (each call's args from `argsOf(call)`, its id left out when
 * undefined), and any other kind is yielded as an event of that type.
 */
export async function* opsToEvents(ops, controller, { toResponse, argsOf }) {
  for (const op of ops) {
    if (op.kind === 'abort') {
      controller.abort();
      continue;
    }
    if (op.kind === 'throw') throw new Error('stream failed');
    if (op.kind !== 'chunk') {
      yield { type: op.kind };
      continue;
    }
    const parts = [];
    if (op.text) parts.push(op.thought ? { text: op.text, thought: true } : { text: op.text });
    for (const c of op.calls) {
      parts.push({ functionCall: { ...(c.id === undefined ? {} : { id: c.id }), name: c.tool, args: argsOf(c) } });
    }
    yield { type: 'chunk', value: toResponse(parts, op) };
  }
}
