// The tests a node:test TAP report says were skipped, with their reasons. How
// scripts/test-platforms.mjs reads a file's run inside Wine or qemu, where the
// guest's node writes TAP to a file and no reporter of ours runs; the reasons
// are then held to devtools/allowed-skips.mjs as devtools/skip-reporter.mjs
// holds `npm test`'s. TAP escapes a `#` in a test's name (`\#`), so the first
// ` # SKIP` on a result line starts the directive.

/** `[{name, reason}]` of each skipped test or suite, nested ones included. */
export function skippedInTap(output) {
  return [...output.matchAll(/^\s*ok \d+ - (.*?) # SKIP(?: (.*))?$/gm)].map((m) => ({
    name: m[1],
    reason: m[2] ?? '(no reason given)',
  }));
}
