// Shared by the end-to-end agent tests: fresh workspaces, the card invariants
// over what a client saw (session/update frames and the permission requests
// that open cards), and the schema check of every message the agent wrote.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { workspaceFiles } from '../../demo/scenarios.mjs';
import { agentMessageErrors } from '../../demo/schema.mjs';

/** A factory of fresh workspaces `<root>/<n>/ws` (with `<root>/<n>/secret.txt` just outside each). */
export function workspaces(root) {
  let n = 0;
  return async () => {
    const outer = path.join(root, String(++n));
    const ws = path.join(outer, 'ws');
    for (const [file, body] of Object.entries(workspaceFiles)) {
      await fs.mkdir(path.dirname(path.join(ws, file)), { recursive: true });
      await fs.writeFile(path.join(ws, file), body);
    }
    await fs.writeFile(path.join(outer, 'secret.txt'), 'do not read\n');
    return fs.realpath(ws);
  };
}

const TERMINAL = new Set(['completed', 'failed']);

/**
 * The card invariants over one session's traffic, in wire order (entries of
 * `agent.wire`, or `{update}` objects): the first frame for an id is a
 * tool_call, or a permission request, which opens the card as Zed does; no
 * tool_call_update for an id without an open card; every card that opened
 * ends exactly once (per opening); a preparing card never carries arguments.
 * Live progress frames come only while their card is still preparing (after
 * its preparing tool_call, before its start, permission request or end),
 * carry no status, arguments or content, and their counts never decrease.
 */
export function assertCardInvariants(traffic) {
  const open = new Set();
  /** callId → the last progress of a card still preparing; absent once it started or ended. */
  const preparing = new Map();
  for (const entry of traffic) {
    const msg = entry.msg;
    if (msg?.method === 'session/request_permission') {
      const id = msg.params.toolCall.toolCallId;
      assert.equal(msg.params.toolCall.status, 'pending');
      open.add(id);
      preparing.delete(id);
      continue;
    }
    const u = msg ? msg.params?.update : entry.update;
    if (!u) continue;
    if (u.sessionUpdate === 'tool_call') {
      assert.ok(!open.has(u.toolCallId), `tool_call for ${u.toolCallId} while its card is open`);
      open.add(u.toolCallId);
      if (u._meta?.phase === 'preparing') preparing.set(u.toolCallId, null);
      if (TERMINAL.has(u.status)) open.delete(u.toolCallId);
    } else if (u.sessionUpdate === 'tool_call_update') {
      assert.ok(
        open.has(u.toolCallId),
        `tool_call_update for ${u.toolCallId} with no open card (Zed: "Tool call not found")`,
      );
      if (u._meta?.progress) {
        assert.ok(preparing.has(u.toolCallId), `a progress frame for ${u.toolCallId}, which is not preparing`);
        assert.ok(u.status === undefined || u.status === 'pending', 'a progress frame changes no status');
        assert.ok(!('rawInput' in u) && !('content' in u), 'a progress frame carries no arguments or content');
        const last = preparing.get(u.toolCallId);
        const p = u._meta.progress;
        if (last) {
          assert.ok(p.argumentBytes >= last.argumentBytes, 'argumentBytes never decrease');
          assert.ok(p.argumentLines >= last.argumentLines, 'argumentLines never decrease');
        }
        preparing.set(u.toolCallId, p);
      } else {
        preparing.delete(u.toolCallId);
      }
      if (TERMINAL.has(u.status)) open.delete(u.toolCallId);
    } else continue;
    if (u._meta?.phase === 'preparing' && u.sessionUpdate === 'tool_call')
      assert.deepEqual(u.rawInput, {}, 'a preparing card never carries partial arguments');
  }
  assert.deepEqual([...open], [], 'every card ends');
}

/** The session's traffic on the wire: its updates and permission requests, in order. */
export const trafficOf = (agent, sessionId) =>
  agent.wire.filter(
    (e) =>
      (e.msg.method === 'session/update' || e.msg.method === 'session/request_permission') &&
      e.msg.params.sessionId === sessionId,
  );

/** The lifecycle frames of one call, in order: its tool frames without the live progress ones. */
export function framesOf(updates, id) {
  return updates
    .map((e) => e.update)
    .filter(
      (u) =>
        (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') &&
        u.toolCallId === id &&
        !u._meta?.progress,
    );
}

/** The live progress frames of one call, in order. */
export function progressOf(updates, id) {
  return updates
    .map((e) => e.update)
    .filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id && u._meta?.progress);
}

export const shape = (u) => `${u.sessionUpdate}:${u.status}${u._meta?.preparationDiscarded ? ':discarded' : ''}`;

/** Every message the agent wrote so far is valid against the ACP schema v1 for what it is. */
export function assertWireValid(agent) {
  for (const { msg } of agent.wire) {
    const errors = agentMessageErrors(msg, msg.method === undefined ? agent.requestMethod(msg.id) : undefined);
    assert.equal(errors, null, `invalid agent message ${JSON.stringify(msg).slice(0, 300)}`);
  }
}

/**
 * Scenarios of demo/provider.mjs that third-party clients run only for the
 * strict check of their frames (one session each): retries, an outside
 * path, a plan, a reused id, HTTP 529, the fallback model, a cut and a
 * stalled stream.
 */
export const FRAME_SCENARIOS = [
  'overloaded-retry',
  'outside-cwd',
  'todo-plan',
  'reused-id',
  'http-529',
  'fallback-model',
  'cut-after-call',
  'stall-mid-arguments',
];

/** After a suite: every message the agent wrote was valid ACP v1, and the agent and provider close with exit code 0. */
export async function closeChecked(agent, provider) {
  if (agent) assertWireValid(agent);
  const exit = await agent?.close();
  await provider?.close();
  assert.equal(exit?.code, 0, `agent exit code (stderr: ${agent?.stderr})`);
}

/**
 * Prompts scenario `name` in a new session of `cwd`: the response or error,
 * the session's updates and the provider requests of that prompt; the card
 * invariants are checked on the session's traffic.
 */
export async function runScenario(agent, provider, scenarios, name, cwd) {
  const sessionId = await agent.newSession(cwd);
  const outcome = await agent.prompt(sessionId, scenarios[name].prompt).then(
    (response) => ({ response }),
    (error) => ({ error }),
  );
  assertCardInvariants(trafficOf(agent, sessionId));
  const requests = provider.requests.filter((r) => r.scenario === name && JSON.stringify(r.body).includes(cwd));
  return { cwd, sessionId, ...outcome, updates: agent.updates(sessionId), requests };
}
