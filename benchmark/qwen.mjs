// `npm run bench:qwen`: Qwen Code's own content-generator path (its real SDK
// client over loopback HTTP, its processStream / pipeline), stock vs with
// toolcall-stream/qwen, in two processes driven in alternating rounds. Both
// talk to the same loopback provider, which runs here, in the driver (as a
// real provider runs outside Qwen's process): each side's time is its own
// work. Each side is warmed up to a steady state first (at least a second of
// streams: the preload's per-stream code is only hot after dozens of streams,
// stock's per-event code within the first). Each case first checks that both
// sides give the same responses.
//
// Every case runs twice: with Qwen's telemetry off (its bare generators), and
// on (the generators as Qwen's CLI makes them, with Qwen's OpenTelemetry SDK
// recording to its file exporter: benchmark/qwen-worker.mjs --telemetry),
// where the preload converts from the SDK's objects because Qwen's telemetry
// reads each one. The last column says which path the native side took.
//
//   npm run bench:qwen                  # the newest release of each code variant, full sizes
//   node benchmark/qwen.mjs [--smoke] [--version 0.21.2] [--only 'anthropic write_file'] [--no-cards]
//                           [--no-telemetry]          # only the telemetry-off rows
//                           [--in-process-provider]   # each side serves its own streams, as before
//                           [--card-runs N]           # prompts per side for card latency (default 15)
import os from 'node:os';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QWEN_VARIANT_RELEASES, ensureQwenBuild } from '../devtools/qwen-builds.mjs';
import { startLoopbackProvider } from '../devtools/qwen-generator.mjs';
import { qwenCases } from './qwen-cases.mjs';
import { cardLatency } from './qwen-cards.mjs';

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
// The newest release of each code variant: the speed a user of each variant sees.
const versions = argv.includes('--version') ? [argv[argv.indexOf('--version') + 1]] : QWEN_VARIANT_RELEASES;
const telemetryModes = argv.includes('--no-telemetry') ? [false] : [false, true];
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const cases = qwenCases(SMOKE).filter((c) => only === undefined || c.name.includes(only));
const IN_PROCESS = argv.includes('--in-process-provider');
const CARD_RUNS = argv.includes('--card-runs') ? Number(argv[argv.indexOf('--card-runs') + 1]) : SMOKE ? 1 : 15;
// Per side and case: warm-up of `warmup` streams and `warmupMs`; then
// `rounds` rounds of `iterations` streams and `roundMs` each (median per round).
const timing = SMOKE
  ? { warmup: 1, warmupMs: 0, rounds: 1, iterations: 1, roundMs: 0 }
  : { warmup: 3, warmupMs: 1000, rounds: 7, iterations: 3, roundMs: 50 };
const worker = fileURLToPath(new URL('./qwen-worker.mjs', import.meta.url));
const loopback = IN_PROCESS ? undefined : await startLoopbackProvider();

function startSide(dir, mode, telemetry) {
  const args = [
    dir,
    mode,
    ...(SMOKE ? ['--smoke'] : []),
    ...(loopback ? ['--base-url', loopback.base] : []),
    ...(telemetry ? ['--telemetry'] : []),
  ];
  const child = fork(worker, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies = [];
  const waiting = [];
  child.on('message', (m) => (waiting.length ? waiting.shift()(m) : replies.push(m)));
  const next = () => (replies.length ? Promise.resolve(replies.shift()) : new Promise((r) => waiting.push(r)));
  return {
    ready: next(),
    run: (c, iterations, minMs = 0) => {
      loopback?.serve([bodyOf(c)]);
      child.send({ name: c.name, iterations, minMs });
      return next();
    },
    /** Lets the side end its Qwen session (the telemetry file is flushed and removed), then waits for its exit. */
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ close: true });
      await exited;
    },
  };
}

/** Which path the native side's streams of one case took: the stats' difference. */
function pathOf(before, after, provider) {
  const grew = (key) => after[provider][key] - (before?.[provider][key] ?? 0);
  const paths = [];
  if (grew('bytes')) paths.push('raw body');
  if (grew(provider === 'anthropic' ? 'objects' : 'chunks')) paths.push('SDK objects');
  if (after.fallbacks - (before?.fallbacks ?? 0)) paths.push('stock (fallback)');
  return paths.join(' + ') || 'none';
}

const bodies = new Map();
const bodyOf = (c) => {
  if (!bodies.has(c.name)) bodies.set(c.name, c.body());
  return bodies.get(c.name);
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const load = () => os.loadavg()[0].toFixed(2);
console.log(
  `bench:qwen — ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, Node ${process.version}${SMOKE ? ' (smoke)' : ''}, ` +
    `provider ${IN_PROCESS ? 'in each side' : 'in the driver'}, load ${load()}`,
);
let failed = false;
for (const version of versions) {
  const dir = ensureQwenBuild(version);
  console.log(
    `\nQwen Code ${version}: ms per stream (median of ${timing.rounds} rounds, each the median of ≥ ${timing.iterations} streams and ≥ ${timing.roundMs} ms)`,
  );
  console.log(
    '| case | Qwen telemetry | stock ms | toolcall-stream/qwen ms | stock ÷ native | CPU ms stock / native | CPU ratio | native path |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---|');
  const notes = [];
  for (const telemetry of telemetryModes) {
    const stock = startSide(dir, 'stock', telemetry);
    let native = startSide(dir, 'native', telemetry);
    const [, ready] = await Promise.all([stock.ready, native.ready]);
    const label = telemetry ? 'on' : 'off';
    // A release the preload does not serve: what its user gets is stock Qwen.
    const runsStock = ready.notServed;
    if (runsStock) {
      notes.push(`telemetry ${label}: the native side runs stock: ${runsStock}`);
      native = startSide(dir, 'stock', telemetry);
      await native.ready;
    }
    let nativeStats;
    for (const c of cases) {
      // One side at a time: the provider serves one body, and neither side's time includes the other's work.
      const s0 = await stock.run(c, timing.warmup, timing.warmupMs);
      const n0 = await native.run(c, timing.warmup, timing.warmupMs);
      const before = nativeStats;
      nativeStats = n0.stats;
      if (s0.digest !== n0.digest) {
        console.log(`| ${c.name} | ${label} | outputs differ: stock ${s0.digest}, native ${n0.digest} | | | | | |`);
        failed = true;
        continue;
      }
      const times = { stock: [], native: [] };
      const cpu = { stock: [], native: [] };
      for (let round = 0; round < timing.rounds; round++) {
        // Alternating, and alternating who goes first.
        const order =
          round % 2
            ? [
                ['native', native],
                ['stock', stock],
              ]
            : [
                ['stock', stock],
                ['native', native],
              ];
        for (const [side, proc] of order) {
          const run = await proc.run(c, timing.iterations, timing.roundMs);
          times[side].push(median(run.times));
          cpu[side].push(median(run.cpuTimes));
          if (side === 'native') nativeStats = run.stats;
        }
      }
      const s = median(times.stock);
      const n = median(times.native);
      const [sc, nc] = [median(cpu.stock), median(cpu.native)];
      const path = runsStock ? 'runs stock' : pathOf(before, nativeStats, c.provider);
      console.log(
        `| ${c.name} | ${label} | ${s.toFixed(2)} | ${n.toFixed(2)} | ${(s / n).toFixed(2)}× | ${sc.toFixed(2)} / ${nc.toFixed(2)} | ${(sc / nc).toFixed(2)}× | ${path} |`,
      );
    }
    notes.push(`telemetry ${label}: native side ${JSON.stringify(nativeStats)}`);
    await Promise.all([stock.close(), native.close()]);
  }
  for (const note of notes) console.log(note);
  console.log(`load ${load()}`);
}
if (!argv.includes('--no-cards')) {
  console.log(
    `\nCard latency in qwen --acp: ms from the provider writing a call's start to the preparing card, median (lower quartile) of ${CARD_RUNS} prompts per side`,
  );
  console.log('| release | provider | stock ms | toolcall-stream/qwen ms | preload path |');
  console.log('|---|---|---:|---:|---|');
  const quartile = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 4)];
  // The smoke run (CI) launches Qwen for the newest release only: four CLI starts instead of twelve.
  for (const version of SMOKE ? versions.slice(-1) : versions)
    for (const provider of ['anthropic', 'openai']) {
      const { stock, preload, samples, path } = await cardLatency({ version, provider, runs: CARD_RUNS });
      const q = (side) => quartile(samples[side]).toFixed(1);
      console.log(
        `| ${version} | ${provider} | ${stock.toFixed(1)} (${q('stock')}) | ${preload.toFixed(1)} (${q('preload')}) | ${path} |`,
      );
    }
}
await loopback?.close();
if (failed) process.exitCode = 1;
