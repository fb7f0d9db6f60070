// Every provider the native converters have (the core's PROVIDERS, as
// lib/generated/wire-constants.js lists it and the binding confirms) has a
// public class and a fixture folder (__test__/fixtures/providers/<name>/);
// every stream of the folder, through that class as raw SSE bytes, whole and
// split at seeded random points, gives each release's lines. The rule is
// oracle-lines.mjs's: each response recorded as the oracle records it (its
// JSON view, preparations and usage provenance), compared as parsed JSON with
// the clock and generated ids masked; an error as the oracle serialises
// Qwen's, `{name, message, type?, code?}` (core/tests/providers_common says
// the same for the core). A folder's `laterKeys` are left out of the byte
// runs: a later event of the same push may change them on a response
// already handed out (openai-responses-conformance.test.mjs, pushBytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mask } from './helpers/corpus.mjs';
import { record } from './helpers/oracle-lines.mjs';
import { expectedLines, providerFolders, readFixture } from '../devtools/provider-fixtures.mjs';
import { providerClasses } from '../devtools/provider-classes.mjs';

const require = createRequire(import.meta.url);
const api = require('../index.js');
const { PROVIDERS } = require('../lib/generated/wire-constants.js');
const { native } = require('../lib/native.js');

/** The public converter class of each provider (its `kProvider` names it). */
const classes = providerClasses(api);

/** Qwen's error as the oracle serialises it: a TypeError of its own code, a stream error with the provider's type and code, or the reference's own error. */
function errorObject(err) {
  assert.ok(err instanceof api.ToolCallStreamError, String(err?.stack ?? err));
  if (err.hostError) return { name: err.hostError.name, message: err.hostError.message };
  // Our class's name stands where the reference threw a plain Error.
  const o = { name: err.name === 'ToolCallStreamError' ? 'Error' : err.name, message: err.message };
  if (err.type !== undefined) o.type = err.type;
  else if (err.code === 'STREAM_ERROR') {
    const fields = typeof err.providerError === 'string' ? JSON.parse(err.providerError) : (err.providerError ?? {});
    if (fields.type !== undefined) o.type = fields.type;
    if (fields.code !== undefined) o.code = fields.code;
  } else o.code = `ours: ${err.code}`;
  return o;
}

/** The lines `pieces` give through a fresh converter, up to and with its error. */
function run(Class, profile, settings, pieces, ending) {
  const c = new Class({ ...settings, profile });
  const lines = [];
  const push = (rs) => rs.forEach((r) => lines.push(record('at', undefined, r)));
  try {
    for (const p of pieces) push(c.pushBytes(p));
    if (ending.end) push(c.end());
    else {
      const error = Object.assign(new Error('fed failure'), { code: 'EFIXTURE' });
      push(c.upstreamFailed(error, { retryable: ending.failed.retryable }));
    }
  } catch (err) {
    push(err.responses ?? []);
    lines.push({ error: errorObject(err) });
  }
  return lines;
}

/**
 * The compared form: tags dropped, the out-of-band values the folder's
 * oracle records (`recorded`: preparations, usage provenance) beside the
 * response, `laterKeys` of every part dropped, clock and generated ids masked.
 */
function canonical(lines, { recorded, laterKeys }) {
  const ids = new Map();
  return lines.map((line) => {
    if (line.error) return { error: line.error };
    const response = structuredClone(line.response);
    for (const candidate of response.candidates ?? []) {
      for (const part of candidate?.content?.parts ?? []) {
        for (const [key, inner] of laterKeys) if (part?.[key] && typeof part[key] === 'object') delete part[key][inner];
      }
    }
    const out = { response };
    if (recorded.includes('toolCallPreparations')) out.toolCallPreparations = line.toolCallPreparations ?? [];
    if (recorded.includes('usageProvenance')) out.usageProvenance = line.usageProvenance ?? null;
    return mask(out, ids);
  });
}

/** A seeded generator (xorshift), so a failing split can be replayed. */
function random(seed) {
  let x = seed || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

test('every native provider has a public class and a fixture folder, and every folder is a provider', () => {
  // The list is the binding's: an unknown name is refused naming the known ones.
  assert.throws(
    () => new native.ConverterHandle('no-such-provider'),
    (err) => err.message.includes(`(known: ${PROVIDERS.join(', ')})`),
  );
  for (const name of PROVIDERS) {
    assert.ok(classes.has(name), `the native provider ${name} has no public class declaring it (kProvider)`);
    assert.doesNotThrow(() => readFixture(name), `the native provider ${name} has a fixture folder`);
  }
  assert.deepEqual([...classes.keys()].sort(), [...PROVIDERS].sort(), 'every class names a native provider');
  assert.deepEqual(providerFolders(), [...PROVIDERS].sort(), 'every fixture folder names a native provider');
});

for (const name of PROVIDERS) {
  test(`${name}: every stream of its folder as raw bytes, whole and split at random, gives each release's lines`, () => {
    const Class = classes.get(name);
    const { manifest, streams } = readFixture(name);
    assert.ok(streams.length >= manifest.minStreams, `${streams.length} streams`);
    for (const stream of streams) {
      const bytes = stream.body;
      for (const release of manifest.releases) {
        const how = `${name} ${stream.name} under ${release.profile}`;
        const want = expectedLines(stream, release);
        const lines = (pieces) => run(Class, release.profile, manifest.settings, pieces, stream.ending);
        const whole = lines([bytes]);
        assert.deepEqual(canonical(whole, manifest), canonical(want, manifest), `${how}, whole`);
        const next = random(stream.name.length * 7919 + release.profile.length);
        for (let round = 0; round < 8; round++) {
          const pieces = [];
          for (let at = 0; at < bytes.length;) {
            const n = 1 + next(round % 2 ? 3 : 64);
            pieces.push(bytes.subarray(at, at + n));
            at += n;
          }
          assert.deepEqual(canonical(lines(pieces), manifest), canonical(want, manifest), `${how}, round ${round}`);
        }
      }
    }
  });
}
