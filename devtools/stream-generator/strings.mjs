// Text as providers send it: words, non-ASCII, astral characters (surrogate
// pairs in JS), control characters, escapes, and lone surrogates, which JSON
// text may carry as `\udXXX` escapes and JS strings keep.

const PIECES = [
  'hello',
  ' world',
  'the',
  ' file',
  '.',
  ',',
  '\n',
  '  ',
  'écrit',
  '中文',
  'Ω',
  '→',
  '😀',
  '𝒳',
  '🧪',
  '"quoted"',
  '\\',
  '/',
  '\t',
  '\u0000',
  '\u001f',
  '\u2028',
  '\u00a0',
  '<think>',
  '</think>',
  '{"a":1}',
  'null',
  '0',
  '-',
  '**Plan**',
];
const LONE = ['\ud835', '\udffd', '\ud83d', '\udc00'];

/** A random text of about `size` pieces; `lone` allows lone surrogates. */
export function randomText(c, size = c.between(0, 8), { lone = true } = {}) {
  let s = '';
  for (let i = 0; i < size; i++) s += lone && c.chance(0.04) ? c.pick(LONE) : c.pick(PIECES);
  return s;
}

/**
 * `text` cut into `n` consecutive deltas at any UTF-16 index, so a surrogate
 * pair may be split between two deltas (each then a lone surrogate).
 */
export function splitText(c, text, n = c.between(1, 4)) {
  if (text.length === 0) return [''];
  const cuts = new Set();
  for (let i = 1; i < n; i++) cuts.add(c.between(1, Math.max(1, text.length - 1)));
  const sorted = [...cuts].filter((x) => x > 0 && x < text.length).sort((a, b) => a - b);
  const out = [];
  let at = 0;
  for (const cut of sorted) {
    out.push(text.slice(at, cut));
    at = cut;
  }
  out.push(text.slice(at));
  return out;
}

/** JSON text of `value` with every non-ASCII UTF-16 unit as a `\uXXXX` escape (a valid spelling). */
export const asciiJson = (value) =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
