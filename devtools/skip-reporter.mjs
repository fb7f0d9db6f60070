// A node:test reporter that turns a skip into a failure when
// TOOLCALL_STREAM_SKIPS=fail, unless devtools/allowed-skips.mjs names its
// reason. `npm test` runs both packages' tests with it beside the spec
// reporter; `.ci/run` sets the switch, so a test that skipped because a Qwen
// Code build, a client or a platform tool was missing fails CI, naming what
// was missing (the skip's reason), instead of passing unseen. Without the
// switch it prints nothing and changes nothing.
//
// A reporter runs in the `node --test` process that collects every file's
// events, so it sees each skip, whichever way the test made it (`{ skip }` on
// a test or a suite, `t.skip()`), and sets that process's exit code; the
// runner itself sets it only on a failure, never back to 0.
import path from 'node:path';
import { ALLOWED_SKIPS, SKIP_MODES } from './allowed-skips.mjs';

export default async function* skipReporter(source) {
  const mode = process.env.TOOLCALL_STREAM_SKIPS || 'allow';
  const refused = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file } = event.data;
    if (skip === undefined || skip === false) continue;
    const reason = typeof skip === 'string' ? skip : '(no reason given)';
    if (!ALLOWED_SKIPS.has(reason))
      refused.push(`${file ? path.relative(process.cwd(), file) : '?'}: ${name}: ${reason}`);
  }
  if (!SKIP_MODES.includes(mode)) {
    process.exitCode = 1;
    yield `TOOLCALL_STREAM_SKIPS=${mode}: not one of ${SKIP_MODES.join(', ')}\n`;
    return;
  }
  if (mode !== 'fail' || refused.length === 0) return;
  process.exitCode = 1;
  yield (
    `TOOLCALL_STREAM_SKIPS=fail: ${refused.length} skipped test(s) fail the run; each skip says what was missing ` +
    '(devtools/allowed-skips.mjs lists the skips allowed, and why):\n' +
    refused.map((line) => `  ${line}\n`).join('')
  );
}
