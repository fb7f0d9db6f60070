// Memory soak inside the published Qwen Code: a few thousand turns in one
// process through Qwen's own content generators, stock and with
// toolcall-stream/qwen (each mode its own process), over loopback HTTP. The
// turns are generated provider streams (devtools/stream-generator.mjs),
// clean ones and faulty ones, Anthropic and OpenAI. After a warm-up, the
// process samples its memory every few turns after a full GC and fits a
// least-squares line: the slope per turn of RSS, heap and external memory,
// and the count of live native handles (liveHandles() of the package's
// lib/native.js), which must not grow. Then it compares how each turn
// ended in the two modes (the error's class and message, or none). A third
// process runs the preload with live progress as the ACP layer runs it: a
// PreparationTracker with progress (10 ms ticks) shows each turn's preparing
// cards and discards them at its end; it counts the progress frames, and the
// timers and cards left once a turn ended, which must be none. Prints the
// numbers and the turns that ended differently; asserts nothing.
//
//   node scripts/soak-qwen.mjs [--turns 3000] [--release 0.24.4] [--every 100] [--warmup 500]
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { ensureQwenBuild } from '../devtools/qwen-builds.mjs';
import { startQwenGenerators } from '../devtools/qwen-generator.mjs';
import { startCaseServer } from '../devtools/case-server.mjs';
import { generateCase } from '../devtools/stream-generator.mjs';

const require = createRequire(import.meta.url);
const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '3000' },
    release: { type: 'string', default: '0.24.4' },
    every: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '500' },
    child: { type: 'string' },
  },
});
const turns = Number(args.turns);
const every = Number(args.every);
const warmup = Number(args.warmup);

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

async function child(mode) {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
  const { liveHandles } = require('../lib/native.js');
  console.error = () => {};
  console.warn = () => {};
  const provider = await startCaseServer();
  const qwen = await startQwenGenerators({
    packageDir: ensureQwenBuild(args.release),
    mode: mode === 'progress' ? 'native' : mode,
    baseUrl: provider.base,
  });
  const { ToolCallCards, PreparationTracker } = require('../index.js');
  const cards = new ToolCallCards({ suppressedTools: [] });
  const shown = { frames: 0, progressFrames: 0, refused: 0, timersLeft: 0, cardsLeft: 0 };
  const samples = [];
  const request = { model: 'test-model', contents: [{ role: 'user', parts: [{ text: 'hi' }] }], config: {} };
  let errors = 0;
  /** turn → `Class: message` of the error it ended in. */
  const ended = {};
  const started = Date.now();
  for (let turn = 1; turn <= turns; turn++) {
    // The same turns in both modes; SDK-retried HTTP errors are left out (their backoff is the SDK's).
    let kase = generateCase(turn);
    for (let s = turn; kase.status !== 200;) kase = generateCase((s += 100_000));
    provider.serve(kase);
    const tracker =
      mode === 'progress'
        ? new PreparationTracker(cards, {
            progress: { intervalMs: 10, stallMs: 50, stallIntervalMs: 20, send: () => void shown.progressFrames++ },
          })
        : undefined;
    try {
      for await (const r of await qwen.generators[kase.provider].generateContentStream(request, 'prompt-1')) {
        if (!tracker) continue;
        let frames;
        try {
          frames = tracker.observe(r);
        } catch {
          // A preparation whose id no card can carry (Qwen's JS ids: an
          // empty or odd one) is the ledger's refusal, not the turn's error.
          shown.refused++;
          frames = [];
        }
        for (const frame of frames) {
          shown.frames++;
          tracker.sent(frame);
        }
        // A turn's calls are resolved by id, as the ACP stream loop does.
        tracker.resolve(r.functionCalls ?? []);
      }
    } catch (e) {
      errors++;
      ended[turn] = `${e?.constructor?.name}: ${e?.message}`;
    }
    if (tracker) {
      tracker.discard(true);
      cards.closeAll();
      // A tick still delivering when the turn ended finishes on the next turn of the event loop.
      await new Promise((r) => setImmediate(r));
      if (tracker.progressRunning) shown.timersLeft++;
      if (cards.openIds().length > 0) shown.cardsLeft++;
    }
    if (turn % every === 0) {
      // napi runs the finalizers of collected handles after the GC, on the event loop.
      for (let i = 0; i < 3; i++) {
        globalThis.gc();
        await new Promise((r) => setImmediate(r));
      }
      const m = process.memoryUsage();
      samples.push({
        turn,
        rss: m.rss,
        heap: m.heapUsed,
        external: m.external + m.arrayBuffers,
        handles: liveHandles(),
      });
    }
  }
  await qwen.close();
  provider.close();
  const after = samples.filter((s) => s.turn > warmup);
  const fit = (k) => slope(after.map((s) => ({ x: s.turn, y: s[k] })));
  const last = samples[samples.length - 1];
  return {
    mode,
    turns,
    errors,
    ended,
    seconds: (Date.now() - started) / 1000,
    slopes: { rss: fit('rss'), heap: fit('heap'), external: fit('external'), handles: fit('handles') },
    end: { rss: last.rss, heap: last.heap, external: last.external, handles: last.handles },
    handles: { min: Math.min(...after.map((s) => s.handles)), max: Math.max(...after.map((s) => s.handles)) },
    stats: mode === 'stock' ? undefined : qwen.stats,
    progress: mode === 'progress' ? shown : undefined,
  };
}

if (args.child) {
  process.stdout.write(JSON.stringify(await child(args.child)) + '\n');
} else {
  const script = fileURLToPath(import.meta.url);
  const kb = (b) => `${(b / 1024).toFixed(2)} KB`;
  console.log(
    `soak: Qwen Code ${args.release}, ${turns} turns per mode, a sample every ${every} after a full GC, slopes over turns > ${warmup}`,
  );
  console.log(
    `machine: ${os.cpus()[0]?.model} ×${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`,
  );
  const runs = {};
  for (const mode of ['stock', 'native', 'progress']) {
    const out = execFileSync(process.execPath, ['--expose-gc', script, '--child', mode, ...process.argv.slice(2)], {
      encoding: 'utf8',
      maxBuffer: 16 << 20,
    });
    const r = JSON.parse(out.trim().split('\n').pop());
    runs[mode] = r;
    console.log(
      `${mode.padEnd(8)} ${r.seconds.toFixed(1)} s, ${r.errors} turns ended in an error; per turn: RSS ${kb(r.slopes.rss)}, heap ${kb(r.slopes.heap)}, external ${kb(r.slopes.external)}, live handles ${r.slopes.handles.toFixed(4)}; at the end: RSS ${(r.end.rss / 2 ** 20).toFixed(1)} MiB, heap ${(r.end.heap / 2 ** 20).toFixed(1)} MiB, live handles ${r.end.handles} (after warm-up ${r.handles.min}…${r.handles.max})`,
    );
  }
  const p = runs.progress.progress;
  console.log(
    `progress: ${p.frames} preparing cards shown (${p.refused} preparations refused by the ledger), ${p.progressFrames} progress frames; turns that left a timer running: ${p.timersLeft}, a card open: ${p.cardsLeft}`,
  );
  // The same turns in every mode: each must end the same way.
  const differing = [];
  for (let turn = 1; turn <= turns; turn++) {
    const [a, b, c] = [runs.stock.ended[turn], runs.native.ended[turn], runs.progress.ended[turn]];
    if (a !== b) differing.push(`turn ${turn}: stock ${a ?? 'no error'}, preload ${b ?? 'no error'}`);
    if (a !== c) differing.push(`turn ${turn}: stock ${a ?? 'no error'}, preload with progress ${c ?? 'no error'}`);
  }
  console.log(`turns that ended differently stock and with the preload: ${differing.length}`);
  for (const line of differing.slice(0, 10)) console.log(`  ${line}`);
}
