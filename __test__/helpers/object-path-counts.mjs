// Counting the object path's predicates (lib/object-path.js): imported FIRST
// by a test file, before anything loads the library, so that the module reads
// TOOLCALL_STREAM_OBJECT_PATH_COUNTS=1 when it loads (ES modules evaluate
// their imports in order). A differential test that compares object input
// with JSON text would pass even if the object path were never taken; the
// counts show that each predicate was.
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

process.env.TOOLCALL_STREAM_OBJECT_PATH_COUNTS = '1';

const require = createRequire(import.meta.url);
const { PREDICATES, objectPathCounts, resetObjectPathCounts } = require('../../lib/object-path.js');

export { PREDICATES, objectPathCounts, resetObjectPathCounts };

/**
 * The predicates taken fewer times since the last reset than `minimums`
 * (`{predicate: times}`) asks, as `name: taken < minimum`.
 */
export function takenTooRarely(minimums) {
  const counts = objectPathCounts();
  return Object.entries(minimums)
    .filter(([name, minimum]) => !(counts[name] >= minimum))
    .map(([name, minimum]) => `${name}: ${counts[name]} < ${minimum}`);
}

/** Fails unless each predicate of `minimums` was taken at least that often since the last reset. */
export function assertTaken(minimums) {
  assert.deepEqual(takenTooRarely(minimums), [], 'object-path predicates taken too rarely');
}
