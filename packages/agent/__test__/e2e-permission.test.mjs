// End to end: asking before a write. bin/agent.js in its default mode (a
// child process over real stdio pipes, the real provider SDK against the
// loopback provider) and a scripted ACP client that answers each
// session/request_permission as the test says. Allow once, reject once, allow
// always (the session switches to auto-edit), reject always, the modes
// (session/new, session/set_mode, --approve=always), and writes through the
// client's fs/write_text_file when it offers it. Every message the agent
// wrote is validated against the ACP schema v1, responses included.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent } from '../demo/harness.mjs';
import { scenarios, NOTE } from '../demo/scenarios.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { workspaces, assertCardInvariants, trafficOf, framesOf, shape, assertWireValid } from './helpers/e2e.mjs';

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-permission-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (anthropicId) => (providerKind === 'openai' ? openaiCallId(anthropicId) : anthropicId);

  describe(`permission before writing: ${providerKind}`, () => {
    let provider;
    const agents = [];
    // The scripted user's next answers, in order (an option kind or 'cancelled').
    let answers = [];

    before(async () => {
      provider = await startProvider({ speed: 20 });
    });
    after(async () => {
      for (const agent of agents) {
        assertWireValid(agent);
        const exit = await agent.close();
        assert.equal(exit.code, 0, `agent exit code (stderr: ${agent.stderr})`);
      }
      await provider?.close();
    });

    async function launch(options = {}) {
      const agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        permission: (params) => {
          const kind = answers.shift();
          if (kind === undefined) throw new Error(`unexpected permission request for ${params.toolCall.toolCallId}`);
          if (kind === 'cancelled') return { outcome: { outcome: 'cancelled' } };
          return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === kind).optionId } };
        },
        ...options,
      });
      agents.push(agent);
      return agent;
    }

    let agent;
    before(async () => {
      agent = await launch();
    });

    async function prompt(a, sessionId, name) {
      const response = await a.prompt(sessionId, scenarios[name].prompt);
      assertCardInvariants(trafficOf(a, sessionId));
      return response;
    }
    const requestsFor = (name, cwd) =>
      provider.requests.filter((r) => r.scenario === name && JSON.stringify(r.body).includes(cwd));
    /** The tool results the model got in a request, as [id, text, isError]. */
    const toolResults = (body) =>
      providerKind === 'anthropic'
        ? body.messages
            .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
            .filter((b) => b.type === 'tool_result')
            .map((b) => [b.tool_use_id, b.content, b.is_error === true])
        : body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content, undefined]);

    it('session/new offers the modes, default first and current', async () => {
      const { modes } = await agent.newSessionResponse(await workspace());
      assert.equal(modes.currentModeId, 'default');
      assert.deepEqual(
        modes.availableModes.map((m) => m.id),
        ['default', 'auto-edit', 'yolo'],
      );
    });

    it('allow once: the preparing card is the request (one toolCallId, the diff, no in_progress), then completed; the file is written', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      answers = ['allow_once'];
      const response = await prompt(agent, sessionId, 'permission-write');
      assert.equal(response.stopReason, 'end_turn');
      const id = callId('toolu_01WriteNote');
      const [request, ...more] = agent.permissionRequests(sessionId);
      assert.deepEqual(more, [], 'one request');
      assert.equal(request.toolCall.toolCallId, id);
      assert.equal(request.toolCall.status, 'pending');
      assert.equal(request.toolCall.kind, 'edit');
      assert.deepEqual(request.toolCall.rawInput, { path: 'notes/todo.md', content: NOTE });
      assert.deepEqual(request.toolCall.content, [
        { type: 'diff', path: path.join(cwd, 'notes/todo.md'), oldText: '', newText: NOTE },
      ]);
      assert.deepEqual(
        request.options.map((o) => o.kind),
        ['allow_always', 'allow_once', 'reject_once', 'reject_always'],
      );
      const frames = framesOf(agent.updates(sessionId), id);
      assert.deepEqual(frames.map(shape), ['tool_call:pending', 'tool_call_update:completed']);
      // The request came after the preparing card and before the result.
      const preparingAt = agent.updates(sessionId).find((e) => e.update === frames[0]).at;
      const doneAt = agent.updates(sessionId).find((e) => e.update === frames[1]).at;
      assert.ok(preparingAt <= request.at && request.at <= doneAt);
      assert.equal(await fs.readFile(path.join(cwd, 'notes/todo.md'), 'utf8'), NOTE);
      assert.equal(requestsFor('permission-write', cwd).length, 2, 'the model got the result and answered');
    });

    it('reject once: the card fails with a clear message, nothing is written, the turn ends, and the model is told', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      answers = ['reject_once'];
      const response = await prompt(agent, sessionId, 'permission-write');
      assert.equal(response.stopReason, 'end_turn');
      const id = callId('toolu_01WriteNote');
      const frames = framesOf(agent.updates(sessionId), id);
      assert.deepEqual(frames.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.equal(frames[1]._meta.preparationDiscarded, undefined);
      assert.match(frames[1].content[0].content.text, /^Tool "write_file" was rejected by the user/);
      await assert.rejects(fs.stat(path.join(cwd, 'notes/todo.md')), { code: 'ENOENT' });
      assert.equal(requestsFor('permission-write', cwd).length, 1, 'the turn ended with the rejection');

      // The next prompt carries the rejection to the model.
      answers = ['allow_once'];
      await prompt(agent, sessionId, 'permission-write');
      const next = requestsFor('permission-write', cwd)[1];
      const [rejected] = toolResults(next.body);
      assert.equal(rejected[0], id);
      assert.match(rejected[1], /was rejected by the user/);
      if (providerKind === 'anthropic') assert.equal(rejected[2], true);
    });

    it('a rejection skips the rest of its batch: the later call is not run, its card fails with the reason, and the model gets its result', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      // notes/a.md is allowed; notes/b.md, asked in the next batch beside a read, is rejected.
      answers = ['allow_once', 'reject_once'];
      const response = await prompt(agent, sessionId, 'two-writes');
      assert.equal(response.stopReason, 'end_turn');
      const updates = agent.updates(sessionId);
      assert.deepEqual(framesOf(updates, callId('toolu_01WriteB')).map(shape), [
        'tool_call:pending',
        'tool_call_update:failed',
      ]);
      const skipped = framesOf(updates, callId('toolu_01ReadReadmeToo'));
      assert.deepEqual(skipped.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.match(skipped[1].content[0].content.text, /^Skipped because a permission request was cancelled/);
      assert.equal(await fs.readFile(path.join(cwd, 'notes/a.md'), 'utf8'), 'a\n');
      await assert.rejects(fs.stat(path.join(cwd, 'notes/b.md')), { code: 'ENOENT' });
      assert.equal(requestsFor('two-writes', cwd).length, 2, 'the turn ended with the rejection');

      // The next prompt carries both answers to the model.
      answers = ['allow_once'];
      await prompt(agent, sessionId, 'permission-write');
      const next = requestsFor('permission-write', cwd).at(-1);
      const told = new Map(toolResults(next.body).map(([id, text]) => [id, text]));
      assert.match(told.get(callId('toolu_01WriteB')), /was rejected by the user/);
      assert.match(told.get(callId('toolu_01ReadReadmeToo')), /^Skipped because/);
    });

    it('a cancelled permission request (no answer) fails the card as cancelled by the user', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      answers = ['cancelled'];
      const response = await prompt(agent, sessionId, 'permission-write');
      assert.equal(response.stopReason, 'end_turn');
      const frames = framesOf(agent.updates(sessionId), callId('toolu_01WriteNote'));
      assert.deepEqual(frames.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.equal(frames[1].content[0].content.text, 'Tool "write_file" was canceled by the user.');
      await assert.rejects(fs.stat(path.join(cwd, 'notes/todo.md')), { code: 'ENOENT' });
    });

    it('session/cancel while the request is open: the card ends, the turn is cancelled, nothing is written', async () => {
      const cwd = await workspace();
      let sessionId;
      const a = await launch({
        // The user never answers; the client sends session/cancel instead.
        permission: () => {
          a.cancel(sessionId);
          return new Promise(() => {});
        },
      });
      sessionId = await a.newSession(cwd);
      const response = await a.prompt(sessionId, scenarios['permission-write'].prompt);
      assert.equal(response.stopReason, 'cancelled');
      assertCardInvariants(trafficOf(a, sessionId));
      const frames = framesOf(a.updates(sessionId), callId('toolu_01WriteNote'));
      assert.deepEqual(frames.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      await assert.rejects(fs.stat(path.join(cwd, 'notes/todo.md')), { code: 'ENOENT' });
    });

    it('allow always: one request, the session switches to auto-edit (current_mode_update), the next write does not ask; reads never ask', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      answers = ['allow_always'];
      const response = await prompt(agent, sessionId, 'two-writes');
      assert.equal(response.stopReason, 'end_turn');
      assert.equal(agent.permissionRequests(sessionId).length, 1);
      const updates = agent.updates(sessionId);
      assert.deepEqual(
        updates.map((e) => e.update).filter((u) => u.sessionUpdate === 'current_mode_update'),
        [{ sessionUpdate: 'current_mode_update', currentModeId: 'auto-edit' }],
      );
      assert.deepEqual(framesOf(updates, callId('toolu_01WriteA')).map(shape), [
        'tool_call:pending',
        'tool_call_update:completed',
      ]);
      for (const id of ['toolu_01WriteB', 'toolu_01ReadReadmeToo'])
        assert.deepEqual(framesOf(updates, callId(id)).map(shape), [
          'tool_call:pending',
          'tool_call_update:in_progress',
          'tool_call_update:completed',
        ]);
      assert.equal(await fs.readFile(path.join(cwd, 'notes/a.md'), 'utf8'), 'a\n');
      assert.equal(await fs.readFile(path.join(cwd, 'notes/b.md'), 'utf8'), 'b\n');
      // The answer holds for this ACP session only.
      const other = await agent.newSessionResponse(await workspace());
      assert.equal(other.modes.currentModeId, 'default');
    });

    it('reject always: later writes of the session are refused without asking, and the model is told why', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      answers = ['reject_always'];
      await prompt(agent, sessionId, 'permission-write');
      assert.equal(agent.permissionRequests(sessionId).length, 1);
      const response = await prompt(agent, sessionId, 'two-writes');
      assert.equal(response.stopReason, 'end_turn');
      assert.equal(agent.permissionRequests(sessionId).length, 1, 'no further request');
      const updates = agent.updates(sessionId);
      const refused = framesOf(updates, callId('toolu_01WriteA'));
      assert.deepEqual(refused.map(shape), ['tool_call:pending', 'tool_call_update:failed']);
      assert.match(refused[1].content[0].content.text, /rejected all edits in this ACP session/);
      await assert.rejects(fs.stat(path.join(cwd, 'notes/a.md')), { code: 'ENOENT' });
      await assert.rejects(fs.stat(path.join(cwd, 'notes/b.md')), { code: 'ENOENT' });
      // The model was told, and the read in the same batch still ran.
      const last = requestsFor('two-writes', cwd).at(-1);
      assert.ok(toolResults(last.body).some(([, t]) => /rejected all edits/.test(t)));
      assert.deepEqual(
        framesOf(updates, callId('toolu_01ReadReadmeToo')).map(shape).at(-1),
        'tool_call_update:completed',
      );
    });

    it('session/set_mode: yolo stops asking, default asks again; an unknown mode is invalid params', async () => {
      const cwd = await workspace();
      const sessionId = await agent.newSession(cwd);
      assert.deepEqual(await agent.setMode(sessionId, 'yolo'), {});
      answers = [];
      await prompt(agent, sessionId, 'permission-write');
      assert.equal(agent.permissionRequests(sessionId).length, 0);
      assert.equal(await fs.readFile(path.join(cwd, 'notes/todo.md'), 'utf8'), NOTE);
      await agent.setMode(sessionId, 'default');
      answers = ['reject_once'];
      await prompt(agent, sessionId, 'permission-write');
      assert.equal(agent.permissionRequests(sessionId).length, 1);
      await assert.rejects(agent.setMode(sessionId, 'plan-everything'), (err) => {
        assert.equal(err.code, -32602);
        return true;
      });
    });

    it('--approve=always: sessions start in yolo and never ask', async () => {
      const a = await launch({ extraArgs: ['--approve=always'] });
      const cwd = await workspace();
      const { sessionId, modes } = await a.newSessionResponse(cwd);
      assert.equal(modes.currentModeId, 'yolo');
      answers = [];
      const response = await prompt(a, sessionId, 'permission-write');
      assert.equal(response.stopReason, 'end_turn');
      assert.equal(a.permissionRequests(sessionId).length, 0);
      assert.equal(await fs.readFile(path.join(cwd, 'notes/todo.md'), 'utf8'), NOTE);
    });

    it('a client that offers fs/read_text_file and fs/write_text_file: reads and the old text of the diff come from the editor, the write goes to it', async () => {
      const reads = [];
      const writes = [];
      const buffers = new Map();
      const a = await launch({
        fs: { readTextFile: true, writeTextFile: true },
        onReadTextFile: (params) => {
          reads.push(params.path);
          return { content: buffers.get(params.path) ?? '' };
        },
        onWriteTextFile: (params) => {
          writes.push(params.path);
          buffers.set(params.path, params.content);
          return {};
        },
      });
      const cwd = await workspace();
      const sessionId = await a.newSession(cwd);
      // An unsaved edit in the editor: the agent must see it, not the disk.
      buffers.set(path.join(cwd, 'README.md'), '# unsaved edit\n');
      await fs.mkdir(path.join(cwd, 'notes'));
      await fs.writeFile(path.join(cwd, 'notes/todo.md'), 'on disk\n');
      buffers.set(path.join(cwd, 'notes/todo.md'), 'in the editor\n');
      answers = ['allow_once'];
      await prompt(a, sessionId, 'permission-write');
      const [asked] = a.permissionRequests(sessionId);
      assert.equal(asked.toolCall.content[0].oldText, 'in the editor\n', 'the diff starts from the buffer');
      assert.equal(
        await fs.readFile(path.join(cwd, 'notes/todo.md'), 'utf8'),
        'on disk\n',
        'the editor wrote, not the agent',
      );
      assert.equal(buffers.get(path.join(cwd, 'notes/todo.md')), NOTE);
      writes.length = 0;
      answers = ['allow_always'];
      const response = await prompt(a, sessionId, 'two-writes');
      assert.equal(response.stopReason, 'end_turn');
      const readCard = framesOf(a.updates(sessionId), callId('toolu_01ReadReadmeToo'));
      assert.equal(readCard.at(-1).content[0].content.text, '# unsaved edit\n');
      assert.ok(reads.includes(path.join(cwd, 'README.md')));
      assert.deepEqual(writes, [path.join(cwd, 'notes/a.md'), path.join(cwd, 'notes/b.md')]);
      const told = toolResults(requestsFor('two-writes', cwd).at(-1).body);
      assert.ok(
        told.some(([, t]) => t === '# unsaved edit\n'),
        'the model read the buffer',
      );
    });

    it('a client that offers fs/write_text_file gets the write, after the permission request', async () => {
      const writes = [];
      const a = await launch({
        fs: { writeTextFile: true },
        onWriteTextFile: (params) => {
          writes.push(params);
          return {};
        },
      });
      const cwd = await workspace();
      const sessionId = await a.newSession(cwd);
      answers = ['allow_once'];
      const response = await prompt(a, sessionId, 'permission-write');
      assert.equal(response.stopReason, 'end_turn');
      assert.deepEqual(writes, [{ sessionId, path: path.join(cwd, 'notes/todo.md'), content: NOTE }]);
      await assert.rejects(
        fs.stat(path.join(cwd, 'notes/todo.md')),
        { code: 'ENOENT' },
        'the client wrote it, not the agent',
      );
      const requestAt = a.permissionRequests(sessionId)[0].at;
      const writeAt = a.wire.find((e) => e.msg.method === 'fs/write_text_file').at;
      assert.ok(requestAt < writeAt, 'asked first');
    });
  });
}
