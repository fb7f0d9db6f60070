// End to end with an older JavaScript client: @zed-industries/agent-client-protocol
// 0.4.5 (the ACP SDK as Zed first published it, zod schemas of its own,
// before the @agentclientprotocol/sdk rewrite) drives toolcall-stream-agent
// over real stdio pipes, both providers, the real provider SDK inside the
// agent against the loopback provider. The package is installed with npm
// into a cache outside the repo (helpers/npm-cache.mjs; not a dependency of
// this package); when npm or the registry is missing, the test is skipped
// with the reason.
//
// Its ClientSideConnection parses every update and request with zod before
// the client sees it; a parse error would only be logged, so each message is
// also parsed here with the same schemas, strictly (nothing the agent sent
// may be stripped or changed), responses included.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { startProvider } from '../demo/provider.mjs';
import { agentArgs } from '../demo/harness.mjs';
import { scenarios, designDocument, NOTE, FALLBACK_MODEL } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { workspaces, assertCardInvariants, framesOf, shape, FRAME_SCENARIOS } from './helpers/e2e.mjs';
import { ensureNpmPackage } from './helpers/npm-cache.mjs';

const ZED_SDK_VERSION = '0.4.5';
const PACKAGE = '@zed-industries/agent-client-protocol';
const installed = ensureNpmPackage(PACKAGE, ZED_SDK_VERSION, 'dist/acp.js', `zed-acp-${ZED_SDK_VERSION}`);
if (installed.skip) console.error(`e2e-zed-sdk-client: skipped: ${installed.skip}`);
const skip = installed.skip ? `the old ACP SDK is not available: ${installed.skip}` : false;
const acp = installed.skip ? null : await import(pathToFileURL(installed.path).href);

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-zed-sdk-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);
// Agents a failed assertion left running.
const children = new Set();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Every place where `parsed` lost or changed what `sent` had (array indices as []). */
function lost(sent, parsed, where = '$', found = []) {
  if (sent !== null && typeof sent === 'object') {
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(sent) !== Array.isArray(parsed))
      found.push(`${where} changed`);
    else if (Array.isArray(sent) && sent.length !== parsed.length) found.push(`${where}: items dropped`);
    else
      for (const key of Object.keys(sent)) {
        const at = Array.isArray(sent) ? `${where}[]` : `${where}.${key}`;
        if (!(key in parsed)) found.push(`${at} was stripped`);
        else lost(sent[key], parsed[key], at, found);
      }
  } else if (!Object.is(sent, parsed)) found.push(`${where}: ${JSON.stringify(sent)} became ${JSON.stringify(parsed)}`);
  return found;
}

/**
 * What the 0.4.5 schema predates, so its zod objects strip it: later, optional
 * additions to schema v1 that an older client rightly ignores. Anything else
 * stripped or changed fails the test.
 */
const NEWER_THAN_THE_CLIENT = {
  'initialize $.agentCapabilities.sessionCapabilities was stripped': 'session/close support, advertised',
  'initialize $.agentInfo was stripped': "the agent's name and version",
  'session/update agent_message_chunk $.update._meta was stripped':
    "the usage frame's token counts (Qwen Code's _meta.usage on an empty chunk; the chunk itself parses)",
  // ACP's Tool Call Name RFD; the client still reads the name from _meta.tool_name, as Zed does.
  'session/update tool_call $.update.name was stripped': "ACP's tool name on the card that opens",
  'session/update tool_call_update $.update.name was stripped': "ACP's tool name on a start that renames the card",
  'session/request_permission $.toolCall.name was stripped': "ACP's tool name on a request that opens the card",
};

/** The zod schema for an agent message: a request or notification by its method, a response by its request's. */
function schemaFor(msg, requestMethod) {
  const byMethod = {
    'session/update': acp.sessionNotificationSchema,
    'session/request_permission': acp.requestPermissionRequestSchema,
    'fs/write_text_file': acp.writeTextFileRequestSchema,
    'fs/read_text_file': acp.readTextFileRequestSchema,
  };
  const byResponse = {
    initialize: acp.initializeResponseSchema,
    'session/new': acp.newSessionResponseSchema,
    'session/set_mode': acp.setSessionModeResponseSchema,
    'session/prompt': acp.promptResponseSchema,
  };
  return msg.method !== undefined ? byMethod[msg.method] : byResponse[requestMethod];
}

/** The agent as a child process, driven by the old SDK's ClientSideConnection; every raw message kept. */
async function launch(providerKind, providerUrl, { fsCapability, answers, extraArgs = [] }) {
  const child = spawn(
    process.execPath,
    agentArgs({ provider: providerKind, providerUrl, retryDelayMs: 20, extraArgs }),
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-replay', OPENAI_API_KEY: 'sk-replay' },
    },
  );
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const wire = [];
  const requestMethods = new Map();
  const delivered = [];
  const fsCalls = [];
  const lineTap = (onMessage) => {
    let pending = '';
    const decoder = new TextDecoder();
    return new TransformStream({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (line) onMessage(JSON.parse(line));
        }
        controller.enqueue(chunk);
      },
    });
  };
  const incoming = Readable.toWeb(child.stdout).pipeThrough(lineTap((msg) => wire.push(msg)));
  const outgoing = lineTap((msg) => {
    if (msg.method !== undefined && msg.id !== undefined) requestMethods.set(msg.id, msg.method);
  });
  outgoing.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});

  let cancelOn = null;
  const connection = new acp.ClientSideConnection(
    (agent) => ({
      async requestPermission(params) {
        const kind = answers.shift();
        if (kind === undefined) throw new Error(`unexpected permission request for ${params.toolCall.toolCallId}`);
        const option = params.options.find((o) => o.kind === kind);
        return { outcome: { outcome: 'selected', optionId: option.optionId } };
      },
      async sessionUpdate(params) {
        delivered.push(params);
        const u = params.update;
        if (cancelOn && u.sessionUpdate === 'tool_call' && u.toolCallId === cancelOn) {
          cancelOn = null;
          await agent.cancel({ sessionId: params.sessionId });
        }
      },
      async writeTextFile({ path: file, content }) {
        fsCalls.push(['write', file]);
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, content);
        return {};
      },
      async readTextFile({ path: file }) {
        fsCalls.push(['read', file]);
        return { content: await fs.readFile(file, 'utf8') };
      },
    }),
    acp.ndJsonStream(outgoing.writable, incoming),
  );
  const init = await connection.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fsCapability, writeTextFile: fsCapability } },
  });
  return {
    connection,
    init,
    wire,
    delivered,
    fsCalls,
    cancelWhenCardOpens(id) {
      cancelOn = id;
    },
    /** Every agent message parses with the SDK's zod schema, and nothing in it is stripped or changed. */
    assertStrict() {
      const stripped = new Set();
      for (const msg of wire) {
        if ('error' in msg) {
          // JSON-RPC errors: 0.4.5 has no schema for them, its Connection reads code, message and data.
          assert.ok(Number.isInteger(msg.error.code) && typeof msg.error.message === 'string', JSON.stringify(msg));
          continue;
        }
        const schema = schemaFor(msg, requestMethods.get(msg.id));
        assert.ok(schema, `no schema for ${JSON.stringify(msg).slice(0, 200)}`);
        const value = msg.method !== undefined ? msg.params : msg.result;
        const parsed = schema.safeParse(value);
        assert.ok(parsed.success, `${JSON.stringify(msg).slice(0, 300)}: ${parsed.error}`);
        const what = msg.method ?? requestMethods.get(msg.id);
        const kind = msg.method === 'session/update' ? ` ${msg.params.update.sessionUpdate}` : '';
        for (const diff of lost(value, parsed.data)) stripped.add(`${what}${kind} ${diff}`);
      }
      for (const diff of stripped) assert.ok(diff in NEWER_THAN_THE_CLIENT, `the old SDK lost: ${diff}`);
      const updates = wire.filter((m) => m.method === 'session/update');
      assert.equal(delivered.length, updates.length, 'the SDK handed every update to the client');
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      assert.equal(code, 0, `agent exit code (stderr: ${stderr})`);
    },
  };
}

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`${PACKAGE} ${ZED_SDK_VERSION} as the client: ${providerKind}`, { skip }, () => {
    let provider;
    before(async () => {
      provider = await startProvider({ speed: 20, scenarioSpeed: { 'large-write': 4 } });
    });
    after(() => provider?.close());

    const updatesOf = (client, sessionId) =>
      client.wire
        .filter((m) => m.method === 'session/update' && m.params.sessionId === sessionId)
        .map((m) => ({ update: m.params.update }));
    const prompt = (client, sessionId, name) =>
      client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: scenarios[name].prompt }] });

    it('no fs: set_mode, a large write (preparing, in_progress, completed), allow, reject, cancel; every message parses strictly', async () => {
      const answers = [];
      const client = await launch(providerKind, provider.url, { fsCapability: false, answers });
      assert.equal(client.init.protocolVersion, 1);

      const write = await workspace();
      const { sessionId: s1, modes } = await client.connection.newSession({ cwd: write, mcpServers: [] });
      assert.equal(modes.currentModeId, 'default');
      assert.deepEqual(await client.connection.setSessionMode({ sessionId: s1, modeId: 'auto-edit' }), {});
      assert.equal((await prompt(client, s1, 'large-write')).stopReason, 'end_turn');
      assertCardInvariants(updatesOf(client, s1));
      assert.deepEqual(framesOf(updatesOf(client, s1), callId('toolu_01WriteDesignNotes')).map(shape), [
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      assert.equal(await fs.readFile(path.join(write, 'docs/design.md'), 'utf8'), designDocument());
      assert.ok(
        updatesOf(client, s1).some((e) => e.update.sessionUpdate === 'agent_message_chunk' && e.update._meta?.usage),
        'a usage frame',
      );

      for (const [kind, terminal] of [
        ['allow_once', 'completed'],
        ['reject_once', 'failed'],
      ]) {
        const cwd = await workspace();
        const { sessionId } = await client.connection.newSession({ cwd, mcpServers: [] });
        answers.push(kind);
        assert.equal((await prompt(client, sessionId, 'permission-write')).stopReason, 'end_turn');
        assertCardInvariants(updatesOf(client, sessionId));
        assert.deepEqual(framesOf(updatesOf(client, sessionId), callId('toolu_01WriteNote')).map(shape), [
          'tool_call:pending',
          `tool_call_update:${terminal}`,
        ]);
        const written = await fs.readFile(path.join(cwd, 'notes/todo.md'), 'utf8').catch(() => null);
        assert.equal(written, kind === 'allow_once' ? NOTE : null);
      }

      const cwd = await workspace();
      const { sessionId } = await client.connection.newSession({ cwd, mcpServers: [] });
      client.cancelWhenCardOpens(callId('toolu_01WriteFixtures'));
      assert.equal((await prompt(client, sessionId, 'cancel-mid-arguments')).stopReason, 'cancelled');
      assertCardInvariants(updatesOf(client, sessionId));
      assert.deepEqual(framesOf(updatesOf(client, sessionId), callId('toolu_01WriteFixtures')).map(shape), [
        'tool_call:pending',
        'tool_call_update:failed:discarded',
      ]);
      assert.deepEqual(answers, []);
      assert.deepEqual(client.fsCalls, []);
      client.assertStrict();
      await client.close();
    });

    it('the other frames (discarded cards, early failures, the plan, reused ids, fallback, cut, stall) parse; every card ends once', async () => {
      const client = await launch(providerKind, provider.url, {
        fsCapability: false,
        answers: [],
        extraArgs: [
          '--approve=always',
          '--model',
          'replay-primary',
          '--fallback-model',
          FALLBACK_MODEL,
          '--stall-timeout-ms',
          '400',
        ],
      });
      const kinds = new Set();
      for (const name of FRAME_SCENARIOS) {
        const { sessionId } = await client.connection.newSession({ cwd: await workspace(), mcpServers: [] });
        const outcome = await prompt(client, sessionId, name).then(
          (response) => ({ response }),
          (error) => ({ error }),
        );
        // Anthropic: the call was complete when the socket was cut, so no retry: the prompt fails.
        if (name === 'cut-after-call' && providerKind === 'anthropic') assert.equal(outcome.error?.code, -32603);
        else assert.equal(outcome.response?.stopReason, 'end_turn', `${name}: ${JSON.stringify(outcome.error)}`);
        assertCardInvariants(updatesOf(client, sessionId));
        for (const { update } of updatesOf(client, sessionId)) kinds.add(update.sessionUpdate);
      }
      assert.ok(kinds.has('plan'));
      client.assertStrict();
      await client.close();
    });

    it('fs offered: allow always (current_mode_update), then writes and a read through the client', async () => {
      const answers = ['allow_always'];
      const client = await launch(providerKind, provider.url, { fsCapability: true, answers });
      const cwd = await workspace();
      const { sessionId } = await client.connection.newSession({ cwd, mcpServers: [] });
      assert.equal((await prompt(client, sessionId, 'permission-write')).stopReason, 'end_turn');
      assert.equal((await prompt(client, sessionId, 'two-writes')).stopReason, 'end_turn');
      assertCardInvariants(updatesOf(client, sessionId));
      assert.deepEqual(
        updatesOf(client, sessionId)
          .filter((e) => e.update.sessionUpdate === 'current_mode_update')
          .map((e) => e.update.currentModeId),
        ['auto-edit'],
      );
      assert.deepEqual(
        client.fsCalls.filter(([op]) => op === 'write').map(([, file]) => file),
        ['notes/todo.md', 'notes/a.md', 'notes/b.md'].map((f) => path.join(cwd, f)),
      );
      assert.ok(client.fsCalls.some(([op, file]) => op === 'read' && file === path.join(cwd, 'README.md')));
      assert.equal(await fs.readFile(path.join(cwd, 'notes/b.md'), 'utf8'), 'b\n');
      client.assertStrict();
      await client.close();
    });
  });
}
