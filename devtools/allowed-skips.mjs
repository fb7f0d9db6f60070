// The skips CI allows. With TOOLCALL_STREAM_SKIPS=fail (`.ci/run` sets it),
// every other skip is a failure: in `npm test` (devtools/skip-reporter.mjs)
// and inside a file `npm run test:platforms` runs (scripts/test-platforms.mjs).
// A skip there means something the test needs was missing (a published Qwen
// Code build that could not be fetched, Python, Toad, acpx, root, unshare, a
// flag), and a run that skipped it proves nothing about it. An entry here is
// a skip that is right on every machine CI runs on, with the reason why.
// A reason matches exactly, so a reworded skip fails until it is listed again.

/** `reason` (exactly as the test gives it) → why skipping it hides nothing. */
export const ALLOWED_SKIPS = new Map([
  [
    'not one of the scenarios chosen',
    'describeQwenHost (__test__/helpers/qwen-host-suite.mjs) defines every scenario for each release × ' +
      'provider and runs only those its caller chose; each scenario runs in the file that chose it',
  ],
  [
    '0.21.x has no idle guard on Anthropic: Qwen waits',
    "Qwen Code 0.21.x's Anthropic generator has no stream idle timeout, so there is no limit for the card " +
      'to name (RELIABILITY.md); the same test runs on 0.24.4 (__test__/zed-cards-qwen.test.mjs)',
  ],
  [
    'starts a node child: qemu-user needs binfmt_misc, absent here; runs on linux-x64 and under Wine',
    "scripts/test-platforms.mjs's arm64 row runs node under qemu-user without binfmt_misc, so a test's own " +
      'node child cannot start there; the test runs in npm test and in the Wine row (__test__/object-path.test.mjs)',
  ],
]);

/** The values TOOLCALL_STREAM_SKIPS may take: unset or `allow` (a skip is a skip), `fail`. */
export const SKIP_MODES = ['allow', 'fail'];
