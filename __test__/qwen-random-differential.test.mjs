// The random differential inside the real, published Qwen Code: per
// release, a fixed-seed share of generated provider streams
// (helpers/stream-generator.mjs: plans, SSE dialects, write pieces cut at
// any byte, malformed frames, odd field types, lone surrogates, in-band
// errors, proxy pages, dropped connections) served over loopback HTTP to
// Qwen's own content generators, stock and with toolcall-stream/qwen, in
// separate processes. The responses, preparations, usage provenance,
// thought summaries, errors (class and its origin, message, the fields Qwen
// reads, Qwen's own retry classification) and the requests made must be the
// same, except where a known difference class explains the difference
// (fixtures/random-differential/known-differences.mjs). The preload must
// never hand a stream back to stock, hang or leave a rejection unhandled.
//
// `npm run fuzz:qwen` runs the same comparison as long as asked.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QWEN_VERSIONS, qwenBuildOrSkip } from './helpers/qwen-builds.mjs';
import { generateCase } from './helpers/stream-generator.mjs';
import { runBoth, difference, signature } from './helpers/random-differential.mjs';
import { explain } from './helpers/explain-difference.mjs';
import { KNOWN_DIFFERENCES } from './fixtures/random-differential/known-differences.mjs';

const STREAMS_PER_RELEASE = 300;
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtureDir = path.join(here, 'fixtures', 'random-differential');
const fixtures = KNOWN_DIFFERENCES.map((c) => ({
  cls: c,
  kase: JSON.parse(fs.readFileSync(path.join(fixtureDir, `${c.name}.json`), 'utf8')).case,
}));
// Minimal streams of differences that are fixed: each must give exactly what
// stock gives, on every release.
const regressionDir = path.join(fixtureDir, 'regressions');
const regressions = fs
  .readdirSync(regressionDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(regressionDir, f), 'utf8')).case);
const generated = Array.from({ length: STREAMS_PER_RELEASE }, (_, i) => generateCase(i + 1));

/** Per known class: the releases on which its minimal stream shows it. */
const shownOn = new Map(KNOWN_DIFFERENCES.map((c) => [c.name, []]));
let releasesRun = 0;

for (const version of QWEN_VERSIONS) {
  const { dir, skip } = qwenBuildOrSkip(version);
  describe(`Qwen Code ${version}: generated provider streams, stock vs toolcall-stream/qwen`, { skip }, () => {
    let results;
    before(async () => {
      results = await runBoth(dir, [...generated, ...fixtures.map((f) => f.kase), ...regressions]);
      releasesRun++;
    });

    it(`${STREAMS_PER_RELEASE} fixed-seed streams give what stock Qwen gives, or differ only in a known class`, () => {
      const unexplained = [];
      const seen = {};
      for (const r of results.slice(0, generated.length)) {
        const d = difference(r);
        if (!d) continue;
        const e = explain(d, r.kase, KNOWN_DIFFERENCES);
        if (e.explained) for (const c of e.classes) seen[c] = (seen[c] ?? 0) + 1;
        else
          unexplained.push(`seed ${r.kase.seed}: ${signature(d)} (still differing: ${e.paths.slice(0, 4).join(' ')})`);
      }
      assert.deepEqual(
        unexplained,
        [],
        `differences no known class explains; replay one with npm run fuzz:qwen -- --release ${version} --replay <seed>`,
      );
      // The share exercises what it is for: streams that end well, in an error, with calls.
      const outcomes = results.slice(0, generated.length);
      assert.ok(outcomes.filter((r) => !r.stock.error).length > STREAMS_PER_RELEASE / 4);
      assert.ok(outcomes.filter((r) => r.stock.error).length > STREAMS_PER_RELEASE / 10);
      assert.ok(outcomes.some((r) => r.stock.responses.some((x) => x.functionCalls?.length > 1)));
    });

    it("each known class's minimal stream differs here only as its class says, if at all", () => {
      for (const [i, f] of fixtures.entries()) {
        const r = results[generated.length + i];
        const d = difference(r);
        if (!d) continue;
        const e = explain(d, r.kase, KNOWN_DIFFERENCES);
        assert.ok(e.explained, `${f.cls.name}: ${signature(d)} (${e.paths.join(' ')})`);
        assert.ok(e.classes.includes(f.cls.name), `${f.cls.name}: explained by ${e.classes.join(', ')} instead`);
        shownOn.get(f.cls.name).push(version);
      }
    });

    it('each fixed difference (fixtures/random-differential/regressions) gives exactly what stock Qwen gives', () => {
      const at = generated.length + fixtures.length;
      const differing = regressions
        .map((kase, i) => [kase.seed, difference(results[at + i])])
        .filter(([, d]) => d)
        .map(([seed, d]) => `${seed}: ${signature(d)}`);
      assert.deepEqual(differing, []);
    });
  });
}

it('every known class still shows on some release: a class whose fix has landed is deleted', (t) => {
  if (releasesRun === 0) return t.skip('no Qwen Code release available');
  const fixed = [...shownOn].filter(([, versions]) => versions.length === 0).map(([name]) => name);
  assert.deepEqual(fixed, [], 'these classes no longer differ on any release: delete them from known-differences.mjs');
});
