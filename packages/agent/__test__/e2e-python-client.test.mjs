// End to end with a client by other authors: the official Python ACP SDK
// (PyPI agent-client-protocol, pinned in helpers/python-acp.mjs) drives
// toolcall-stream-agent over real stdio pipes (acp.spawn_agent_process), with
// the real provider SDK inside the agent against the loopback provider, for
// both providers. The Python side (__test__/python/acp_client.py) parses
// every message the agent wrote with the SDK's pydantic models, strictly
// (valid, and nothing salvaged, skipped or ignored but ACP's tool name, which
// it predates), and records what it saw;
// this file asserts the sessions from that record: initialize with and
// without the fs capability, session/new, session/set_mode, a large write
// (preparing, in_progress, completed), permission allowed, rejected and
// allowed always, a cancel mid-arguments, the usage frames, session/close, a
// 429, and writes and reads through the client's fs methods when offered.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startProvider } from '../demo/provider.mjs';
import { agentArgs } from '../demo/harness.mjs';
import { scenarios, designDocument, NOTE, FALLBACK_MODEL } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { agentMessageErrors } from '../demo/schema.mjs';
import { workspaces, assertCardInvariants, shape, FRAME_SCENARIOS } from './helpers/e2e.mjs';
import { ensurePythonAcp, PYTHON_ACP_VERSION } from './helpers/python-acp.mjs';
import { UPDATES, BAD_STOP_REASON } from './helpers/malformed-agent.mjs';

const CLIENT = fileURLToPath(new URL('./python/acp_client.py', import.meta.url));

/** The text of an embedded resource the client attaches to a prompt. */
const EMBEDDED = 'embedded-resource-body-7f3a';
const MALFORMED_AGENT = fileURLToPath(new URL('./helpers/malformed-agent.mjs', import.meta.url));

const env = ensurePythonAcp();
if (env.skip) console.error(`e2e-python-client: skipped: ${env.skip}`);
const skip = env.skip ? `the Python ACP SDK is not available: ${env.skip}` : false;

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-python-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

/** Runs the Python client on a plan; resolves with its exit code, output and parsed record. */
async function runClient(plan, name) {
  const planPath = path.join(tmpRoot, `${name}.plan.json`);
  const recordPath = path.join(tmpRoot, `${name}.record.jsonl`);
  await fs.writeFile(planPath, JSON.stringify(plan));
  const child = spawn(env.python, [CLIENT, planPath, recordPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  // A guard against a hang only (the client has no timeouts of its own), not a timed assertion.
  const guard = setTimeout(() => child.kill('SIGKILL'), 300_000);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? signal)));
  clearTimeout(guard);
  const text = await fs.readFile(recordPath, 'utf8').catch(() => '');
  const record = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { code, output, record };
}

/**
 * One connection's record cut into its steps: each step with the wire
 * traffic that arrived after the previous step ended, up to its own end (the
 * Python SDK returns a prompt's response only after every update before it
 * was handled).
 */
function stepsOf(record, conn) {
  const steps = [];
  let wire = [];
  let delivered = [];
  let files = [];
  for (const line of record) {
    if (line.conn !== conn) continue;
    if (line.kind === 'wire') wire.push(line);
    else if (line.kind === 'delivered') delivered.push(line);
    else if (line.kind === 'fs_write' || line.kind === 'fs_read') files.push(line);
    else if (line.kind === 'step') {
      steps.push({ ...line, wire, delivered, files });
      wire = [];
      delivered = [];
      files = [];
    }
  }
  return steps;
}

const updatesIn = (step) =>
  step.wire.filter((w) => w.dir === 'in' && w.msg.method === 'session/update').map((w) => w.msg.params.update);
// A card's lifecycle frames, without its live progress frames.
const toolFrames = (step, id) =>
  updatesIn(step).filter(
    (u) =>
      (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') &&
      u.toolCallId === id &&
      !u._meta?.progress,
  );
const usageFrames = (step) =>
  updatesIn(step).filter((u) => u.sessionUpdate === 'agent_message_chunk' && u._meta?.usage !== undefined);

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`the Python ACP SDK ${PYTHON_ACP_VERSION} as the client: ${providerKind}`, { skip }, () => {
    let provider;
    let run;
    const cwd = {};

    before(async () => {
      provider = await startProvider({ speed: 20, scenarioSpeed: { 'large-write': 4 } });
      for (const name of ['write', 'allow', 'reject', 'cancel', 'fsAlways', ...FRAME_SCENARIOS])
        cwd[name] = await workspace();
      const prompt = (session, scenario, more = {}) => ({
        op: 'prompt',
        name: scenario,
        session,
        text: scenarios[scenario].prompt,
        ...more,
      });
      const plan = {
        agent: {
          command: process.execPath,
          args: agentArgs({ provider: providerKind, providerUrl: provider.url, retryDelayMs: 20 }),
          // The SDK passes only these on top of a trimmed environment (HOME, PATH, ...).
          env: { ANTHROPIC_API_KEY: 'sk-ant-replay', OPENAI_API_KEY: 'sk-replay' },
        },
        connections: [
          {
            // initialize without any client capability (the SDK then sends `clientCapabilities: {}`).
            label: 'no-fs',
            fs: null,
            steps: [
              { op: 'new_session', session: 'write', cwd: cwd.write },
              { op: 'set_mode', session: 'write', mode: 'auto-edit' },
              prompt('write', 'large-write'),
              { op: 'set_mode', name: 'unknown-mode', session: 'write', mode: 'plan', expectError: true },
              {
                op: 'prompt',
                name: 'resources',
                session: 'write',
                blocks: [
                  { type: 'text', text: 'Compare these two files.' },
                  {
                    type: 'resource_link',
                    uri: pathToFileURL(path.join(cwd.write, 'README.md')).href,
                    name: 'README.md',
                  },
                  {
                    type: 'resource',
                    resource: { uri: 'file:///elsewhere/notes.txt', mimeType: 'text/plain', text: EMBEDDED },
                  },
                ],
              },
              { op: 'new_session', session: 'allow', cwd: cwd.allow },
              prompt('allow', 'permission-write', { name: 'allow', answers: ['allow_once'] }),
              { op: 'new_session', session: 'reject', cwd: cwd.reject },
              prompt('reject', 'permission-write', { name: 'reject', answers: ['reject_once'] }),
              { op: 'new_session', session: 'cancel', cwd: cwd.cancel },
              prompt('cancel', 'cancel-mid-arguments', { cancelOn: callId('toolu_01WriteFixtures') }),
              prompt('cancel', 'rate-limited', { expectError: true }),
              { op: 'close_session', session: 'allow' },
              prompt('allow', 'permission-write', { name: 'after-close', expectError: true }),
            ],
          },
          {
            // The other frames the agent writes: retries' discarded cards, early failures, the plan, reused
            // ids, the fallback model, a cut stream, a stall (as e2e-model-errors and e2e-agent run them).
            label: 'more-frames',
            fs: null,
            extraArgs: [
              '--approve=always',
              '--model',
              'replay-primary',
              '--fallback-model',
              FALLBACK_MODEL,
              '--stall-timeout-ms',
              '400',
            ],
            steps: FRAME_SCENARIOS.flatMap((name) => [
              { op: 'new_session', session: name, cwd: cwd[name] },
              // Anthropic: the call was complete when the socket was cut, so no retry: the prompt fails.
              prompt(name, name, { expectError: name === 'cut-after-call' && providerKind === 'anthropic' }),
            ]),
          },
          {
            label: 'fs',
            fs: { readTextFile: true, writeTextFile: true },
            steps: [
              { op: 'new_session', session: 'always', cwd: cwd.fsAlways },
              prompt('always', 'permission-write', { name: 'allow-always', answers: ['allow_always'] }),
              prompt('always', 'two-writes'),
            ],
          },
        ],
      };
      run = await runClient(plan, providerKind);
    });
    after(() => provider?.close());

    const step = (conn, name) => {
      const found = stepsOf(run.record, conn).filter((s) => s.name === name);
      assert.equal(found.length, 1, `one ${conn} step ${name}`);
      return found[0];
    };

    it('every message parses strictly with the SDK models, and the SDK delivers every update', () => {
      assert.deepEqual(
        run.record.filter((l) => ['invalid', 'sdk_error', 'unexpected', 'unused'].includes(l.kind)),
        [],
        run.output,
      );
      assert.equal(run.code, 0, run.output);
      const [sdk] = run.record;
      assert.equal(sdk.kind, 'sdk');
      assert.equal(sdk.version, PYTHON_ACP_VERSION);
      assert.deepEqual(run.record.at(-1), { ...run.record.at(-1), kind: 'done', failures: 0 });
      for (const conn of ['no-fs', 'more-frames', 'fs']) {
        const wire = run.record.filter((l) => l.kind === 'wire' && l.conn === conn);
        const updates = wire.filter((w) => w.dir === 'in' && w.msg.method === 'session/update');
        const delivered = run.record.filter((l) => l.kind === 'delivered' && l.conn === conn);
        assert.ok(updates.length > 20, `${conn}: the sessions produced updates`);
        assert.deepEqual(
          delivered.map((d) => d.sessionUpdate),
          updates.map((w) => w.msg.params.update.sessionUpdate),
        );
        // The same messages against the JSON schema (ajv), as the other end-to-end tests check.
        const methods = new Map(
          wire
            .filter((w) => w.dir === 'out' && w.msg.id !== undefined && w.msg.method !== undefined)
            .map((w) => [w.msg.id, w.msg.method]),
        );
        for (const { msg } of wire.filter((w) => w.dir === 'in'))
          assert.equal(agentMessageErrors(msg, methods.get(msg.id)), null, JSON.stringify(msg).slice(0, 300));
        // ACP's tool name is newer than this SDK, whose models ignore it (the one field they may):
        // it is on every card's tool_call, and the client still has it in _meta.tool_name.
        const named = wire
          .filter((w) => w.dir === 'in')
          .map((w) => w.msg.params?.update ?? w.msg.params?.toolCall)
          .filter((u) => typeof u?.name === 'string');
        const opened = updates.map((w) => w.msg.params.update).filter((u) => u.sessionUpdate === 'tool_call');
        assert.ok(opened.length > 0 && opened.every((u) => u.name === u._meta.tool_name), `${conn}: named cards`);
        assert.deepEqual(
          run.record
            .filter((l) => l.kind === 'newer_than_sdk' && l.conn === conn)
            .map((l) => [l.field.replace('$.toolCall.', '$.update.'), l.toolCallId, l.value]),
          named.map((u) => ['$.update.name', u.toolCallId, u.name]),
        );
        assert.deepEqual(
          run.record.filter((l) => l.kind === 'exit' && l.conn === conn).map((l) => l.code),
          [0],
          'the agent exits 0 when the client closes its stdin',
        );
      }
    });

    it('the other frames (discarded cards, early failures, the plan, reused ids, fallback, cut, stall) parse strictly; every card ends once', () => {
      const steps = stepsOf(run.record, 'more-frames').filter((x) => x.op === 'prompt');
      assert.deepEqual(
        steps.map((x) => x.name),
        FRAME_SCENARIOS,
      );
      for (const x of steps) {
        assertCardInvariants(x.wire.filter((w) => w.dir === 'in'));
        if (x.name === 'cut-after-call' && providerKind === 'anthropic') assert.equal(x.error.code, -32603);
        else assert.equal(x.result.stopReason, 'end_turn', x.name);
      }
      const delivered = new Set(steps.flatMap((x) => x.delivered.map((d) => d.type)));
      for (const type of ['AgentPlanUpdate', 'ToolCallStart', 'ToolCallProgress', 'AgentMessageChunk'])
        assert.ok(delivered.has(type), `the SDK delivered a ${type}`);
      const retry = steps.find((x) => x.name === 'overloaded-retry');
      assert.ok(
        updatesIn(retry).some((u) => u._meta?.preparationDiscarded === true),
        'a discarded card',
      );
      const plan = updatesIn(steps.find((x) => x.name === 'todo-plan')).find((u) => u.sessionUpdate === 'plan');
      assert.deepEqual(
        plan.entries.map((e) => e.status),
        ['in_progress', 'pending', 'pending'],
      );
    });

    it('initialize: with no client capabilities and with fs', () => {
      const [noFs, withFs] = ['no-fs', 'fs'].map((conn) => {
        const init = run.record.find((l) => l.kind === 'step' && l.conn === conn && l.op === 'initialize');
        const sent = run.record.find(
          (l) => l.kind === 'wire' && l.conn === conn && l.dir === 'out' && l.msg.method === 'initialize',
        );
        return { init, sent };
      });
      // The SDK leaves out a default (empty) ClientCapabilities altogether: the agent relies on no optional field.
      assert.equal('clientCapabilities' in noFs.sent.msg.params, false);
      assert.deepEqual(withFs.sent.msg.params.clientCapabilities.fs, { readTextFile: true, writeTextFile: true });
      for (const { init } of [noFs, withFs]) {
        assert.equal(init.result.protocolVersion, 1);
        assert.equal(init.result.agentInfo.name, 'toolcall-stream-agent');
        assert.deepEqual(init.result.agentCapabilities.sessionCapabilities, { close: {} });
      }
      assert.equal(run.record.filter((l) => l.kind === 'fs_write' && l.conn === 'no-fs').length, 0);
    });

    it('session/new offers the modes; session/set_mode switches to auto-edit', () => {
      const created = stepsOf(run.record, 'no-fs').find((s) => s.op === 'new_session');
      assert.equal(created.result.modes.currentModeId, 'default');
      assert.deepEqual(
        created.result.modes.availableModes.map((m) => m.id),
        ['default', 'auto-edit', 'yolo'],
      );
      const setMode = stepsOf(run.record, 'no-fs').find((s) => s.op === 'set_mode');
      assert.deepEqual(setMode.result, {});
      assert.equal(setMode.error, undefined);
    });

    it('a large write_file in auto-edit: the preparing card first, then in_progress, then one completed; the file is written; a usage frame', async () => {
      const s = step('no-fs', 'large-write');
      assert.equal(s.result.stopReason, 'end_turn');
      assertCardInvariants(s.wire.filter((w) => w.dir === 'in'));
      const id = callId('toolu_01WriteDesignNotes');
      const frames = toolFrames(s, id);
      assert.deepEqual(frames.map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      assert.equal(frames[0]._meta.phase, 'preparing');
      assert.deepEqual(frames[0].rawInput, {});
      assert.deepEqual(frames[1].rawInput, { path: 'docs/design.md', content: designDocument() });
      assert.deepEqual(frames[2].content, [
        { type: 'diff', path: path.join(cwd.write, 'docs/design.md'), oldText: '', newText: designDocument() },
      ]);
      // The SDK handed each frame to the client as the model it is.
      const kinds = s.delivered.map((d) => d.type);
      assert.ok(
        kinds.includes('ToolCallStart') && kinds.includes('ToolCallProgress') && kinds.includes('AgentThoughtChunk'),
      );
      assert.equal(await fs.readFile(path.join(cwd.write, 'docs/design.md'), 'utf8'), designDocument());
      assert.equal(s.files.length, 0, 'no fs capability: the agent wrote the file itself');
      assert.equal(usageFrames(s).length, 2, 'a usage frame after each of the two streams');
    });

    it('permission allowed once: one request for the preparing card, then completed; the file is written', async () => {
      const s = step('no-fs', 'allow');
      assert.equal(s.result.stopReason, 'end_turn');
      assertCardInvariants(s.wire.filter((w) => w.dir === 'in'));
      const id = callId('toolu_01WriteNote');
      const requests = s.wire.filter((w) => w.dir === 'in' && w.msg.method === 'session/request_permission');
      assert.equal(requests.length, 1);
      assert.equal(requests[0].msg.params.toolCall.toolCallId, id);
      assert.deepEqual(
        requests[0].msg.params.options.map((o) => o.kind),
        ['allow_always', 'allow_once', 'reject_once', 'reject_always'],
      );
      // The client's answer went back as the SDK serialized it.
      const answer = s.wire.find((w) => w.dir === 'out' && w.msg.id === requests[0].msg.id);
      assert.deepEqual(answer.msg.result, { outcome: { outcome: 'selected', optionId: 'proceed_once' } });
      assert.deepEqual(toolFrames(s, id).map(shape), ['tool_call:pending', 'tool_call_update:completed']);
      assert.equal(await fs.readFile(path.join(cwd.allow, 'notes/todo.md'), 'utf8'), NOTE);
      assert.ok(usageFrames(s).length >= 1);
    });

    it('permission rejected once: the card fails once with the reason; nothing is written', async () => {
      const s = step('no-fs', 'reject');
      assert.equal(s.result.stopReason, 'end_turn');
      assertCardInvariants(s.wire.filter((w) => w.dir === 'in'));
      const frames = toolFrames(s, callId('toolu_01WriteNote'));
      assert.deepEqual(frames.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.match(frames[1].content[0].content.text, /rejected by the user/);
      await assert.rejects(fs.stat(path.join(cwd.reject, 'notes/todo.md')), { code: 'ENOENT' });
    });

    it('session/cancel when the card appears: stopReason cancelled, the card ends once (discarded), nothing written', async () => {
      const s = step('no-fs', 'cancel-mid-arguments');
      assert.equal(s.result.stopReason, 'cancelled');
      assertCardInvariants(s.wire.filter((w) => w.dir === 'in'));
      assert.ok(s.wire.some((w) => w.dir === 'out' && w.msg.method === 'session/cancel'));
      assert.deepEqual(toolFrames(s, callId('toolu_01WriteFixtures')).map(shape), [
        'tool_call:pending',
        'tool_call_update:failed:discarded',
      ]);
      await assert.rejects(fs.stat(path.join(cwd.cancel, 'test/fixtures.js')), { code: 'ENOENT' });
    });

    it('session/set_mode with an unknown mode is invalid params, which the SDK parses', () => {
      const s = step('no-fs', 'unknown-mode');
      assert.equal(s.error.code, -32602);
      assert.match(s.error.message, /Unknown approval mode: plan/);
    });

    it('a prompt with a resource link and an embedded resource, as the SDK serializes them, reaches the model', () => {
      const s = step('no-fs', 'resources');
      assert.equal(s.result.stopReason, 'end_turn');
      const sent = s.wire.find((w) => w.dir === 'out' && w.msg.method === 'session/prompt');
      assert.deepEqual(
        sent.msg.params.prompt.map((b) => b.type),
        ['text', 'resource_link', 'resource'],
      );
      const request = provider.requests.find((r) => JSON.stringify(r.body).includes(EMBEDDED));
      assert.ok(request, 'the embedded text went to the model');
      const body = JSON.stringify(request.body);
      assert.ok(
        body.includes(JSON.stringify(`@${pathToFileURL(path.join(cwd.write, 'README.md')).href}`).slice(1, -1)),
      );
      assert.ok(body.includes('file:///elsewhere/notes.txt'));
    });

    it('a 429 after the retries is an error response the SDK parses', () => {
      const s = step('no-fs', 'rate-limited');
      assert.equal(s.error.code, 429);
      assert.match(s.error.message, /Rate limit exceeded/);
    });

    it('session/close frees the session: a later prompt on it is invalid params', () => {
      const closed = stepsOf(run.record, 'no-fs').find((x) => x.op === 'close_session');
      assert.deepEqual(closed.result, {});
      const s = step('no-fs', 'after-close');
      assert.equal(s.error.code, -32602);
      assert.equal(updatesIn(s).length, 0);
    });

    it('with fs offered: writes and reads go through the client; allow always switches the mode (current_mode_update)', async () => {
      const first = step('fs', 'allow-always');
      assert.equal(first.result.stopReason, 'end_turn');
      assertCardInvariants(first.wire.filter((w) => w.dir === 'in'));
      assert.deepEqual(
        first.files.filter((f) => f.kind === 'fs_write').map((f) => f.path),
        [path.join(cwd.fsAlways, 'notes/todo.md')],
      );
      assert.equal(await fs.readFile(path.join(cwd.fsAlways, 'notes/todo.md'), 'utf8'), NOTE);
      const modeUpdates = updatesIn(first).filter((u) => u.sessionUpdate === 'current_mode_update');
      assert.deepEqual(
        modeUpdates.map((u) => u.currentModeId),
        ['auto-edit'],
      );
      assert.ok(first.delivered.some((d) => d.type === 'CurrentModeUpdate'));

      const second = step('fs', 'two-writes');
      assert.equal(second.result.stopReason, 'end_turn');
      assertCardInvariants(second.wire.filter((w) => w.dir === 'in'));
      assert.equal(
        second.wire.filter((w) => w.dir === 'in' && w.msg.method === 'session/request_permission').length,
        0,
        'auto-edit: no question',
      );
      assert.deepEqual(
        second.files
          .filter((f) => f.kind === 'fs_write')
          .map((f) => f.path)
          .sort(),
        [path.join(cwd.fsAlways, 'notes/a.md'), path.join(cwd.fsAlways, 'notes/b.md')],
      );
      assert.ok(
        second.files.some((f) => f.kind === 'fs_read' && f.path === path.join(cwd.fsAlways, 'README.md')),
        'read_file went through fs/read_text_file',
      );
      for (const raw of ['toolu_01WriteA', 'toolu_01WriteB', 'toolu_01ReadReadmeToo'])
        assert.deepEqual(toolFrames(second, callId(raw)).map(shape), [
          'tool_call:pending',
          'tool_call_update:in_progress',
          'tool_call_update:completed',
        ]);
      assert.equal(await fs.readFile(path.join(cwd.fsAlways, 'notes/b.md'), 'utf8'), 'b\n');
      assert.equal(usageFrames(second).length, 3, 'a usage frame after each of the three streams');
    });
  });
}

describe('the strict check fails on what the SDK would salvage, skip or ignore', { skip }, () => {
  it('a stub agent: each bad update and the bad response are reported, the valid ones are not, and the client exits 1', async () => {
    const cwd = await workspace();
    const run = await runClient(
      {
        agent: { command: process.execPath, args: [MALFORMED_AGENT], env: {} },
        connections: [
          {
            label: 'stub',
            fs: null,
            steps: [
              { op: 'new_session', session: 's', cwd },
              { op: 'prompt', name: 'bad', session: 's', text: 'anything' },
            ],
          },
        ],
      },
      'malformed',
    );
    assert.equal(run.code, 1, run.output);
    const invalid = run.record.filter((l) => l.kind === 'invalid');
    const flaggedUpdates = invalid.filter((l) => l.msg?.method === 'session/update').map((l) => l.msg.params.update);
    assert.deepEqual(
      flaggedUpdates,
      UPDATES.filter((u) => u.invalid).map((u) => u.update),
    );
    // The prompt's response: the SDK refused it (the step), and so did the check of responses.
    assert.ok(invalid.some((l) => l.op === 'prompt' && /stopReason|stop_reason/.test(l.error)));
    assert.ok(invalid.some((l) => l.method === 'session/prompt' && l.msg.result.stopReason === BAD_STOP_REASON));
    // The SDK itself logged the update it could not parse at all, and delivered the rest.
    assert.ok(run.record.some((l) => l.kind === 'sdk_error'));
    assert.equal(run.record.filter((l) => l.kind === 'delivered').length, UPDATES.length - 1);
  });
});
