// Bytes the SDK's decoder holds back still count on a preparing card. The
// Anthropic SDK that Qwen Code bundles (every release served) finds a blank
// line only with one more byte after it (lib/qwen/sdk-frames.mjs), so the
// last frame before a pause waits for the next read, in stock Qwen as
// through the launcher: conversion keeps waiting with it, but the card's
// count includes it. The published 0.24.4 and 0.21.10 in ACP mode, started
// by the launcher with progress on, over real pipes against the loopback
// provider; a model that writes 29,746 argument bytes (230 `\n` escapes)
// and then goes silent.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { sideAnswer } from '../devtools/qwen-side-requests.mjs';
import { startProvider } from '../packages/agent/demo/provider.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = path.join(root, 'bin', 'toolcall-stream-qwen.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-held-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ARGUMENT_BYTES = 29_746;
const ARGUMENT_LINES = 230;
const CALL_ID = 'toolu_01HeldFrames';

/**
 * write_file arguments of exactly ARGUMENT_BYTES bytes of JSON text with
 * ARGUMENT_LINES `\n` escapes, two of them in the last PIECE bytes: the
 * last fragment before the silence carries lines as well as bytes.
 */
function writeInput() {
  const lines = Array.from({ length: ARGUMENT_LINES - 1 }, (_, i) => `line ${i} of the held-frames fixture`);
  const tail = '\nsecond to last line\nlast line';
  const input = { file_path: path.join(tmp, 'held.txt'), content: `${lines.join('\n')}${tail}` };
  const short = ARGUMENT_BYTES - Buffer.byteLength(JSON.stringify(input));
  assert.ok(short > 0);
  input.content = `${lines.join('\n')}${'x'.repeat(short)}${tail}`;
  assert.equal(Buffer.byteLength(JSON.stringify(input)), ARGUMENT_BYTES);
  return input;
}

/** The provider's fragment size: ARGUMENT_BYTES is 139 of them. */
const PIECE = 214;

// At speed 4 the 40 s pause is 10 s of silence: past the 5 s after which a card says it waits.
const scenarios = {
  held: {
    prompt: 'Write the held-frames fixture.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: CALL_ID,
              name: 'write_file',
              input: writeInput(),
              pieceBytes: PIECE,
              pauses: [{ fraction: 1, ms: 40_000, keepAlive: false }],
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Written.' }], stop: 'end_turn' }],
    ],
  },
};

for (const version of ['0.24.4', '0.21.10'])
  test(
    `the launcher in Qwen Code ${version}, Anthropic, progress on: during the silence after the last argument byte the card counts all of them`,
    { skip: qwenBuildOrSkip(version).skip ?? process.platform === 'win32', timeout: 300_000 },
    async () => {
      const build = qwenBuildOrSkip(version);
      const server = await startProvider({ speed: 4, scenarios, fallback: sideAnswer });
      let silence;
      server.events.on('frame', ({ note, at }) => {
        if (note?.pause && silence === undefined) silence = { from: at, to: at + note.pause.ms / 4 };
      });
      const qwen = await launchQwen({
        version,
        provider: 'anthropic',
        providerUrl: server.url,
        command: launcher,
        permission: 'allow_once',
        env: {
          TOOLCALL_STREAM_QWEN_CLI: build.dir,
          XDG_CACHE_HOME: path.join(tmp, 'cache'),
          TOOLCALL_STREAM_QWEN_PROGRESS: 'on',
        },
      });
      let frames;
      try {
        const sessionId = await qwen.newSession(fs.realpathSync(tmp));
        await qwen.prompt(sessionId, scenarios.held.prompt);
        frames = qwen.wire.filter(
          (e) =>
            e.msg.method === 'session/update' &&
            e.msg.params.sessionId === sessionId &&
            e.msg.params.update.toolCallId === CALL_ID &&
            e.msg.params.update._meta?.progress !== undefined,
        );
      } finally {
        const exit = await qwen.close();
        await server.close();
        assert.equal(exit.code, 0, `qwen exit (${exit.signal ?? ''})`);
      }
      assert.ok(silence, 'the provider paused');
      assert.ok(frames.length > 0 && frames.every((e) => typeof e.at === 'number'), 'progress frames, timed');
      // A frame sent a second into the silence or later: every argument byte reached the process by then.
      const during = frames.filter((e) => e.at >= silence.from + 1000 && e.at < silence.to);
      assert.ok(during.length > 0, `progress frames during the silence (${frames.length} in all)`);
      const stalled = during.filter((e) => e.msg.params.update._meta.progress.stalled !== undefined);
      assert.ok(stalled.length > 0, 'the silence is announced');
      for (const e of during) {
        const { argumentBytes, argumentLines } = e.msg.params.update._meta.progress;
        assert.deepEqual(
          { argumentBytes, argumentLines },
          { argumentBytes: ARGUMENT_BYTES, argumentLines: ARGUMENT_LINES },
          e.msg.params.update.title,
        );
      }
    },
  );
