// The conformance corpus (the reference's own outputs) and the comparison
// rules of its README: parsed JSON, absent keys stay absent, clock values and
// generated ids compared by shape and consistency.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'fixtures');
const dirs = [
  path.join(fixtures, 'conformance'),
  path.join(fixtures, 'extra'),
  path.join(fixtures, 'qwen-0.24'),
  path.join(fixtures, 'provenance'),
  path.join(fixtures, 'fidelity'),
];

/** Each profile and the directory of the release outputs it must match. */
export const PROFILES = [
  ['qwen-0.21', 'expected'],
  ['qwen-0.24', 'expected-0.24.4'],
];

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

/** The expected lines of `name` in `release` (`expected`: 0.21.2, `expected-0.24.4`). */
export function expected(name, suffix, release = 'expected') {
  for (const dir of dirs) {
    const file = path.join(dir, release, `${name}.${suffix}`);
    if (fs.existsSync(file)) {
      return fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    }
  }
  throw new Error(`no expected output for ${release}/${name}.${suffix}`);
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

/** The harness's feed failure (`__throw__`, rethrown as it is: no `type`) is not converter output. */
export const isTransportError = (line) => Boolean(line.error && !line.error.type && line.error.name === 'Error');

/** A `null` event is sent under a name the SDK parses and yields (it skips unknown names). */
export function anthropicSse(events) {
  const name = (e) => (e === null ? 'content_block_delta' : (e.type ?? 'message'));
  return events.map((e) => `event: ${name(e)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

export function openaiSse(chunks) {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}
