// The random differential, as long as asked: generated provider streams
// (devtools/stream-generator.mjs) through the published Qwen Code,
// stock and with toolcall-stream/qwen, batch after batch; every difference
// is saved, and the first of each kind is minimised to a small reproducing
// stream.
//
//   npm run fuzz:qwen -- --minutes N [--release V] [--seed S] [--batch B] [--out DIR]
//   npm run fuzz:qwen -- --replay <case.json | seed> [--release V]
//
// A difference is of a known kind when the known classes explain it
// (devtools/known-differences.mjs), else of a
// new kind named by where it differs. Saved under target/fuzz-qwen/<release>/
// (outside git): per kind a folder with the first raw cases and, for a new
// kind, the minimal case (`minimal.json`: the case, its body and both
// modes' results); `summary.json` counts them.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { QWEN_VERSIONS, ensureQwenBuild } from '../devtools/qwen-builds.mjs';
import { generateCase, caseBody } from '../devtools/stream-generator.mjs';
import { runBoth, startPair, difference, signature } from '../devtools/random-differential.mjs';
import { minimise, caseSize } from '../devtools/minimise-case.mjs';
import { KNOWN_DIFFERENCES } from '../devtools/known-differences.mjs';
import { explain } from '../devtools/explain-difference.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    release: { type: 'string', multiple: true },
    seed: { type: 'string' },
    batch: { type: 'string', default: '200' },
    out: { type: 'string', default: path.join(REPO, 'target', 'fuzz-qwen') },
    replay: { type: 'string' },
    'raw-per-kind': { type: 'string', default: '5' },
  },
});
const releases = args.release ?? QWEN_VERSIONS;
// A folder name per kind: readable, and unique by a hash of the whole name.
const slug = (s) =>
  `${s
    .replace(/[^a-zA-Z0-9.]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80)}-${createHash('sha256').update(s).digest('hex').slice(0, 8)}`;

if (args.replay) {
  // A saved case file, or the seed of a generated one.
  const kase = /^\d+$/.test(args.replay)
    ? generateCase(Number(args.replay))
    : (({ case: c, ...rest }) => c ?? rest)(JSON.parse(fs.readFileSync(args.replay, 'utf8')));
  for (const v of releases) {
    const [r] = await runBoth(ensureQwenBuild(v), [kase]);
    const d = difference(r);
    console.log(`${v}: ${d ? kindOf({ kase }, d) : 'the same'}`);
    if (d) console.log(JSON.stringify({ paths: d.paths, stock: d.stock, native: d.native }, null, 1));
  }
  process.exit(0);
}

const deadline = Date.now() + Number(args.minutes) * 60_000;
const batch = Number(args.batch);
let seed = args.seed !== undefined ? Number(args.seed) : Date.now() % 1e9;
const state = Object.fromEntries(
  releases.map((v) => [v, { dir: ensureQwenBuild(v), cases: 0, differing: 0, kinds: {} }]),
);
const pairs = Object.fromEntries(releases.map((v) => [v, startPair(state[v].dir)]));

function save(v) {
  const out = path.join(args.out, v);
  fs.mkdirSync(out, { recursive: true });
  const { dir: _, ...summary } = state[v];
  fs.writeFileSync(path.join(out, 'summary.json'), JSON.stringify(summary, null, 1));
}

/** The kind of a difference: the known classes that explain it, or where it differs. */
function kindOf(r, d) {
  const e = explain(d, r.kase, KNOWN_DIFFERENCES);
  return e.explained ? `known ${e.classes.join(' + ')}` : `new ${signature(d)}`;
}

async function minimal(v, r, sig) {
  const reproduces = async (cases) =>
    (await pairs[v].run(cases)).map((x) => {
      const d = difference(x);
      return d !== undefined && kindOf(x, d) === sig;
    });
  // Minimising is bounded in time so the search goes on; what it reached is kept.
  const small = await minimise(r.kase, reproduces, { until: Date.now() + 120_000 });
  const [again] = await pairs[v].run([small]);
  const d = difference(again);
  return {
    release: v,
    kind: sig,
    body: caseBody(small).toString('latin1'),
    case: small,
    stock: d?.stock ?? again.stock,
    native: d?.native ?? again.native,
    paths: d?.paths,
  };
}

console.log(
  `fuzz:qwen ${releases.join(', ')} for ${args.minutes} min from seed ${seed}, ${batch} cases a batch, into ${args.out}`,
);
while (Date.now() < deadline) {
  for (const v of releases) {
    if (Date.now() >= deadline) break;
    const s = state[v];
    const cases = Array.from({ length: batch }, (_, i) => generateCase(seed + i));
    const results = await pairs[v].run(cases);
    s.cases += cases.length;
    for (const r of results) {
      const d = difference(r);
      if (!d) continue;
      s.differing++;
      const sig = kindOf(r, d);
      const kind = (s.kinds[sig] ??= { count: 0, seeds: [] });
      kind.count++;
      if (kind.seeds.length >= Number(args['raw-per-kind'])) continue;
      kind.seeds.push(r.kase.seed);
      const folder = path.join(args.out, v, slug(sig));
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(
        path.join(folder, `seed-${r.kase.seed}.json`),
        JSON.stringify({ case: r.kase, paths: d.paths, stock: d.stock, native: d.native }, null, 1),
      );
      if (kind.seeds.length === 1 && sig.startsWith('new ')) {
        const m = await minimal(v, r, sig);
        kind.minimalSize = caseSize(m.case);
        fs.writeFileSync(path.join(folder, 'minimal.json'), JSON.stringify(m, null, 1));
        console.log(`${v}: ${sig} (seed ${r.kase.seed}), minimal ${JSON.stringify(m.body).slice(0, 200)}`);
      } else if (kind.seeds.length === 1) console.log(`${v}: ${sig} (seed ${r.kase.seed})`);
    }
    save(v);
    console.log(`${v}: ${s.cases} cases, ${s.differing} differ, ${Object.keys(s.kinds).length} kinds`);
  }
  seed += batch;
}
for (const v of releases) save(v);
await Promise.all(Object.values(pairs).map((p) => p.close()));
console.log(`done; next seed ${seed}`);
