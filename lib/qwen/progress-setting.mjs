// Whether the preload adds live progress to Qwen Code's preparing cards, and
// why not: asked for (TOOLCALL_STREAM_QWEN_PROGRESS=on; toolcall-stream-qwen
// sets it unless --no-progress or TOOLCALL_STREAM_QWEN_PROGRESS=off), and
// Qwen runs in ACP mode, the only mode whose cards an editor shows. The
// bare preload (`--import`) leaves it off unless the variable says on.

/** The command-line flags that start Qwen Code's ACP agent (packages/cli/src/config/config.ts). */
export const ACP_FLAGS = ['--acp', '--experimental-acp'];

/** `{wanted: true}` or `{wanted: false, reason}` for a process with `argv` and `env`. */
export function progressSetting(argv = process.argv, env = process.env) {
  const value = env.TOOLCALL_STREAM_QWEN_PROGRESS;
  if (value === 'off') return { wanted: false, reason: 'turned off (TOOLCALL_STREAM_QWEN_PROGRESS=off)' };
  if (value !== 'on') return { wanted: false, reason: 'not asked for (TOOLCALL_STREAM_QWEN_PROGRESS is not on)' };
  if (!argv.some((arg) => ACP_FLAGS.includes(arg))) {
    return { wanted: false, reason: 'not in ACP mode (--acp): no editor shows these cards' };
  }
  return { wanted: true };
}
