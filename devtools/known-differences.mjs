// The classes of difference between stock Qwen Code and Qwen Code with
// toolcall-stream/qwen that the random differential
// (__test__/qwen-random-differential.test.mjs) still tolerates. Each names
// the input pattern it applies to and neutralises only its own effect
// (devtools/explain-difference.mjs); each has its minimal stream in
// __test__/fixtures/random-differential/ (`<name>.json`, replay with
// `npm run fuzz:qwen -- --replay`). When the fix for a class lands, delete the
// class and move its minimal stream to that folder's regressions/, where it
// must give exactly what stock gives; the test fails while a class's minimal
// stream no longer differs. Here rather than beside the streams because
// `npm run fuzz:qwen` reads the list too.

export const KNOWN_DIFFERENCES = [];
