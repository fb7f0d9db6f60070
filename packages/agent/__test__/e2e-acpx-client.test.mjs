// End to end with a client application by other authors: the acpx headless
// CLI (npm `acpx`, its own permission policy and fs serving on
// @agentclientprotocol/sdk 1.x) runs toolcall-stream-agent as its raw agent
// command (`--agent`), one-shot (`exec`), both providers, the real provider
// SDK inside the agent against the loopback provider. `--format json` prints
// the whole JSON-RPC exchange, both directions, which this test checks: every
// agent message against the ACP schema v1, the card invariants, the files.
// acpx is installed with npm into a cache outside the repo (not a dependency
// of this package); without npm or the registry the test is skipped with the
// reason.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { agentArgs } from '../demo/harness.mjs';
import { scenarios, designDocument, NOTE } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { agentMessageErrors } from '../demo/schema.mjs';
import { workspaces, assertCardInvariants, shape } from './helpers/e2e.mjs';
import { ensureNpmPackage } from './helpers/npm-cache.mjs';

const ACPX_VERSION = '0.19.1';
const installed = ensureNpmPackage('acpx', ACPX_VERSION, 'dist/cli.js', `acpx-${ACPX_VERSION}`);
if (installed.skip) console.error(`e2e-acpx-client: skipped: ${installed.skip}`);
const skip = installed.skip ? `acpx is not available: ${installed.skip}` : false;

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-acpx-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

/**
 * The exchange acpx printed, each message with its sender: a request or
 * notification by its method, a response by the open request of the other
 * side with its id (`method` is then the request's).
 */
function exchange(stdout) {
  const AGENT_SENDS = new Set([
    'session/update',
    'session/request_permission',
    'fs/write_text_file',
    'fs/read_text_file',
  ]);
  const open = { agent: new Map(), client: new Map() };
  const messages = [];
  for (const line of stdout.split('\n').filter((l) => l.trim())) {
    const msg = JSON.parse(line);
    if (msg.method !== undefined) {
      const from = AGENT_SENDS.has(msg.method) ? 'agent' : 'client';
      if (msg.id !== undefined) open[from].set(msg.id, msg.method);
      messages.push({ from, method: msg.method, msg });
      continue;
    }
    const toAgent = open.agent.has(msg.id);
    const toClient = open.client.has(msg.id);
    assert.ok(toAgent !== toClient, `which request does ${line.slice(0, 100)} answer?`);
    const from = toClient ? 'agent' : 'client';
    const method = open[toClient ? 'client' : 'agent'].get(msg.id);
    open[toClient ? 'client' : 'agent'].delete(msg.id);
    messages.push({ from, method, msg });
  }
  return messages;
}

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`acpx ${ACPX_VERSION} as the client: ${providerKind}`, { skip }, () => {
    let provider;
    before(async () => {
      provider = await startProvider({ speed: 20, scenarioSpeed: { 'large-write': 4 } });
    });
    after(() => provider?.close());

    /** `acpx --agent <the agent> --cwd <cwd> --format json <flags> exec <the scenario's prompt>`, which must exit `exitCode`. */
    async function acpx(scenario, cwd, flags, exitCode = 0) {
      const agent = [
        process.execPath,
        ...agentArgs({ provider: providerKind, providerUrl: provider.url, retryDelayMs: 20 }),
      ]
        .map((a) => JSON.stringify(a))
        .join(' ');
      const child = spawn(
        process.execPath,
        [
          installed.path,
          '--agent',
          agent,
          '--cwd',
          cwd,
          '--format',
          'json',
          ...flags,
          'exec',
          scenarios[scenario].prompt,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            HOME: path.join(tmpRoot, 'home'),
            ANTHROPIC_API_KEY: 'sk-ant-replay',
            OPENAI_API_KEY: 'sk-replay',
          },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      // A guard against a hang only, not a timed assertion.
      const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
      const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? signal)));
      clearTimeout(guard);
      assert.equal(code, exitCode, `acpx exit code (stderr: ${stderr})`);
      const messages = exchange(stdout);
      for (const { from, method, msg } of messages.filter((m) => m.from === 'agent'))
        assert.equal(agentMessageErrors(msg, method), null, JSON.stringify(msg).slice(0, 300));
      const traffic = messages.filter((m) => m.from === 'agent' && m.method !== undefined && m.msg.method);
      assertCardInvariants(traffic);
      const updates = traffic.filter((m) => m.method === 'session/update').map((m) => m.msg.params.update);
      const prompt = messages.find((m) => m.from === 'agent' && m.method === 'session/prompt' && !m.msg.method);
      return { messages, updates, stopReason: prompt?.msg.result?.stopReason };
    }

    // A card's lifecycle frames; its live progress frames are checked apart.
    const frames = (updates, id) =>
      updates.filter(
        (u) =>
          (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') &&
          u.toolCallId === id &&
          !u._meta?.progress,
      );
    const requestsOf = (messages, method) => messages.filter((m) => m.from === 'agent' && m.msg.method === method);

    it('--approve-all: a large write asks, is allowed, and goes through acpx fs/write_text_file; usage frames', async () => {
      const cwd = await workspace();
      const { messages, updates, stopReason } = await acpx('large-write', cwd, ['--approve-all']);
      assert.equal(stopReason, 'end_turn');
      const id = callId('toolu_01WriteDesignNotes');
      const [permission] = requestsOf(messages, 'session/request_permission');
      assert.equal(permission.msg.params.toolCall.toolCallId, id);
      assert.deepEqual(frames(updates, id).map(shape), ['tool_call:pending', 'tool_call_update:completed']);
      assert.equal(frames(updates, id)[0]._meta.phase, 'preparing');
      assert.deepEqual(
        requestsOf(messages, 'fs/write_text_file').map((m) => m.msg.params.path),
        [path.join(cwd, 'docs/design.md')],
      );
      assert.equal(await fs.readFile(path.join(cwd, 'docs/design.md'), 'utf8'), designDocument());
      assert.equal(updates.filter((u) => u.sessionUpdate === 'agent_message_chunk' && u._meta?.usage).length, 2);
    });

    // acpx exits 5 (PERMISSION_DENIED) when every permission request was denied.
    it('--deny-all: the write is rejected, its card fails once, nothing is written; acpx exits 5', async () => {
      const cwd = await workspace();
      const { messages, updates, stopReason } = await acpx('permission-write', cwd, ['--deny-all'], 5);
      assert.equal(stopReason, 'end_turn');
      assert.equal(requestsOf(messages, 'session/request_permission').length, 1);
      const card = frames(updates, callId('toolu_01WriteNote'));
      assert.deepEqual(card.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.match(card[1].content[0].content.text, /rejected by the user/);
      assert.equal(requestsOf(messages, 'fs/write_text_file').length, 0);
      await assert.rejects(fs.stat(path.join(cwd, 'notes/todo.md')), { code: 'ENOENT' });
    });

    it('--no-fs --approve-all: the agent writes the file itself', async () => {
      const cwd = await workspace();
      const { messages, updates, stopReason } = await acpx('permission-write', cwd, ['--no-fs', '--approve-all']);
      assert.equal(stopReason, 'end_turn');
      const init = messages.find((m) => m.from === 'client' && m.method === 'initialize');
      assert.notEqual(init.msg.params.clientCapabilities?.fs?.writeTextFile, true);
      assert.deepEqual(frames(updates, callId('toolu_01WriteNote')).map(shape), [
        'tool_call:pending',
        'tool_call_update:completed',
      ]);
      assert.equal(requestsOf(messages, 'fs/write_text_file').length, 0);
      assert.equal(await fs.readFile(path.join(cwd, 'notes/todo.md'), 'utf8'), NOTE);
    });
  });
}
