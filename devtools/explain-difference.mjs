// Whether a difference between stock Qwen and Qwen with the preload is
// explained by known difference classes: each class whose input pattern the
// case holds neutralises its own effect on copies of both results (it
// changes only what that class is known to change), and what is left must
// be equal. A hang, an unhandled rejection or a stream handed back to
// stock is never explained.
import { diffPaths } from './random-differential.mjs';
import { caseEvents } from './case-events.mjs';

const copy = (v) => structuredClone(v);

/**
 * `{explained, classes, paths}`: the classes that changed something, and
 * the paths still differing after them.
 */
export function explain(diff, kase, classes) {
  if (diff.problems.length) return { explained: false, classes: [], paths: diff.problems };
  const stock = copy(diff.stock);
  const native = copy(diff.native);
  const ctx = { kase, events: caseEvents(kase), stock, native };
  const applied = [];
  for (const c of classes) {
    const before = JSON.stringify([stock, native]);
    c.neutralise(ctx);
    if (JSON.stringify([stock, native]) !== before) applied.push(c.name);
  }
  const paths = diffPaths(stock, native);
  return { explained: paths.length === 0, classes: applied, paths };
}
