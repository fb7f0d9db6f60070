// The providers' fixture folders (__test__/fixtures/providers/<name>/corpus.json,
// described in that folder's README), read as the core's table-driven tests
// read them (core/tests/providers_common): every stream with the SSE body the
// oracle served, how its feed ends, and each release's expected lines, the
// transport's failure dropped. Shared by __test__/providers.test.mjs and
// fuzz/seed-corpus.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROVIDERS_DIR = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '__test__',
  'fixtures',
  'providers',
);

/** The provider names that have a folder, sorted (the order the fuzz target `provider_bytes` picks rows in). */
export function providerFolders() {
  return fs
    .readdirSync(PROVIDERS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * The fixture of provider `name`: `{name, manifest, streams}`, each stream
 * `{name, folder, objects, body (Buffer), ending, plain}`; `ending` is
 * `{end: true}` or `{failed: {retryable}}` where a `__throw__` or `__cut__`
 * ends the feed. Throws naming the folder to add when there is none.
 */
export function readFixture(name) {
  const dir = path.join(PROVIDERS_DIR, name);
  const manifestPath = path.join(dir, 'corpus.json');
  if (!fs.existsSync(manifestPath)) {
    throw new Error(
      `the provider ${JSON.stringify(name)} has no fixture folder: add __test__/fixtures/providers/${name}/corpus.json`,
    );
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const streams = [];
  for (const folder of manifest.streams.folders) {
    const corpus = path.join(dir, folder);
    for (const file of fs.readdirSync(path.join(corpus, 'streams')).sort()) {
      if (!file.endsWith('.json') || !file.startsWith(manifest.streams.prefix)) continue;
      const items = JSON.parse(fs.readFileSync(path.join(corpus, 'streams', file), 'utf8'));
      streams.push({ name: file.slice(0, -'.json'.length), folder: corpus, ...framed(manifest, items) });
    }
  }
  streams.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { name, manifest, streams };
}

/** The body of `items` in the manifest's framing, up to where the feed fails. */
function framed(manifest, items) {
  let text = '';
  const objects = [];
  let ending = { end: true };
  let plain = true;
  for (const item of items) {
    if (item?.__throw__) {
      ending = { failed: { retryable: manifest.retryableCodes.includes(item.__throw__.code ?? '') } };
      break;
    }
    if (item?.__cut__) {
      ending = { failed: { retryable: false } };
      break;
    }
    if (item && typeof item === 'object' && '__raw__' in item) {
      text += item.__raw__;
      plain = false;
      continue;
    }
    const type = typeof item?.type === 'string' ? item.type : 'message';
    // A function replacement: `$` in the JSON text is not a pattern.
    text += manifest.frame.replace('{type}', () => type).replace('{json}', () => JSON.stringify(item));
    objects.push(item);
  }
  if (ending.end) text += manifest.bodyEnd;
  return { objects, body: Buffer.from(text), ending, plain };
}

/** The lines `stream` must give under `release`: the oracle's, the transport's failure dropped. */
export function expectedLines(stream, release) {
  const file = path.join(stream.folder, release.expected, `${stream.name}.expected.ndjson`);
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  if (!stream.ending.end) {
    const last = lines.pop();
    if (last?.error?.name !== 'Error' || 'type' in last.error) {
      throw new Error(`${file}: a failed feed ends with the transport's error, not ${JSON.stringify(last)}`);
    }
  }
  return lines;
}
