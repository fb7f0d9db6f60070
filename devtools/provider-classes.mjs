// The public converter class of each native provider, found by the row of the
// core's table it declares (`static [kProvider]`,
// lib/converters/native-converter.js), so that what runs every provider
// (__test__/providers.test.mjs, the benchmark's P0 row) names none.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * `api` (the package's exports, as its caller loaded it) as a Map from each
 * provider's name to its class. The symbol is read only here, when called:
 * requiring it loads the binding, which the benchmark's `--wasi` switch must
 * precede.
 */
export function providerClasses(api) {
  const { kProvider } = require('../lib/converters/native-converter.js');
  return new Map(
    Object.values(api)
      .filter((v) => typeof v === 'function' && typeof v[kProvider] === 'string')
      .map((c) => [c[kProvider], c]),
  );
}
