// JSON text of a value nested deeper than JSON.stringify takes (V8's
// stringifier recurses and throws a RangeError past about 4,000 levels on
// Node 20), written without recursion: for comparing tool arguments nested
// 10,000 levels deep. Plain data only: own enumerable keys in their order,
// `undefined` and functions left out of objects as JSON.stringify leaves them.
import { createHash } from 'node:crypto';

/** A marker on the work stack: text to write as it is (a bracket, a key). */
const TEXT = Symbol('text');

/** JSON.stringify(value) for plain data at any depth. */
export function deepStringify(value) {
  const out = [];
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v !== null && typeof v === 'object' && Object.hasOwn(v, TEXT)) {
      out.push(v[TEXT]);
      continue;
    }
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const array = Array.isArray(v);
    out.push(array ? '[' : '{');
    stack.push({ [TEXT]: array ? ']' : '}' });
    const keys = array ? [...v.keys()] : Object.keys(v).filter((k) => v[k] !== undefined && typeof v[k] !== 'function');
    for (let i = keys.length - 1; i >= 0; i--) {
      stack.push(v[keys[i]]);
      const sep = i > 0 ? ',' : '';
      stack.push({ [TEXT]: `${sep}${array ? '' : `${JSON.stringify(keys[i])}:`}` });
    }
  }
  return out.join('');
}

/**
 * `JSON.parse(JSON.stringify(v))`, where V8's stringifier runs out of stack
 * with each object or array nested past 64 levels as a digest of its JSON
 * text: the fields around it stay comparable one by one.
 */
export function plainOrDigest(v) {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(v) ?? 'null');
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return JSON.parse(JSON.stringify(cut(v, 64)) ?? 'null');
  }
}

function cut(v, levels) {
  if (v === null || typeof v !== 'object' || typeof v.toJSON === 'function') return v;
  if (levels === 0) {
    const text = deepStringify(v);
    return { deepValue: createHash('sha256').update(text).digest('hex'), length: text.length };
  }
  if (Array.isArray(v)) return v.map((x) => cut(x, levels - 1));
  return Object.fromEntries(Object.keys(v).map((k) => [k, cut(v[k], levels - 1)]));
}
