// `toolcall-stream/qwen`: the preload that runs Qwen Code on this package's
// native converters.
//
//   node --import toolcall-stream/qwen <qwen>/cli.js --acp
//   NODE_OPTIONS="--import=toolcall-stream/qwen" qwen --acp
//
// TOOLCALL_STREAM_QWEN=off turns it off. TOOLCALL_STREAM_QWEN_REPORT=<file>
// appends one JSON line per Qwen process at exit. It acts only in a process
// whose entry is Qwen Code's cli.js (the `qwen` launcher relaunches cli.js in
// a child process, which inherits NODE_OPTIONS); anywhere else it does nothing.
import fs from 'node:fs';
import { install, newStats, qwenPackageOf } from './install.mjs';

const pkg = process.env.TOOLCALL_STREAM_QWEN === 'off' ? undefined : qwenPackageOf(process.argv[1]);
if (pkg) {
  const stats = newStats();
  const outcome = await install(pkg, stats);
  if (!outcome.active) process.stderr.write(`toolcall-stream/qwen: Qwen Code runs stock: ${outcome.reason}\n`);
  const reportFile = process.env.TOOLCALL_STREAM_QWEN_REPORT;
  if (reportFile) {
    process.on('exit', () => {
      const line = {
        qwenVersion: pkg.version,
        profile: outcome.profile ?? null,
        active: outcome.active,
        ...(outcome.reason ? { reason: outcome.reason } : {}),
        streams: { anthropic: stats.anthropic, openai: stats.openai },
        fallbacks: stats.fallbacks,
      };
      try {
        fs.appendFileSync(reportFile, JSON.stringify(line) + '\n');
      } catch {
        // The report is best effort; Qwen's exit is not delayed or changed.
      }
    });
  }
}
