// A tool call cancelled while its tool is blocked: the card ends at the
// cancel, once, the model gets an error result, and the tool, once unblocked,
// never writes. The block is real: the tool opens a real FIFO for reading,
// which holds one of libuv's pool threads until a writer appears.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { runTool } = require('../lib/tool-call.js');
const { createSession } = require('../lib/session.js');
const { initialApproval } = require('../lib/permission.js');
const { writeRegular } = require('../lib/file-io.js');
const { sessionNotificationErrors } = await import('../demo/schema.mjs');

const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-tool-call-')));
const fifo = path.join(tmp, 'gate');
after(async () => {
  // Whatever happened, release a reader still blocked on the FIFO, or this process could not exit.
  const writer = await fs.open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
  await writer?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

test(
  'a call cancelled while its tool blocks ends at the cancel and never writes afterwards',
  // The timeout only turns a hang (the defect) into a failure; nothing is timed.
  { skip: process.platform === 'win32' && 'no FIFOs on Windows', timeout: 30_000 },
  async () => {
    const ws = tmp;
    execFileSync('mkfifo', [fifo]);
    const target = path.join(ws, 'late.txt');

    let reachedGate;
    const atGate = new Promise((resolve) => (reachedGate = resolve));
    let toolRun;
    // write_file's shape, with a blocking step before the write: a plain
    // (blocking) open of the FIFO, then the agent's own cancellable write.
    const blocking = async (cwd, args, { signal }) => {
      const opening = fs.open(fifo, 'r');
      reachedGate();
      const gate = await opening;
      await gate.close();
      await writeRegular(target, 'late.txt', args.content, { signal });
      return { output: 'written', content: [] };
    };
    const tools = new Map([
      [
        'write_file',
        (...a) => {
          toolRun = blocking(...a);
          return toolRun;
        },
      ],
    ]);

    // --approve=always: the call runs without a permission request.
    const session = createSession('s1', ws, initialApproval('always'));
    const frames = [];
    const send = (f) => {
      if (f) frames.push(f);
    };
    const controller = new AbortController();
    const call = { id: 'toolu_01Blocked', name: 'write_file', args: { path: 'late.txt', content: 'too late\n' } };
    const running = runTool(session, call, send, {
      sessionId: 's1',
      signal: controller.signal,
      maxFrameBytes: 1 << 20,
      tools,
    });
    await atGate;
    controller.abort(new Error('session/cancel'));
    const result = await running;

    assert.deepEqual(result, { callId: 'toolu_01Blocked', output: 'Cancelled by the user.', isError: true });
    assert.deepEqual(
      frames.map((f) => `${f.sessionUpdate}:${f.status}`),
      ['tool_call:in_progress', 'tool_call_update:failed'],
    );
    for (const f of frames) assert.equal(sessionNotificationErrors({ sessionId: 'sess-1', update: f }), null);
    assert.equal(frames[1].content[0].content.text, 'Cancelled by the user.');
    assert.equal(session.cards.isOpen('toolu_01Blocked'), false);

    // Unblock the tool: it goes on to its write, which sees the cancel.
    const writer = await fs.open(fifo, 'w');
    await writer.close();
    await assert.rejects(toolRun, /Cancelled by the user/);
    await assert.rejects(fs.stat(target), { code: 'ENOENT' }, 'nothing was written after the cancel');
    assert.equal(frames.length, 2, 'no frame after the card ended');
  },
);
