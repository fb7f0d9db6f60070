// The agent cannot be hung, flooded or tricked into running half a call. Each
// case is driven end to end: the real provider SDK inside
// bin/agent.js against the loopback provider (scripted streams: truncated and
// malformed arguments, duplicate ids, stalls, cut sockets, endless lines, tens
// of megabytes of arguments), the official ACP client over real pipes, real
// FIFOs. Each case asserts where files landed, that every card ended once,
// what the model was told, that every frame validates against the ACP schema
// and stays below the frame bound, and that the session still works after.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startProvider } from '../demo/provider.mjs';
import { launchAgent } from '../demo/harness.mjs';
import { closeChecked } from './helpers/e2e.mjs';
import { openaiCallId } from '../demo/sse-body.mjs';
import { sessionNotificationErrors } from '../demo/schema.mjs';

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-safety-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));

const DONE = [{ blocks: [{ type: 'text', text: 'Done.' }], stop: 'end_turn' }];
const use = (id, name, input, extra = {}) => ({ type: 'tool_use', id, name, input, ...extra });
/** A prompt whose first model turn has `attempts`, then a closing text turn. */
const scenario = (prompt, attempts) => ({ prompt, turns: [attempts, DONE] });
const oneAttempt = (prompt, blocks, stop = 'tool_use') => scenario(prompt, [{ blocks, stop }]);

const BIG_CONTROL = '\u0001'.repeat(1_500_000); // 9 MB of JSON
const HUGE_CONTROL = '\u0001'.repeat(6_000_000); // 36 MB of JSON
const stallWrite = use('toolu_01Stall', 'write_file', { path: 'stall.txt', content: 'after the stall\n' });
const noStopWrite = use('toolu_01NoStop', 'write_file', { path: 'nostop.txt', content: 'complete\n' });
const cutWrite = use('toolu_01Cut', 'write_file', { path: 'cut.txt', content: 'after the cut\n' });

const scenarios = {
  'max-tokens': oneAttempt(
    'Write a long file until the tokens run out.',
    [use('toolu_01MaxTok', 'write_file', null, { rawInput: '{"path":"maxtok.txt","content":"first half of a lo' })],
    'max_tokens',
  ),
  repaired: oneAttempt('Write with malformed arguments.', [
    use('toolu_01Repaired', 'write_file', null, { rawInput: '{"path":"repaired.txt","content":"x",}' }),
  ]),
  'array-args': oneAttempt('Call a tool with array arguments.', [
    use('toolu_01Array', 'write_file', null, { rawInput: '["array.txt","x"]' }),
  ]),
  'prototype-names': oneAttempt('Call tools named like Object.prototype keys.', [
    use('toolu_01Ctor', 'constructor', { path: 'a.txt' }),
    use('toolu_01ToString', 'toString', {}),
    use('toolu_01HasOwn', 'hasOwnProperty', { path: 'b.txt' }),
  ]),
  'duplicate-ids': oneAttempt('Two calls with one id.', [
    use('toolu_01Dup', 'write_file', { path: 'first.txt', content: 'first\n' }),
    use('toolu_01Dup', 'write_file', { path: 'second.txt', content: 'second\n' }),
  ]),
  fifos: oneAttempt('Touch every pipe.', [
    use('toolu_01FifoW1', 'write_file', { path: 'pipe1', content: 'x' }),
    use('toolu_01FifoR1', 'read_file', { path: 'pipe1' }),
    use('toolu_01FifoW2', 'write_file', { path: 'pipe2', content: 'x' }),
    use('toolu_01FifoR2', 'read_file', { path: 'pipe2' }),
    use('toolu_01FifoL', 'list_directory', { path: 'pipe1' }),
  ]),
  'big-write': oneAttempt('Write nine megabytes of JSON.', [
    use('toolu_01Big', 'write_file', { path: 'big.txt', content: BIG_CONTROL }, { pieceBytes: 65536 }),
  ]),
  'huge-write': oneAttempt('Write a note, then thirty-six megabytes of JSON.', [
    { type: 'text', text: 'Writing both files.' },
    use('toolu_01BeforeHuge', 'write_file', { path: 'before.txt', content: 'complete\n' }),
    use('toolu_01Huge', 'write_file', { path: 'huge.txt', content: HUGE_CONTROL }, { pieceBytes: 262144 }),
  ]),
  'overwrite-large': oneAttempt('Overwrite the large file.', [
    use('toolu_01OverLarge', 'write_file', { path: 'large.log', content: 'short now\n' }),
  ]),
  'read-control': oneAttempt('Read the control characters.', [
    use('toolu_01ReadCtl', 'read_file', { path: 'control.txt' }),
  ]),
  stall: scenario('Write after a stall.', [
    { blocks: [stallWrite], stop: 'tool_use', interrupt: { block: 0, fraction: 0.5, then: 'stall' } },
    { blocks: [stallWrite], stop: 'tool_use' },
  ]),
  'no-stop': scenario('Write from a stream without message_stop.', [
    { blocks: [noStopWrite], stop: 'tool_use', omitStop: true },
    { blocks: [noStopWrite], stop: 'tool_use' },
  ]),
  cut: scenario('Write after a cut socket.', [
    { blocks: [cutWrite], stop: 'tool_use', interrupt: { block: 0, fraction: 0.5, then: 'cut' } },
    { blocks: [cutWrite], stop: 'tool_use' },
  ]),
  unterminated: scenario('Stream an endless line.', [
    {
      blocks: [use('toolu_01Endless', 'write_file', { path: 'endless.txt', content: 'x' })],
      stop: 'tool_use',
      interrupt: { block: 0, fraction: 0.5, then: 'unterminated' },
    },
  ]),
  whitespace: scenario('Stream endless whitespace.', [
    {
      blocks: [use('toolu_01Blank', 'write_file', { path: 'blank.txt', content: 'x' })],
      stop: 'tool_use',
      interrupt: { block: 0, fraction: 0.5, then: 'whitespace' },
    },
  ]),
  slow: oneAttempt('Talk slowly.', [{ type: 'text', text: 'word '.repeat(400) }], 'end_turn'),
  after: oneAttempt('Now write a normal file.', [
    use('toolu_01Normal', 'write_file', { path: 'notes/ok.txt', content: 'ok\n' }),
  ]),
};
const FAST = { 'big-write': 1e6, 'huge-write': 1e6, slow: 1 };

let count = 0;
async function workspace() {
  const ws = path.join(tmpRoot, String(++count), 'ws');
  await fs.mkdir(ws, { recursive: true });
  return fs.realpath(ws);
}
const listing = async (dir) => (await fs.readdir(dir)).sort();
const TERMINAL = new Set(['completed', 'failed']);

/**
 * Every frame of the session validates against the ACP schema and stays
 * below `maxLine` bytes; every card that opened ends exactly once, and
 * nothing follows its end.
 */
function assertFrames(agent, sessionId, maxLine) {
  const open = new Map();
  const ended = new Map();
  for (const e of agent.wire) {
    if (e.msg.method !== 'session/update' || e.msg.params.sessionId !== sessionId) continue;
    assert.equal(sessionNotificationErrors(e.msg.params), null, JSON.stringify(e.msg.params).slice(0, 300));
    const bytes = Buffer.byteLength(JSON.stringify(e.msg)) + 1;
    assert.ok(bytes <= maxLine, `a ${e.msg.params.update.sessionUpdate} line of ${bytes} bytes`);
    const u = e.msg.params.update;
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') continue;
    if (u.sessionUpdate === 'tool_call') {
      assert.ok(!open.has(u.toolCallId), `${u.toolCallId} opened twice`);
      open.set(u.toolCallId, true);
    } else assert.ok(open.has(u.toolCallId), `update for ${u.toolCallId} with no open card`);
    if (TERMINAL.has(u.status)) {
      open.delete(u.toolCallId);
      ended.set(u.toolCallId, (ended.get(u.toolCallId) ?? 0) + 1);
    }
  }
  assert.deepEqual([...open.keys()], [], 'every card ended');
  return ended;
}

/** Every tool_use / tool_call in the request history is answered, in the next message(s). */
function assertHistoryAnswered(body, kind) {
  const messages = body.messages;
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    if (kind === 'anthropic') {
      const ids = (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === 'tool_use').map((b) => b.id);
      if (ids.length === 0) continue;
      assert.equal(new Set(ids).size, ids.length, 'tool_use ids are unique');
      const answered = (messages[i + 1]?.content ?? [])
        .filter((b) => b.type === 'tool_result')
        .map((b) => b.tool_use_id);
      assert.deepEqual(answered, ids, 'each tool_use has its tool_result in the next message');
    } else {
      const ids = (m.tool_calls ?? []).map((c) => c.id);
      assert.equal(new Set(ids).size, ids.length, 'tool_call ids are unique');
      const answered = messages.slice(i + 1, i + 1 + ids.length).map((t) => t.role === 'tool' && t.tool_call_id);
      assert.deepEqual(answered, ids, 'each tool_call has its tool message');
    }
  }
}

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (id) => (providerKind === 'openai' ? openaiCallId(id) : id);

  describe(`agent safety over stdio: ${providerKind}`, () => {
    let provider;
    let agent;
    before(async () => {
      provider = await startProvider({ speed: 50, scenarioSpeed: FAST, scenarios });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        // Not about approval: nothing asks (e2e-permission covers asking).
        extraArgs: ['--approve=always'],
      });
    });
    // Every message the agent wrote, responses and errors included, is valid ACP v1.
    after(() => closeChecked(agent, provider));

    /** Runs a scenario in `sessionId`: its response, tool frames per call, and what the model was told. */
    async function run(sessionId, name, expectedStop = 'end_turn') {
      const first = agent.updates(sessionId).length;
      const response = await agent.prompt(sessionId, scenarios[name].prompt);
      assert.equal(response.stopReason, expectedStop);
      const updates = agent
        .updates(sessionId)
        .slice(first)
        .map((e) => e.update);
      // A card's lifecycle frames, without its live progress frames.
      const frames = (id) => updates.filter((u) => u.toolCallId === id && !u._meta?.progress);
      const requests = provider.requests.filter((r) => r.scenario === name);
      return { frames, requests, updates };
    }

    /** What the model was told for each call, read from the next request's history. */
    function resultsIn(body) {
      const messages = body.messages;
      return providerKind === 'anthropic'
        ? messages
            .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
            .filter((b) => b.type === 'tool_result')
            .map((r) => ({ id: r.tool_use_id, text: r.content, isError: r.is_error === true }))
        : messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, text: m.content }));
    }

    /** The session goes on: a normal write lands, and the history sent with it is valid. */
    async function assertSessionWorks(sessionId, ws) {
      const next = await run(sessionId, 'after');
      assert.deepEqual(
        next.frames(callId('toolu_01Normal')).map((u) => u.status),
        ['pending', 'in_progress', 'completed'],
      );
      assert.equal(await fs.readFile(path.join(ws, 'notes/ok.txt'), 'utf8'), 'ok\n');
      assertHistoryAnswered(next.requests.at(-1).body, providerKind);
      return resultsIn(next.requests.at(-1).body);
    }

    const statuses = (frames) => frames.map((u) => u.status);

    /** A refused call's card: it ends failed with the reason as content, and is no abandoned preparation. */
    function assertRefusal(card) {
      assert.ok(
        card.every((u) => !u._meta?.preparationDiscarded),
        'a refusal is not an abandoned attempt',
      );
      assert.equal(card.at(-1).status, 'failed');
      assert.match(card.at(-1).content[0].content.text, /\S/);
    }

    it('arguments cut off by max_tokens are not run: the card fails with the reason, the turn ends max_tokens', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames } = await run(sessionId, 'max-tokens', 'max_tokens');
      const card = frames(callId('toolu_01MaxTok'));
      // Refused before it starts: an early failure, no in_progress frame.
      assert.deepEqual(statuses(card), ['pending', 'failed']);
      assertRefusal(card);
      assert.match(card.at(-1).content[0].content.text, /cut off by the output token limit \(max_tokens\)/);
      assert.deepEqual(await listing(ws), [], 'nothing was written');
      assertFrames(agent, sessionId, 8 << 20);
      const told = await assertSessionWorks(sessionId, ws);
      const result = told.find((r) => r.id === callId('toolu_01MaxTok'));
      assert.match(result.text, /max_tokens/);
      if (providerKind === 'anthropic') assert.equal(result.isError, true);
    });

    it('arguments that only parse after repair are not run; the model is told why', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames, requests } = await run(sessionId, 'repaired');
      const card = frames(callId('toolu_01Repaired'));
      // Refused before it starts: an early failure, no in_progress frame.
      assert.deepEqual(statuses(card), ['pending', 'failed']);
      assertRefusal(card);
      assert.match(card.at(-1).content[0].content.text, /not valid JSON as streamed/);
      assert.deepEqual(await listing(ws), []);
      assertHistoryAnswered(requests.at(-1).body, providerKind);
      assert.match(resultsIn(requests.at(-1).body)[0].text, /not valid JSON/);
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('array arguments fail the card and still get a tool result, so the session stays valid', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames, requests } = await run(sessionId, 'array-args');
      const card = frames(callId('toolu_01Array'));
      // Refused before it starts: an early failure, no in_progress frame.
      assert.deepEqual(statuses(card), ['pending', 'failed']);
      assertRefusal(card);
      assert.match(card.at(-1).content[0].content.text, /not a JSON object/);
      assert.deepEqual(await listing(ws), []);
      assertHistoryAnswered(requests.at(-1).body, providerKind);
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('tools named constructor, toString, hasOwnProperty are unknown tools, not prototype members', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames, requests } = await run(sessionId, 'prototype-names');
      for (const [id, name] of [
        ['toolu_01Ctor', 'constructor'],
        ['toolu_01ToString', 'toString'],
        ['toolu_01HasOwn', 'hasOwnProperty'],
      ]) {
        const card = frames(callId(id));
        // An unknown tool fails before it starts (Qwen's earlyErrorResponse).
        assert.deepEqual(statuses(card), ['pending', 'failed']);
        assert.equal(card.at(-1).content[0].content.text, `Tool "${name}" not found in registry.`);
      }
      assert.deepEqual(await listing(ws), [], 'nothing ran');
      const told = resultsIn(requests.at(-1).body);
      assert.equal(told.length, 3);
      assert.ok(told.every((r) => /not found in registry/.test(r.text)));
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('a duplicate call id: the first call runs, the duplicate fails under a fresh id and gets an error result', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      if (providerKind === 'openai') {
        // Qwen's OpenAI parser folds one id into one slot and the converter then reports
        // MALFORMED_TOOL_CALL (retried as InvalidStreamError, then the prompt fails): nothing runs.
        await assert.rejects(agent.prompt(sessionId, scenarios['duplicate-ids'].prompt), /malformed tool call/);
        assert.deepEqual(await listing(ws), []);
        assertFrames(agent, sessionId, 8 << 20);
        await assertSessionWorks(sessionId, ws);
        return;
      }
      const { frames, requests } = await run(sessionId, 'duplicate-ids');
      const id = callId('toolu_01Dup');
      const dup = `${id}__qwen_dup_2`;
      assert.deepEqual(statuses(frames(id)), ['pending', 'in_progress', 'completed']);
      // No preparing card: a pending start gives the early failure its card.
      assert.deepEqual(statuses(frames(dup)), ['pending', 'failed']);
      assertRefusal(frames(dup));
      assert.match(frames(dup).at(-1).content[0].content.text, /already used by another call/);
      assert.deepEqual(await listing(ws), ['first.txt'], 'the duplicate did not run');
      const body = requests.at(-1).body;
      assertHistoryAnswered(body, providerKind);
      assert.deepEqual(
        resultsIn(body).map((r) => r.id),
        [id, dup],
      );
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it(
      'FIFOs fail at once for every tool; the agent keeps serving new sessions',
      { skip: process.platform === 'win32' && 'no FIFOs on Windows' },
      async () => {
        const ws = await workspace();
        execFileSync('mkfifo', [path.join(ws, 'pipe1'), path.join(ws, 'pipe2')]);
        const sessionId = await agent.newSession(ws);
        const { frames } = await run(sessionId, 'fifos');
        // A write is checked before it starts (its diff needs the old file): an early failure.
        for (const id of ['toolu_01FifoW1', 'toolu_01FifoW2'])
          assert.deepEqual(statuses(frames(callId(id))), ['pending', 'failed'], id);
        for (const id of ['toolu_01FifoR1', 'toolu_01FifoR2', 'toolu_01FifoL'])
          assert.deepEqual(statuses(frames(callId(id))), ['pending', 'in_progress', 'failed'], id);
        assert.equal((await fs.lstat(path.join(ws, 'pipe1'))).isFIFO(), true);
        assertFrames(agent, sessionId, 8 << 20);
        // No pool thread is stuck: a new session on a new workspace works.
        const other = await workspace();
        await assertSessionWorks(await agent.newSession(other), other);
        await assertSessionWorks(sessionId, ws);
      },
    );

    it('a 9 MB-of-JSON write lands whole; rawInput and the diff are cut, marked, and every line stays bounded', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames } = await run(sessionId, 'big-write');
      const card = frames(callId('toolu_01Big'));
      assert.deepEqual(statuses(card), ['pending', 'in_progress', 'completed']);
      assert.equal(await fs.readFile(path.join(ws, 'big.txt'), 'utf8'), BIG_CONTROL);
      assert.equal(
        card[1]._meta.toolcallStream.rawInputTruncated.bytes,
        Buffer.byteLength(JSON.stringify({ path: 'big.txt', content: BIG_CONTROL })),
      );
      assert.ok(card[1].rawInput.content.length < BIG_CONTROL.length);
      const diff = card[2].content[0];
      assert.equal(diff.type, 'diff');
      assert.ok(diff.newText.length < BIG_CONTROL.length && BIG_CONTROL.startsWith(diff.newText));
      assert.equal(diff._meta.toolcallStream.newTextTruncated.bytes, 9_000_000);
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('overwriting a file past the diff cap writes it, and the diff says the old contents were omitted', async () => {
      const ws = await workspace();
      const oldSize = 2 * 1024 * 1024;
      await fs.writeFile(path.join(ws, 'large.log'), 'x'.repeat(oldSize));
      const sessionId = await agent.newSession(ws);
      const { frames } = await run(sessionId, 'overwrite-large');
      const card = frames(callId('toolu_01OverLarge'));
      assert.deepEqual(statuses(card), ['pending', 'in_progress', 'completed']);
      const diff = card.at(-1).content[0];
      assert.match(
        diff.oldText,
        /^\[previous contents omitted from the diff: 2097152 bytes, over the 1048576-byte limit\]$/,
      );
      assert.deepEqual(diff._meta.toolcallStream, { oldTextOmitted: { bytes: oldSize } });
      assert.equal(diff.newText, 'short now\n');
      assert.equal(await fs.readFile(path.join(ws, 'large.log'), 'utf8'), 'short now\n');
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('a call past the 24 MiB argument limit is refused, not abandoned: its card fails saying so, nothing of the response runs, the model is told, the turn ends with a stop reason', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const LIMIT = /the agent's limit of 25165824 bytes \(24 MiB\)/;
      // run() asserts the stop reason: end_turn, not a JSON-RPC error.
      const { frames, updates, requests } = await run(sessionId, 'huge-write');
      assert.equal(requests.length, 1, 'the model is not asked again for the same arguments');
      const huge = frames(callId('toolu_01Huge'));
      const before = frames(callId('toolu_01BeforeHuge'));
      for (const card of [huge, before]) {
        // The preparing card, then its end: a refusal, with content, never a discarded preparation.
        assert.deepEqual(
          card.map((u) => `${u.sessionUpdate}:${u.status}`),
          ['tool_call:pending', 'tool_call_update:failed'],
        );
        assertRefusal(card);
      }
      assert.match(huge.at(-1).content[0].content.text, /^Not run: the arguments of write_file exceeded /);
      assert.match(huge.at(-1).content[0].content.text, LIMIT);
      // The complete call before it does not run either: the response was stopped.
      assert.match(before.at(-1).content[0].content.text, /no call of that response runs/);
      assert.match(before.at(-1).content[0].content.text, LIMIT);
      assert.deepEqual(await listing(ws), [], 'nothing was written');
      const said = updates
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.content.text)
        .join('');
      assert.match(said, /^Writing both files\./, "the model's text is kept");
      assert.match(said, /The agent refused a write_file call: its arguments exceeded /);
      assert.match(said, LIMIT);
      assertFrames(agent, sessionId, 8 << 20);
      // The next request's history answers both calls with the reason.
      const told = await assertSessionWorks(sessionId, ws);
      for (const id of ['toolu_01BeforeHuge', 'toolu_01Huge']) {
        const result = told.find((r) => r.id === callId(id));
        assert.match(result.text, /^Not run: /, id);
        assert.match(result.text, LIMIT, id);
        if (providerKind === 'anthropic') assert.equal(result.isError, true, id);
      }
    });

    it('a stream that ends cleanly without its stop event is retried (InvalidStreamError), and the call runs once', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames, requests } = await run(sessionId, 'no-stop');
      assert.equal(requests.filter((r) => r.turn === 0).length, 2);
      const card = frames(callId('toolu_01NoStop'));
      assert.equal(card.filter((u) => u.status === 'completed').length, 1);
      assert.equal(card.at(-1).status, 'completed');
      assert.equal(await fs.readFile(path.join(ws, 'nostop.txt'), 'utf8'), 'complete\n');
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('a socket closed mid-frame before any output is retried', async () => {
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const { frames, requests } = await run(sessionId, 'cut');
      assert.equal(requests.filter((r) => r.turn === 0).length, 2);
      assert.equal(frames(callId('toolu_01Cut')).at(-1).status, 'completed');
      assert.equal(await fs.readFile(path.join(ws, 'cut.txt'), 'utf8'), 'after the cut\n');
      assertFrames(agent, sessionId, 8 << 20);
      await assertSessionWorks(sessionId, ws);
    });

    it('session/new refuses the filesystem root and a file; session/close frees a session', async () => {
      assert.deepEqual(agent.init.agentCapabilities.sessionCapabilities, { close: {} });
      await assert.rejects(agent.newSession(path.parse(tmpRoot).root), /cwd must not be the filesystem root/);
      const ws = await workspace();
      await fs.writeFile(path.join(ws, 'file.txt'), 'x');
      await assert.rejects(agent.newSession(path.join(ws, 'file.txt')), /cwd is not a directory/);
      const sessionId = await agent.newSession(ws);
      await assertSessionWorks(sessionId, ws);
      assert.deepEqual(await agent.closeSession(sessionId), {});
      await assert.rejects(agent.prompt(sessionId, scenarios.after.prompt), /unknown session/);
      await assert.rejects(agent.closeSession(sessionId), /unknown session/);
    });
  });

  describe(`agent safety options over stdio: ${providerKind}`, () => {
    let provider;
    before(async () => {
      provider = await startProvider({ speed: 50, scenarioSpeed: FAST, scenarios });
    });
    after(() => provider?.close());

    it('--run-repaired-arguments restores the reference: the cut-off call runs with its repaired arguments', async () => {
      const agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always', '--run-repaired-arguments'],
      });
      try {
        const ws = await workspace();
        const sessionId = await agent.newSession(ws);
        const response = await agent.prompt(sessionId, scenarios['max-tokens'].prompt);
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(await fs.readFile(path.join(ws, 'maxtok.txt'), 'utf8'), 'first half of a lo');
        assertFrames(agent, sessionId, 8 << 20);
      } finally {
        assert.equal((await agent.close()).code, 0);
      }
    });

    it('a result line over --max-frame-bytes fails the tool with a clear message instead of reaching the client', async () => {
      const limit = 65536;
      const agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always', '--max-frame-bytes', String(limit)],
      });
      try {
        const ws = await workspace();
        await fs.writeFile(path.join(ws, 'control.txt'), '\u0001'.repeat(100_000));
        const sessionId = await agent.newSession(ws);
        await agent.prompt(sessionId, scenarios['read-control'].prompt);
        const card = agent
          .updates(sessionId)
          .map((e) => e.update)
          .filter((u) => u.toolCallId === callId('toolu_01ReadCtl') && !u._meta?.progress);
        assert.deepEqual(
          card.map((u) => u.status),
          ['pending', 'in_progress', 'failed'],
        );
        assert.match(
          card.at(-1).content[0].content.text,
          /too large to show \(\d+ bytes; the ACP frame limit is 65536/,
        );
        const told = provider.requests.filter((r) => r.scenario === 'read-control').at(-1).body;
        assert.match(JSON.stringify(told.messages.at(-1)), /too large to show/);
        assertFrames(agent, sessionId, limit);
      } finally {
        assert.equal((await agent.close()).code, 0);
      }
    });

    it('a stream that stalls mid-arguments (keep-alives only) is aborted by the watchdog and retried', async () => {
      // Its own agent: a short stall timeout, where nothing else runs that could look idle.
      const agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always', '--stall-timeout-ms', '1000'],
      });
      try {
        const ws = await workspace();
        const sessionId = await agent.newSession(ws);
        const response = await agent.prompt(sessionId, scenarios.stall.prompt);
        assert.equal(response.stopReason, 'end_turn');
        const card = agent
          .updates(sessionId)
          .map((e) => e.update)
          .filter((u) => u.toolCallId === callId('toolu_01Stall') && !u._meta?.progress);
        const requests = provider.requests.filter((r) => r.scenario === 'stall');
        assert.deepEqual(
          card.map((u) => `${u.status}${u._meta?.preparationDiscarded ? ':discarded' : ''}`),
          ['pending', 'failed:discarded', 'pending', 'in_progress', 'completed'],
        );
        const firstTurn = requests.filter((r) => r.turn === 0);
        assert.equal(firstTurn.length, 2);
        assert.equal(firstTurn[0].aborted, true, 'the stalled request was aborted');
        assert.equal(await fs.readFile(path.join(ws, 'stall.txt'), 'utf8'), 'after the stall\n');
        assertFrames(agent, sessionId, 8 << 20);
        const after = await agent.prompt(sessionId, scenarios.after.prompt);
        assert.equal(after.stopReason, 'end_turn');
        assert.equal(await fs.readFile(path.join(ws, 'notes/ok.txt'), 'utf8'), 'ok\n');
      } finally {
        assert.equal((await agent.close()).code, 0);
      }
    });

    // The default stall timeout: whitespace is no progress, and the watchdog must not answer first.
    for (const [title, scenario, error] of [
      [
        'an endless unterminated data line fails at the agent 32 MiB cap, not at the 256 MiB stream limit',
        'unterminated',
        /an SSE line or event exceeds the limit of 33554432 bytes/,
      ],
      [
        'endless whitespace on a line of its own fails at 1 MiB, the cap for lines that are not data',
        'whitespace',
        /an SSE line that is not a data line exceeds 1048576 bytes/,
      ],
    ]) {
      it(title, async () => {
        const agent = await launchAgent({
          provider: providerKind,
          providerUrl: provider.url,
          retryDelayMs: 20,
          extraArgs: ['--approve=always'],
        });
        try {
          const ws = await workspace();
          const sessionId = await agent.newSession(ws);
          await assert.rejects(agent.prompt(sessionId, scenarios[scenario].prompt), error);
          assert.deepEqual(await listing(ws), []);
          assertFrames(agent, sessionId, 8 << 20);
          const after = await agent.prompt(sessionId, scenarios.after.prompt);
          assert.equal(after.stopReason, 'end_turn');
          assert.equal(await fs.readFile(path.join(ws, 'notes/ok.txt'), 'utf8'), 'ok\n');
        } finally {
          assert.equal((await agent.close()).code, 0);
        }
      });
    }

    it('a broken connection is logged and the agent exits non-zero', async () => {
      const agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always'],
      });
      const ws = await workspace();
      const sessionId = await agent.newSession(ws);
      const firstText = new Promise((resolve) => agent.events.once('update', resolve));
      agent.prompt(sessionId, scenarios.slow.prompt).catch(() => {});
      await firstText;
      // The client stops reading: the agent's next write fails (EPIPE).
      agent.child.stdout.destroy();
      const exit = await agent.exited;
      assert.notEqual(exit.code, 0);
      assert.match(agent.stderr, /ACP connection broken/);
    });
  });
}
