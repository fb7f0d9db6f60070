// Generators of tool-argument text that needs repair, from a seeded PRNG
// (random.mjs): truncations of valid JSON, sloppy JSON as models write it,
// random garbage and deep nesting.
import { rng } from '../../devtools/random.mjs';

/** A generator over `rng(seed)`: `pick`, `int` and the four input forms. */
export function brokenJson(seed) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (list) => list[int(list.length)];

  const words = ['a', 'path', "it's", 'x"y', 'é', '😀', '中文', '\\', 'a\nb', '\t', '', 'http://x.y/z?q=1', 'C:\\dir'];

  /** Valid JSON text of a tool-argument-like value. */
  function valid(depth = 0) {
    const t = int(depth > 2 ? 4 : 6);
    if (t === 0) return JSON.stringify(pick(words) + pick(words));
    if (t === 1) return String(pick([0, 1, -1, 1.5, -0.25, 1e21, 123456, 2.5e-7]));
    if (t === 2) return pick(['true', 'false', 'null']);
    if (t === 3) return JSON.stringify(pick(words));
    if (t === 4) return '[' + Array.from({ length: int(4) }, () => valid(depth + 1)).join(pick([',', ', '])) + ']';
    const keys = Array.from({ length: 1 + int(4) }, (_, k) =>
      JSON.stringify(pick(['file_path', 'content', 'k' + k, 'é'])),
    );
    return '{' + keys.map((k) => k + pick([':', ': ']) + valid(depth + 1)).join(pick([',', ', ', ',\n  '])) + '}';
  }

  const sloppyScalars = [
    "'single'",
    "'it's'",
    '"it\'s"',
    'NaN',
    'Infinity',
    '-Infinity',
    'nan',
    '.5',
    '-.5',
    '+1',
    '01',
    '1.',
    '2e',
    '-',
    '1e+',
    'True',
    'False',
    'None',
    'undefined',
    'unquoted text',
    '"a" + "b"',
    "'a' + 'b' + 'c'",
    '/re+/g',
    'fn({"a": 1})',
    '"\\x41"',
    '"\\u12"',
    '"\\u00e9\\ud83d\\ude00"',
    '"\\ud800"',
    '"\\udc00x"',
    '"\ud800"',
    '"a\udc00b"',
    '`tick`',
    '\u201chi\u201d',
    '\u2018hi\u2019',
    '"line\nbreak"',
    '"tab\there"',
    '"ctl\u0001"',
    '"quote " inside"',
    '"http://x.y/z, w"',
    '"a\\"',
  ];
  const separators = [',', ', ', ' ', ',\n', '\n', ' /* c */ ,', ', // c\n', ',,'];

  /** JSON as models get it wrong: quotes, keys, commas, comments, literals. */
  function sloppy(depth = 0) {
    const t = int(depth > 3 ? 3 : 6);
    if (t === 0) return pick(sloppyScalars);
    if (t === 1) return valid(depth + 2);
    if (t === 2) return pick(sloppyScalars) + pick(['', ' ', '\u00a0']);
    if (t === 3) {
      const items = Array.from({ length: int(4) }, () => sloppy(depth + 1));
      return '[' + items.join(pick(separators)) + pick(['', ',', ' ...', ' // c\n']) + ']';
    }
    const items = Array.from({ length: 1 + int(4) }, (_, k) => {
      const key = pick(['"k' + k + '"', 'k' + k, "'k" + k + "'", '\u201ck' + k + '\u201d', '"k' + k]);
      return key + pick([':', ': ', ' : ', ' ', '']) + sloppy(depth + 1);
    });
    const open = pick(['{', '{', '{', '```json\n{', 'callback({', '{,']);
    const close = { '```json\n{': '}\n```', 'callback({': '});' }[open] ?? '}';
    return open + items.join(pick(separators)) + pick(['', ',', ' /* c */']) + (r() < 0.8 ? close : '');
  }

  const atoms = [...'{}[],:"\'`\\/*+-. \n\t\r', '\u00a0', '\u3000', '\u201c', '\u201d', '\u2018', '\u2019', '\u00b4'];
  const tokens = [
    'a',
    'x',
    '1',
    '0',
    'e',
    'true',
    'True',
    'None',
    'null',
    'NaN',
    'undefined',
    '//',
    '/*',
    '*/',
    '...',
    '```',
    'json',
    '(',
    ')',
    ';',
    '\\u',
    '\\u12',
    '\\ud83d',
    '\\n',
    '\\x',
    'http://',
    'https://a.b/c?d=e',
    'é',
    '😀',
    '中',
    '\u0000',
    '\u0007',
    '\b',
    '\f',
    '=',
    '#',
    '$',
    '_',
    "it's",
    '\ud800',
    '\udc00',
  ];

  /** Random garbage from JSON's own punctuation and the repairer's triggers. */
  function garbage() {
    let s = '';
    for (let n = int(24); n > 0; n--) s += r() < 0.5 ? pick(atoms) : pick(tokens);
    return s;
  }

  /** Nesting `levels` deep (objects, arrays, function calls), perhaps sloppy, perhaps cut. */
  function deep(levels) {
    let open = '';
    let close = '';
    for (let d = 0; d < levels; d++) {
      const t = int(8);
      if (t < 3) [open, close] = [open + '[', ']' + close];
      else if (t < 6) [open, close] = [open + '{"k":', '}' + close];
      else if (t < 7) [open, close] = [open + "{k: '", "'}" + close];
      else [open, close] = [open + '[1, ', ' ]' + close];
    }
    const text = open + pick(['1', 'NaN', "'x'", '"x', '']) + close;
    return r() < 0.7 ? text.slice(0, open.length + int(close.length + 1)) : text;
  }

  return { r, int, pick, valid, sloppy, garbage, deep };
}
