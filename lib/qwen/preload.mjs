// `toolcall-stream/qwen`: the preload that runs Qwen Code on this package's
// native converters. `toolcall-stream-qwen` (bin/toolcall-stream-qwen.js)
// gives it to Qwen by its absolute URL; by hand:
//
//   node --import "$(npm root -g)/toolcall-stream/lib/qwen/preload.mjs" <qwen>/cli.js --acp
//
// TOOLCALL_STREAM_QWEN=off turns it off. TOOLCALL_STREAM_QWEN_REPORT=<file>
// appends one JSON line per Qwen process at exit. It acts only in a process
// whose entry is Qwen Code's cli.js (the `qwen` launcher relaunches cli.js in
// a child process, which inherits NODE_OPTIONS); anywhere else it does nothing.
import fs from 'node:fs';
import { install, newStats, stockLine } from './install.mjs';
import { qwenPackageOf } from './package.mjs';

const pkg = process.env.TOOLCALL_STREAM_QWEN === 'off' ? undefined : qwenPackageOf(process.argv[1]);
if (pkg) {
  const stats = newStats();
  let outcome;
  try {
    outcome = await install(pkg, stats);
  } catch (err) {
    // install() catches what it expects; this is for what it does not.
    const reason = `the preload failed: ${err?.message ?? err}`;
    outcome = { anthropic: { served: false, reason }, openai: { served: false, reason } };
  }
  const line = stockLine(pkg, outcome);
  if (line) process.stderr.write(`${line}\n`);
  const reportFile = process.env.TOOLCALL_STREAM_QWEN_REPORT;
  if (reportFile) {
    process.on('exit', () => {
      const report = {
        qwenVersion: pkg.version,
        active: outcome.anthropic.served || outcome.openai.served,
        providers: {
          anthropic: summary(outcome.anthropic),
          openai: summary(outcome.openai),
        },
        streams: { anthropic: stats.anthropic, openai: stats.openai },
        fallbacks: stats.fallbacks,
      };
      try {
        fs.appendFileSync(reportFile, JSON.stringify(report) + '\n');
      } catch {
        // The report is best effort; Qwen's exit is not delayed or changed.
      }
    });
  }
}

function summary(p) {
  return p.served ? { served: true, profile: p.profile } : { served: false, reason: p.reason };
}
