// `toolcall-stream/qwen`: the preload that runs Qwen Code on this package's
// native converters. `toolcall-stream-qwen` (bin/toolcall-stream-qwen.js)
// gives it to Qwen by its absolute URL; by hand:
//
//   NODE_OPTIONS="--import=$(npm root -g)/toolcall-stream/lib/qwen/preload.mjs" qwen --acp
//
// TOOLCALL_STREAM_QWEN=off turns it off. TOOLCALL_STREAM_QWEN_REPORT=<file>
// appends one JSON line per Qwen process at exit.
//
// This entry is small on purpose. Through NODE_OPTIONS it loads into every
// Node process Qwen starts (its own relaunch of cli.js, shell commands, MCP
// servers), so it imports nothing unless the entry is a cli.js; and whatever
// goes wrong in the real work (serve.mjs), even at import, Qwen runs stock
// with one line saying why, never a failed start.

// Once per process, even when two copies of the preload are given.
const loaded = Symbol.for('toolcall-stream.qwen.preload');

if (
  !globalThis[loaded] &&
  process.env.TOOLCALL_STREAM_QWEN !== 'off' &&
  /(^|[\\/])cli\.js$/.test(process.argv[1] ?? '')
) {
  globalThis[loaded] = true;
  try {
    const { serve } = await import('./serve.mjs');
    await serve({ say });
  } catch (err) {
    say(`toolcall-stream/qwen: the preload could not load, Qwen Code runs stock: ${err?.message ?? err}`);
  }
}

/**
 * Writes `line` to stderr once per Qwen start: Qwen's cli.js relaunches
 * itself in a child process with more memory (relaunchAppInChildProcess in
 * packages/cli/src/utils/relaunch.ts), which inherits the environment, so the
 * child finds the line already said.
 */
function say(line) {
  if (process.env.TOOLCALL_STREAM_QWEN_SAID === line) return;
  process.env.TOOLCALL_STREAM_QWEN_SAID = line;
  process.stderr.write(`${line}\n`);
}
