// P6, scaling across worker threads: 1, 2 and N workers each convert the P1
// Anthropic stream (pushBytes) a fixed number of times, all starting at once;
// the same with the peer, the pure-JS control, on the same machine.
// scaling(W) = W × work / wall time of W workers ÷ (work / wall time of one).
// A converter that never waits for another scales like the control.
//
//   node benchmark/scaling.mjs [--smoke]   # alone (bench.mjs runs it as P6)
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const workerUrl = new URL('./scaling-worker.mjs', import.meta.url);

/** W workers of one mode, loaded and checked (same output), ready for timed runs. */
async function pool(mode, count, bytes) {
  const barrier = new SharedArrayBuffer(8);
  const workers = [];
  for (let i = 0; i < count; i++) workers.push(new Worker(workerUrl, { workerData: { mode, bytes, barrier } }));
  await Promise.all(workers.map((w) => once(w, (m) => m.loaded)));
  const shared = new Int32Array(barrier);
  let generation = 0;
  return {
    /** Wall time (ms) of every worker converting the stream `iterations` times, started together. */
    async run(iterations) {
      generation += 1;
      Atomics.store(shared, 0, 0);
      const done = workers.map((w) => once(w, (m) => m.done === generation));
      for (const w of workers) w.postMessage({ iterations, generation });
      while (Atomics.load(shared, 0) < count) await new Promise((resolve) => setTimeout(resolve, 1));
      const start = performance.now();
      Atomics.store(shared, 1, generation);
      Atomics.notify(shared, 1);
      await Promise.all(done);
      return performance.now() - start;
    },
    close: () => Promise.all(workers.map((w) => w.terminate())),
  };
}

function once(worker, match) {
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (!match(m)) return;
      worker.off('message', onMessage);
      worker.off('error', reject);
      resolve(m);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs the case; returns `{ rows, cores, load }`, one row per worker count
 * with both modes' median wall time and scaling factor.
 */
export async function scaling({ smoke = false } = {}) {
  const cores = os.availableParallelism();
  const bytes = smoke ? 8 * 1024 : 100 * 1024;
  // Per-mode work per worker, so that one run takes ~0.3 s on one core.
  const iterations = smoke ? { native: 3, peer: 1 } : { native: 300, peer: 25 };
  const rounds = smoke ? 1 : 5;
  const counts = [...new Set([1, 2, cores, ...(cores <= 2 ? [4] : [])])].sort((a, b) => a - b);
  const load = os.loadavg();
  const wall = new Map();
  for (const count of counts) {
    for (const mode of ['native', 'peer']) {
      const p = await pool(mode, count, bytes);
      try {
        await p.run(Math.max(1, iterations[mode] >> 2)); // warm-up
        const times = [];
        for (let r = 0; r < rounds; r++) times.push(await p.run(iterations[mode]));
        wall.set(`${mode}/${count}`, median(times));
      } finally {
        await p.close();
      }
      process.stderr.write(`bench: P6 ${mode}, ${count} worker(s): ${wall.get(`${mode}/${count}`).toFixed(0)} ms\n`);
    }
  }
  const factor = (mode, count) => (count * wall.get(`${mode}/1`)) / wall.get(`${mode}/${count}`);
  const rows = counts.map((count) => ({
    workers: count,
    nativeMs: wall.get(`native/${count}`),
    peerMs: wall.get(`peer/${count}`),
    native: factor('native', count),
    peer: factor('peer', count),
  }));
  return { rows, cores, load, bytes, iterations };
}

/** The P6 table, markdown. */
export function scalingTable({ rows, cores, load, bytes, iterations }) {
  const lines = [];
  lines.push(
    `P6: each worker converts the P1 Anthropic write_file ${Math.round(bytes / 1024)} KB stream (\`pushBytes\`) ` +
      `${iterations.native}× (native) or ${iterations.peer}× (peer); ${cores} cores; ` +
      `load average before the case ${load.map((l) => l.toFixed(2)).join(' / ')}`,
  );
  if (load[0] > cores / 2) {
    lines.push('');
    lines.push(
      `Warning: the machine was busy (1-minute load ${load[0].toFixed(2)} on ${cores} cores); ` +
        'no side can scale then, so these factors are noise. Rerun on an idle machine.',
    );
  }
  lines.push('');
  lines.push(
    '| workers | native wall ms | native scaling | peer (pure JS) wall ms | peer scaling | native ÷ peer scaling | ideal |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    lines.push(
      `| ${r.workers} | ${r.nativeMs.toFixed(0)} | ${r.native.toFixed(2)}× | ${r.peerMs.toFixed(0)} | ${r.peer.toFixed(2)}× | ` +
        `${(r.native / r.peer).toFixed(2)} | ${Math.min(r.workers, cores)}× |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await scaling({ smoke: process.argv.includes('--smoke') });
  process.stdout.write(scalingTable(result) + '\n');
}
