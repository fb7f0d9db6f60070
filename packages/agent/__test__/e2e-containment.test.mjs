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
  'two-links': toolTurn('Read, list and write through the link l.', [
    ['toolu_01TwoRead', 'read_file', { path: 'l/secret.txt' }],
    ['toolu_01TwoList', 'list_directory', { path: 'l' }],
    ['toolu_01TwoWrite', 'write_file', { path: 'l/pwned.txt', content: PAYLOAD }],
  ]),
  'hard-link': toolTurn('Write and read the hard-linked file.', [
    ['toolu_01HardWrite', 'write_file', { path: 'alias.txt', content: PAYLOAD }],
    ['toolu_01HardRead', 'read_file', { path: 'alias.txt' }],
  ]),
  'swap-write': toolTurn('Write into sub.', [
    ['toolu_01Swap', 'write_file', { path: 'sub/new.txt', content: PAYLOAD }],
  ]),
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

/**
 * A repository of two links only: `l -> nope/../evildir` (`nope` does not
 * exist) and `evildir -> ../outside`, beside `outside/secret.txt`. The kernel
 * cannot walk `l` (no `nope`); a resolver that joined the rest as text would
 * land on `evildir/…`, which the kernel then follows outside.
 */
async function twoLinkRepo() {
  const outer = path.join(tmpRoot, String(++count));
  const ws = path.join(outer, 'ws');
  const outside = path.join(outer, 'outside');
  await fs.mkdir(ws, { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'do not read\n');
  await fs.symlink('nope/../evildir', path.join(ws, 'l'));
  await fs.symlink('../outside', path.join(ws, 'evildir'));
  return { ws: await fs.realpath(ws), outside };
}

const listing = async (dir) => (await fs.readdir(dir)).sort();

for (const providerKind of ['anthropic', 'openai']) {
  const callId = (id) => (providerKind === 'openai' ? openaiCallId(id) : id);

  describe(`workspace containment over stdio: ${providerKind}`, () => {
    let provider;
    let agent;
    // A second agent that asks before each write: its user answers "Allow"
    // after `whileAsked(request)` has run, the request still open.
    let asking;
    let whileAsked = async () => {};
    before(async () => {
      provider = await startProvider({ speed: 50, scenarios });
      agent = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        extraArgs: ['--approve=always'],
      });
      asking = await launchAgent({
        provider: providerKind,
        providerUrl: provider.url,
        retryDelayMs: 20,
        permission: async (params) => {
          await whileAsked(params);
          return { outcome: { outcome: 'selected', optionId: 'proceed_once' } };
        },
      });
    });
    // Every message the agents wrote, responses and errors included, is valid ACP v1.
    after(async () => {
      await closeChecked(asking, null);
      await closeChecked(agent, provider);
    });

    /** Runs a scenario in `sessionId`; returns its tool frames per call and what the model was told. */
    async function run(sessionId, name, on = agent) {
      const before = on.updates(sessionId).length;
      const response = await on.prompt(sessionId, scenarios[name].prompt);
      assert.equal(response.stopReason, 'end_turn');
      const updates = on
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

    it('a dangling link whose target stays inside is written at its target, and the card and diff name the target', async () => {
      const { ws } = await workspace();
      const { frames } = await run(await agent.newSession(ws), 'dangling-inside');
      const card = frames('toolu_01InsideLink');
      assert.deepEqual(
        card.map((u) => u.status),
        ['pending', 'in_progress', 'completed'],
      );
      assert.equal(await fs.readFile(path.join(ws, 'sub/target.txt'), 'utf8'), 'inside\n');
      assert.equal(card.at(-1).content[0].path, path.join(ws, 'sub/target.txt'));
      assert.deepEqual(
        card[1].locations.map((l) => l.path),
        [path.join(ws, 'sub/target.txt')],
      );
    });

    /** The two-link repository's calls: each card fails early with its reason; nothing outside is read, listed or written. */
    async function assertTwoLinksRefused(sessionId, on, { ws, outside }) {
      const { frames, results } = await run(sessionId, 'two-links', on);
      assertFailedOnce(frames('toolu_01TwoRead'), /^File not found: l\/secret\.txt$/);
      assertFailedOnce(frames('toolu_01TwoList'), /^Directory not found: l$/);
      assertFailedOnce(
        frames('toolu_01TwoWrite'),
        /^Refused: "l\/pwned\.txt" cannot be created: "nope" does not exist, and "\.\." follows it \(the symbolic link "l" leads there\)\./,
      );
      // The model reads exactly the refusals, nothing of the outside folder.
      assert.deepEqual(
        results.map((r) => r.text),
        ['toolu_01TwoRead', 'toolu_01TwoList', 'toolu_01TwoWrite'].map(
          (id) => frames(id).at(-1).content[0].content.text,
        ),
      );
      assert.deepEqual(await listing(outside), ['secret.txt'], 'nothing was created outside');
      assert.equal(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8'), 'do not read\n');
      assert.deepEqual(await listing(ws), ['evildir', 'l'], 'nothing was created inside either');
      const next = await run(sessionId, 'after-refusal', on);
      assert.equal(next.frames('toolu_01Normal').at(-1).status, 'completed');
      assert.equal(await fs.readFile(path.join(ws, 'notes/ok.txt'), 'utf8'), 'ok\n');
    }

    it('a link through a missing folder and back (l -> nope/../evildir, evildir -> ../outside) leads nowhere: read, list and write refused; the session goes on', async () => {
      const repo = await twoLinkRepo();
      await assertTwoLinksRefused(await agent.newSession(repo.ws), agent, repo);
    });

    it('asking before writes, the two-link write is refused by its check: the user is never asked about it', async () => {
      const repo = await twoLinkRepo();
      const sessionId = await asking.newSession(repo.ws);
      await assertTwoLinksRefused(sessionId, asking, repo);
      // The one request is the closing write of notes/ok.txt.
      const requests = asking.permissionRequests(sessionId);
      assert.deepEqual(
        requests.map((r) => r.toolCall.content[0].path),
        [path.join(repo.ws, 'notes', 'ok.txt')],
      );
    });

    it('a folder swapped for a link to the outside while the permission request is open: the approved write is refused, nothing lands outside', async () => {
      const { ws, outside } = await workspace();
      await fs.mkdir(path.join(ws, 'sub'));
      const sessionId = await asking.newSession(ws);
      whileAsked = async () => {
        await fs.rename(path.join(ws, 'sub'), path.join(ws, 'sub-was'));
        await fs.symlink('../outside', path.join(ws, 'sub'));
      };
      let outcome;
      try {
        outcome = await run(sessionId, 'swap-write', asking);
      } finally {
        whileAsked = async () => {};
      }
      const [request] = asking.permissionRequests(sessionId);
      assert.equal(
        request.toolCall.content[0].path,
        path.join(ws, 'sub', 'new.txt'),
        'the prompt showed the real folder',
      );
      const card = outcome.frames('toolu_01Swap');
      assert.deepEqual(
        card.filter((u) => u.status === 'completed' || u.status === 'failed').map((u) => u.status),
        ['failed'],
      );
      assert.match(
        card.at(-1).content[0].content.text,
        /^Refused: "sub\/new\.txt" changed after it was checked: "sub" is now a symbolic link or no longer a folder\. Nothing was read or written\.$/,
      );
      assert.deepEqual(await listing(outside), ['existing.txt'], 'nothing was created outside');
      assert.deepEqual(await fs.readdir(path.join(ws, 'sub-was')), [], 'nor in the folder the user approved');
      const next = await run(sessionId, 'after-refusal', asking);
      assert.equal(next.frames('toolu_01Normal').at(-1).status, 'completed');
    });

    it('a file that is a hard link to one outside: its write is refused, the outside file unchanged; its read is allowed', async () => {
      const { ws, outside } = await workspace();
      await fs.link(path.join(outside, 'existing.txt'), path.join(ws, 'alias.txt'));
      const { frames, results } = await run(await agent.newSession(ws), 'hard-link');
      assertFailedOnce(frames('toolu_01HardWrite'), /^Refused: "alias\.txt" is a file with 2 names \(hard links\)\./);
      assert.equal(await fs.readFile(path.join(outside, 'existing.txt'), 'utf8'), 'outside\n');
      assert.deepEqual(
        frames('toolu_01HardRead').map((u) => u.status),
        ['pending', 'in_progress', 'completed'],
      );
      assert.equal(results[1].text, 'outside\n');
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
