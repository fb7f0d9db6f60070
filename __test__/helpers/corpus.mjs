// The conformance corpus (the reference's own outputs) and the comparison
// rules of its README: parsed JSON, absent keys stay absent, clock values and
// generated ids compared by shape and consistency.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'fixtures');
const dirs = [path.join(fixtures, 'conformance'), path.join(fixtures, 'extra')];

export function streams(prefix) {
  const out = [];
  for (const dir of dirs) {
    for (const file of fs.readdirSync(path.join(dir, 'streams')).sort()) {
      if (!file.startsWith(prefix)) continue;
      const name = file.replace(/\.json$/, '');
      out.push({ name, items: JSON.parse(fs.readFileSync(path.join(dir, 'streams', file), 'utf8')) });
    }
  }
  return out;
}

export function expected(name, suffix) {
  for (const dir of dirs) {
    const file = path.join(dir, 'expected', `${name}.${suffix}`);
    if (fs.existsSync(file)) {
      return fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    }
  }
  throw new Error(`no expected output for ${name}.${suffix}`);
}

const GENERATED_ID = /^call_\d+_[0-9a-z]{1,7}$/;

/** Masks createTime (digits only, ms clock) and generated ids, consistently. */
export function mask(value, ids = new Map()) {
  if (Array.isArray(value)) return value.map((v) => mask(v, ids));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'createTime' && typeof v === 'string' && v.length >= 13) {
        if (!/^\d+$/.test(v)) throw new Error(`createTime is not a millisecond clock: ${v}`);
        out[k] = '<now>';
      } else out[k] = mask(v, ids);
    }
    return out;
  }
  if (typeof value === 'string' && GENERATED_ID.test(value)) {
    if (!ids.has(value)) ids.set(value, ids.size);
    return `<generated ${ids.get(value)}>`;
  }
  return value;
}

/** The SDK's harness failure (`__throw__`) is not converter output. */
export const isTransportError = (line) => Boolean(line.error?.code?.startsWith?.('E'));

export function anthropicSse(events) {
  return events.map((e) => `event: ${e.type ?? 'message'}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

export function openaiSse(chunks) {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}
