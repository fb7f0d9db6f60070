// The preload's work (preload.mjs is its entry): in a process whose entry is
// Qwen Code's cli.js, installs the native converters, says in one line what
// runs stock and why, and, when TOOLCALL_STREAM_QWEN_REPORT names a file,
// appends one JSON line at exit. Anywhere else it does nothing.
import fs from 'node:fs';
import { qwenPackageOf } from './package.mjs';

/** Serves the running Qwen Code; `say(line)` writes a line to stderr once per Qwen start. */
export async function serve({ say }) {
  const pkg = qwenPackageOf(process.argv[1]);
  if (!pkg) return;
  // Only now the converters and the bundle reader: any other program's
  // cli.js that inherits NODE_OPTIONS from Qwen loads no more than this.
  const { install, newStats, stockLine } = await import('./install.mjs');
  const stats = newStats();
  let outcome;
  try {
    outcome = await install(pkg, stats);
  } catch (err) {
    // install() catches what it expects; this is for what it does not.
    const reason = `the preload failed: ${err?.message ?? err}`;
    outcome = {
      anthropic: { served: false, reason },
      openai: { served: false, reason },
      openaiResponses: { served: false, reason },
    };
  }
  // One line for everything that runs stock: the providers, and live progress
  // when it was asked for in ACP mode but cannot be added.
  const progress = outcome.progress;
  const progressOff = progress?.wanted && !progress.on ? `live progress off: ${progress.reason}` : undefined;
  const stock = stockLine(pkg, outcome);
  const line =
    stock && progressOff
      ? `${stock}; ${progressOff}`
      : (stock ?? (progressOff && `toolcall-stream/qwen: ${progressOff}`));
  if (line) say(line);
  const reportFile = process.env.TOOLCALL_STREAM_QWEN_REPORT;
  if (reportFile) {
    process.on('exit', () => {
      const report = {
        qwenVersion: pkg.version,
        active: outcome.anthropic.served || outcome.openai.served || outcome.openaiResponses.served,
        providers: {
          anthropic: summary(outcome.anthropic),
          openai: summary(outcome.openai),
          openaiResponses: summary(outcome.openaiResponses),
        },
        streams: { anthropic: stats.anthropic, openai: stats.openai, openaiResponses: stats.openaiResponses },
        fallbacks: stats.fallbacks,
        progress: progress ? { on: progress.on, ...(progress.on ? {} : { reason: progress.reason }) } : undefined,
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
