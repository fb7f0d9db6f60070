// The agent's file tools stay inside the session's workspace, whatever the
// workspace holds: real symlinks (dangling or not, relative or absolute,
// chained, to directories) and a real FIFO, planted before the model asks for
// them. Driven end to end: the real provider SDK inside bin/agent.js against
// the loopback provider, the official ACP client over real pipes. Each case
// asserts where files landed, that every card ended once, what the model was
// told, and that the session still works afterwards.
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

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-containment-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));

/** One model turn of tool calls, then a closing text turn. */
const toolTurn = (prompt, calls) => ({
  prompt,
  turns: [
    [
      {
        blocks: calls.map(([id, name, input]) => ({ type: 'tool_use', id, name, input })),
        stop: 'tool_use',
      },
    ],
    [{ blocks: [{ type: 'text', text: 'Done.' }], stop: 'end_turn' }],
  ],
});

const PAYLOAD = 'ssh-ed25519 AAAA attacker@example\n';
const scenarios = {
  'dangling-relative': toolTurn('Write through the relative dangling link.', [
    ['toolu_01DangleRel', 'write_file', { path: 'dangle', content: PAYLOAD }],
  ]),
  'dangling-absolute': toolTurn('Write through the absolute dangling link.', [
    ['toolu_01DangleAbs', 'write_file', { path: 'dangle-abs', content: PAYLOAD }],
  ]),
  'dangling-chain': toolTurn('Write through the chain of links.', [
    ['toolu_01DangleChain', 'write_file', { path: 'chain', content: PAYLOAD }],
  ]),
  'linked-directory': toolTurn('Write into the linked directory.', [
    ['toolu_01LinkedDir', 'write_file', { path: 'linkdir/new.txt', content: PAYLOAD }],
    ['toolu_01LinkedDirRead', 'read_file', { path: 'linkdir/existing.txt' }],
  ]),
  'dangling-read': toolTurn('Read through the link to the secret.', [
    ['toolu_01ReadSecretLink', 'read_file', { path: 'secret-link' }],
  ]),
  'link-loop': toolTurn('Write through the loop.', [
    ['toolu_01Loop', 'write_file', { path: 'loop-a', content: PAYLOAD }],
  ]),
  'dangling-inside': toolTurn('Write through the link that stays inside.', [
    ['toolu_01InsideLink', 'write_file', { path: 'inside-link', content: 'inside\n' }],
  ]),
  fifo: toolTurn('Write onto the named pipe.', [['toolu_01Fifo', 'write_file', { path: 'pipe', content: PAYLOAD }]]),
  'after-refusal': toolTurn('Now write a normal file.', [
    ['toolu_01Normal', 'write_file', { path: 'notes/ok.txt', content: 'ok\n' }],
  ]),
};

/**
 * `<tmp>/<n>/ws` (the workspace) beside `<tmp>/<n>/outside` (which must stay
 * untouched), with the links every scenario needs planted in the workspace.
 */
let count = 0;
async function workspace() {
  const outer = path.join(tmpRoot, String(++count));
  const ws = path.join(outer, 'ws');
  const outside = path.join(outer, 'outside');
  await fs.mkdir(ws, { recursive: true });
  await fs.mkdir(outside, { recursive: true });
  await fs.writeFile(path.join(outside, 'existing.txt'), 'outside\n');
  await fs.writeFile(path.join(outer, 'secret.txt'), 'do not read\n');
  await fs.symlink('../outside/new.txt', path.join(ws, 'dangle'));
  await fs.symlink(path.join(outside, 'abs.txt'), path.join(ws, 'dangle-abs'));
  await fs.symlink('dangle', path.join(ws, 'chain'));
  await fs.symlink('../outside', path.join(ws, 'linkdir'));
  await fs.symlink('../secret.txt', path.join(ws, 'secret-link'));
  await fs.symlink('loop-b', path.join(ws, 'loop-a'));
  await fs.symlink('loop-a', path.join(ws, 'loop-b'));
  await fs.symlink('sub/target.txt', path.join(ws, 'inside-link'));
  if (process.platform !== 'win32') execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  return { ws: await fs.realpath(ws), outside };
}

const listing = async (dir) => (await fs.readdir(dir)).sort();

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (id) => (providerKind === 'openai' ? openaiCallId(id) : id);

  describe(`workspace containment over stdio: ${providerKind}`, () => {
    let provider;
    let agent;
    before(async () => {
      provider = await startProvider({ speed: 50, scenarios });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always'],
      });
    });
    // Every message the agent wrote, responses and errors included, is valid ACP v1.
    after(() => closeChecked(agent, provider));

    /** Runs a scenario in `sessionId`; returns its tool frames per call and what the model was told. */
    async function run(sessionId, name) {
      const before = agent.updates(sessionId).length;
      const response = await agent.prompt(sessionId, scenarios[name].prompt);
      assert.equal(response.stopReason, 'end_turn');
      const updates = agent
        .updates(sessionId)
        .slice(before)
        .map((e) => e.update);
      // A card's lifecycle frames, without its live progress frames.
      const frames = (id) => updates.filter((u) => u.toolCallId === callId(id) && !u._meta?.progress);
      const requests = provider.requests.filter((r) => r.scenario === name);
      const messages = requests.at(-1).body.messages;
      const results =
        providerKind === 'anthropic'
          ? messages.at(-1).content.map((r) => ({ id: r.tool_use_id, text: r.content, isError: r.is_error === true }))
          : messages.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, text: m.content }));
      return { frames, results };
    }

    /**
     * The call's card went pending → failed once, with `message` in its text:
     * refused by the checks before the call starts (an early failure, no
     * in_progress frame).
     */
    function assertFailedOnce(frames, message) {
      assert.deepEqual(
        frames.map((u) => u.status),
        ['pending', 'failed'],
      );
      assert.match(frames.at(-1).content[0].content.text, message);
    }

    /** The refusal of a path that leads outside through the link `link` (the link that left, named). */
    const refusedOutside = (link) =>
      new RegExp(
        `^Refused: ".*" leads outside the session's working directory .* through the symbolic link "${link}"\\.`,
      );

    for (const [name, id, linkPath, leaving] of [
      ['dangling-relative', 'toolu_01DangleRel', 'dangle', 'dangle'],
      ['dangling-absolute', 'toolu_01DangleAbs', 'dangle-abs', 'dangle-abs'],
      ['dangling-chain', 'toolu_01DangleChain', 'chain', 'dangle'],
    ]) {
      it(`write_file through ${name.replace('-', ' ')} link (${linkPath}) is refused; nothing lands outside; the session goes on`, async () => {
        const { ws, outside } = await workspace();
        const sessionId = await agent.newSession(ws);
        const { frames, results } = await run(sessionId, name);
        assertFailedOnce(frames(id), refusedOutside(leaving));
        assert.deepEqual(await listing(outside), ['existing.txt'], 'nothing was created outside the workspace');
        assert.equal((await fs.lstat(path.join(ws, linkPath))).isSymbolicLink(), true, 'the link itself is intact');
        assert.equal(results.length, 1);
        assert.match(results[0].text, refusedOutside(leaving));
        if (providerKind === 'anthropic') assert.equal(results[0].isError, true);

        const next = await run(sessionId, 'after-refusal');
        assert.deepEqual(
          next.frames('toolu_01Normal').map((u) => u.status),
          ['pending', 'in_progress', 'completed'],
        );
        assert.equal(await fs.readFile(path.join(ws, 'notes/ok.txt'), 'utf8'), 'ok\n');
      });
    }

    it('a symlinked directory that leaves the workspace is refused for writes and reads', async () => {
      const { ws, outside } = await workspace();
      const { frames, results } = await run(await agent.newSession(ws), 'linked-directory');
      assertFailedOnce(frames('toolu_01LinkedDir'), refusedOutside('linkdir'));
      assertFailedOnce(frames('toolu_01LinkedDirRead'), refusedOutside('linkdir'));
      assert.deepEqual(await listing(outside), ['existing.txt']);
      assert.ok(!results.some((r) => r.text.includes('outside\n')), 'the outside file was not read');
    });

    it('read_file through a link to a file outside is refused and reveals nothing', async () => {
      const { ws } = await workspace();
      const { frames, results } = await run(await agent.newSession(ws), 'dangling-read');
      assertFailedOnce(frames('toolu_01ReadSecretLink'), refusedOutside('secret-link'));
      assert.ok(!results[0].text.includes('do not read'));
    });

    it('a symlink loop is refused, not followed forever', async () => {
      const { ws, outside } = await workspace();
      const { frames } = await run(await agent.newSession(ws), 'link-loop');
      assertFailedOnce(frames('toolu_01Loop'), /too many levels of symbolic links/);
      assert.deepEqual(await listing(outside), ['existing.txt']);
    });

    it('a dangling link whose target stays inside is written at its target, and the diff names the target', async () => {
      const { ws } = await workspace();
      const { frames } = await run(await agent.newSession(ws), 'dangling-inside');
      const card = frames('toolu_01InsideLink');
      assert.deepEqual(
        card.map((u) => u.status),
        ['pending', 'in_progress', 'completed'],
      );
      assert.equal(await fs.readFile(path.join(ws, 'sub/target.txt'), 'utf8'), 'inside\n');
      assert.equal(card.at(-1).content[0].path, path.join(ws, 'sub/target.txt'));
    });

    it(
      'write_file onto a FIFO fails at once instead of hanging the agent',
      { skip: process.platform === 'win32' && 'no FIFOs on Windows' },
      async () => {
        const { ws } = await workspace();
        const sessionId = await agent.newSession(ws);
        const { frames } = await run(sessionId, 'fifo');
        assertFailedOnce(frames('toolu_01Fifo'), /^Not a regular file: pipe$/);
        assert.equal((await fs.lstat(path.join(ws, 'pipe'))).isFIFO(), true);
        const next = await run(sessionId, 'after-refusal');
        assert.equal(next.frames('toolu_01Normal').at(-1).status, 'completed');
      },
    );
  });
}
