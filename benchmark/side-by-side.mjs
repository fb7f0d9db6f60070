// Two builds of the package side by side in one process, alternating
// rounds, p10 µs, on the bench's streams in each form a host feeds: raw bytes
// (`pushBytes`, the launcher's path), SDK objects (`pushEvent` / `pushChunk`,
// Qwen with telemetry on: the objects are the streams' `data:` payloads
// parsed once, as the SDKs hand them over), and the ACP path
// (`consumeModelStream` over a tool-heavy stream's responses, with a
// `historyIds` set as the agent keeps one). For a before/after table of a
// change (BENCHMARKS.md):
//   node benchmark/side-by-side.mjs <before package dir> [after package dir = this one] [--only <part of a case's name>]
// (a package dir is a built checkout: its index.js and .node).
//
// Both builds run in this one process, each through its own copy of the
// harness (side-by-side-runner.mjs, imported once per side), so that no
// call site of the harness sees both builds' classes.
import path from 'node:path';

const argv = process.argv.slice(2);
const only = argv.includes('--only') ? argv.splice(argv.indexOf('--only'), 2)[1] : undefined;
const [beforeDir, afterDir = path.join(import.meta.dirname, '..')] = argv;
if (!beforeDir) throw new Error('usage: node benchmark/side-by-side.mjs <before package dir> [after package dir]');

/** Rounds per case; each round runs n streams on each side. */
const ROUNDS = 12;
const p10 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(0.1 * (xs.length - 1))];

const { CASES, side } = await import('./side-by-side-runner.mjs?before');
const before = side(path.resolve(beforeDir));
const after = (await import('./side-by-side-runner.mjs?after')).side(path.resolve(afterDir));
console.log('| case | before p10 µs | after p10 µs | after ÷ before |\n|---|---:|---:|---:|');
for (const name of CASES) {
  if (only !== undefined && !name.includes(only)) continue;
  const n = name.includes('1 MB') ? 4 : 25;
  // Warm-up as in bench.mjs: each side at least 30 runs and 1 s, so both
  // are measured with optimised code (a host converts thousands of streams).
  await before.run(name, 30, 1000);
  await after.run(name, 30, 1000);
  const s = { before: [], after: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of round % 2 ? ['after', 'before'] : ['before', 'after']) {
      s[k].push(...(await (k === 'before' ? before : after).run(name, n)));
    }
  }
  const b = p10(s.before) * 1e3;
  const a = p10(s.after) * 1e3;
  console.log(`| ${name} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} |`);
}
