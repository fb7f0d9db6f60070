// Shrinking a generated case to a small one that still shows the same
// difference: fewer frames, fewer write pieces, a plain ending, plain line
// ends, fewer lines and smaller JSON payloads. Each round tries every
// candidate in one batch (one process per mode) and keeps the smallest that
// reproduces; it stops when none does.
import { caseBody } from './stream-generator.mjs';

export const caseSize = (k) =>
  caseBody(k).length + 8 * k.cuts.length + 4 * k.frames.length + (k.end === 'drop' ? 4 : 0);

const frameText = (f) => (typeof f === 'string' ? f : undefined);

/** Candidate payloads smaller than `value`: a key removed, a string or array shortened, a value replaced by null. */
function smallerValues(value) {
  const out = [];
  if (typeof value === 'string' && value.length > 0) {
    out.push('', value.slice(0, Math.floor(value.length / 2)), value.slice(Math.ceil(value.length / 2)));
    if (value.length > 1) out.push(value.slice(0, -1), value.slice(1));
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(value.filter((_, j) => j !== i));
    value.forEach((v, i) => smallerValues(v).forEach((s) => out.push(value.map((x, j) => (j === i ? s : x)))));
  } else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const { [k]: _, ...rest } = value;
      out.push(rest);
    }
    for (const k of Object.keys(value)) for (const s of smallerValues(value[k])) out.push({ ...value, [k]: s });
  } else if (typeof value === 'number' && value !== 0) out.push(0);
  return out;
}

/** Candidates for one text frame: a line removed, a JSON data line made smaller. */
function smallerFrames(text) {
  const out = [];
  const lines = text.split(/(?<=\r\n|\r(?!\n)|\n)/);
  for (let i = 0; i < lines.length; i++) {
    if (/^(\r\n|\r|\n)$/.test(lines[i])) continue;
    out.push(lines.filter((_, j) => j !== i).join(''));
  }
  lines.forEach((line, i) => {
    const m = /^data: ?(.*?)(\r\n|\r|\n)?$/s.exec(line);
    if (!m) return;
    let value;
    try {
      value = JSON.parse(m[1]);
    } catch {
      if (m[1].length > 1)
        out.push(
          [...lines.slice(0, i), `data: ${m[1].slice(0, m[1].length >> 1)}${m[2] ?? ''}`, ...lines.slice(i + 1)].join(
            '',
          ),
        );
      return;
    }
    for (const s of smallerValues(value).slice(0, 60))
      out.push([...lines.slice(0, i), `data: ${JSON.stringify(s)}${m[2] ?? ''}`, ...lines.slice(i + 1)].join(''));
  });
  return out;
}

/** Every one-step reduction of `k`, largest reductions first. */
export function candidates(k) {
  const out = [];
  const n = k.frames.length;
  for (let size = n >> 1; size >= 1; size >>= 1)
    for (let at = 0; at + size <= n; at += size)
      out.push({ ...k, frames: [...k.frames.slice(0, at), ...k.frames.slice(at + size)] });
  if (k.cuts.length) out.push({ ...k, cuts: [] });
  for (let i = 0; i < k.cuts.length; i++) out.push({ ...k, cuts: k.cuts.filter((_, j) => j !== i) });
  if (k.end === 'drop') out.push({ ...k, end: 'close' });
  if (k.frames.some((f) => typeof f === 'string' && /\r/.test(f)))
    out.push({ ...k, frames: k.frames.map((f) => (typeof f === 'string' ? f.replace(/\r\n?/g, '\n') : f)) });
  k.frames.forEach((f, i) => {
    const text = frameText(f);
    if (text === undefined) return;
    for (const smaller of smallerFrames(text))
      out.push({ ...k, frames: k.frames.map((g, j) => (j === i ? smaller : g)) });
  });
  const size = caseSize(k);
  return out.filter((c) => caseSize(c) < size && c.frames.length > 0);
}

/**
 * The smallest case found that `reproduces` (an async batch predicate:
 * cases → booleans). `budget`: at most that many rounds; `until`: no round starts after that time.
 */
export async function minimise(kase, reproduces, { budget = 60, batch = 120, until = Infinity } = {}) {
  let best = kase;
  for (let round = 0; round < budget && Date.now() < until; round++) {
    const all = candidates(best);
    if (!all.length) break;
    let improved = false;
    for (let from = 0; from < all.length && !improved; from += batch) {
      const slice = all.slice(from, from + batch);
      const ok = await reproduces(slice);
      const hits = slice.filter((_, i) => ok[i]).sort((a, b) => caseSize(a) - caseSize(b));
      if (hits.length) {
        best = hits[0];
        improved = true;
      }
    }
    if (!improved) break;
  }
  return best;
}
