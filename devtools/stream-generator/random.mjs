// The generator's seeded choices, over the repository's PRNG (../random.mjs):
// the same seed gives the same stream on every machine.
import { rng } from '../random.mjs';

/** A seeded chooser: `float()`, `int(n)` in [0, n), `chance(p)`, `pick(list)`, `weighted([[w, v]…])`. */
export function chooser(seed) {
  const float = rng(seed >>> 0);
  const int = (n) => Math.floor(float() * n);
  return {
    float,
    int,
    between: (lo, hi) => lo + int(hi - lo + 1),
    chance: (p) => float() < p,
    pick: (list) => list[int(list.length)],
    weighted(pairs) {
      let x = float() * pairs.reduce((s, [w]) => s + w, 0);
      for (const [w, v] of pairs) if ((x -= w) < 0) return v;
      return pairs[pairs.length - 1][1];
    },
  };
}
