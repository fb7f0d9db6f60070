// `npm run bench:qwen`: Qwen Code's own content-generator path (its real SDK
// client over loopback HTTP, its processStream / pipeline), stock vs with
// toolcall-stream/qwen, in two processes driven in alternating rounds. Each
// case first checks that both sides give the same responses.
//
//   npm run bench:qwen                  # both releases, full sizes
//   node benchmark/qwen.mjs [--smoke] [--version 0.21.2] [--only 'anthropic write_file'] [--no-cards]
import os from 'node:os';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QWEN_VERSIONS, ensureQwenBuild } from '../__test__/helpers/qwen-builds.mjs';
import { qwenCases } from './qwen-cases.mjs';
import { cardLatency } from './qwen-cards.mjs';

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const versions = argv.includes('--version') ? [argv[argv.indexOf('--version') + 1]] : QWEN_VERSIONS;
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const cases = qwenCases(SMOKE).filter((c) => only === undefined || c.name.includes(only));
const timing = SMOKE ? { warmup: 1, rounds: 1, iterations: 1 } : { warmup: 3, rounds: 7, iterations: 3 };
const worker = fileURLToPath(new URL('./qwen-worker.mjs', import.meta.url));

function startSide(dir, mode) {
  const child = fork(worker, [dir, mode, ...(SMOKE ? ['--smoke'] : [])], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies = [];
  const waiting = [];
  child.on('message', (m) => (waiting.length ? waiting.shift()(m) : replies.push(m)));
  const next = () => (replies.length ? Promise.resolve(replies.shift()) : new Promise((r) => waiting.push(r)));
  return {
    ready: next(),
    run: (name, iterations) => {
      child.send({ name, iterations });
      return next();
    },
    close: () => child.kill(),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(
  `bench:qwen — ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, Node ${process.version}${SMOKE ? ' (smoke)' : ''}`,
);
let failed = false;
for (const version of versions) {
  const dir = ensureQwenBuild(version);
  const stock = startSide(dir, 'stock');
  const native = startSide(dir, 'native');
  await Promise.all([stock.ready, native.ready]);
  console.log(`\nQwen Code ${version}: ms per stream (median of ${timing.rounds} rounds × ${timing.iterations})`);
  console.log('| case | stock ms | toolcall-stream/qwen ms | stock ÷ native |');
  console.log('|---|---:|---:|---:|');
  for (const c of cases) {
    const [s0, n0] = await Promise.all([stock.run(c.name, timing.warmup), native.run(c.name, timing.warmup)]);
    if (s0.digest !== n0.digest) {
      console.log(`| ${c.name} | outputs differ: stock ${s0.digest}, native ${n0.digest} | | |`);
      failed = true;
      continue;
    }
    const times = { stock: [], native: [] };
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
      for (const [side, proc] of order) times[side].push(median((await proc.run(c.name, timing.iterations)).times));
    }
    const s = median(times.stock);
    const n = median(times.native);
    console.log(`| ${c.name} | ${s.toFixed(2)} | ${n.toFixed(2)} | ${(s / n).toFixed(2)}× |`);
  }
  const { stats } = await native.run(cases[0].name, 1);
  console.log(`native side: ${JSON.stringify(stats)}`);
  stock.close();
  native.close();
}
if (!argv.includes('--no-cards')) {
  console.log(
    "\nCard latency in qwen --acp: ms from the provider writing a call's start to the preparing card (median)",
  );
  console.log('| release | provider | stock ms | toolcall-stream/qwen ms |');
  console.log('|---|---|---:|---:|');
  for (const version of versions)
    for (const provider of ['anthropic', 'openai']) {
      const { stock, preload } = await cardLatency({ version, provider, runs: SMOKE ? 1 : 7 });
      console.log(`| ${version} | ${provider} | ${stock.toFixed(1)} | ${preload.toFixed(1)} |`);
    }
}
if (failed) process.exitCode = 1;
