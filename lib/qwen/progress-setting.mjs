// Whether the preload adds live progress to Qwen Code's preparing cards, and
// why not: asked for (TOOLCALL_STREAM_QWEN_PROGRESS on; toolcall-stream-qwen
// sets it on unless --no-progress or the variable says off), and Qwen runs in
// ACP mode, the only mode whose cards an editor shows. The bare preload
// (`--import`) leaves it off unless the variable says on. The variable takes
// the usual spellings of a switch, in any case; any other value keeps the
// default and is named in one line.

/** The command-line flags that start Qwen Code's ACP agent (packages/cli/src/config/config.ts). */
export const ACP_FLAGS = ['--acp', '--experimental-acp'];

const VARIABLE = 'TOOLCALL_STREAM_QWEN_PROGRESS';
const ON = ['on', 'true', '1', 'yes', 'enabled'];
const OFF = ['off', 'false', '0', 'no', 'disabled'];

/**
 * The variable's value as a switch: true, false, undefined when unset or
 * empty, or `{unknown}` naming a value that is neither.
 */
export function progressSwitch(env = process.env) {
  const value = env[VARIABLE];
  if (value === undefined || value.trim() === '') return undefined;
  const word = value.trim().toLowerCase();
  if (ON.includes(word)) return true;
  if (OFF.includes(word)) return false;
  return { unknown: `${VARIABLE}=${JSON.stringify(value)} is not on or off (${ON.join(', ')}; ${OFF.join(', ')})` };
}

/**
 * What the launcher gives Qwen in the variable, `on` or `off`, and the line to
 * say when the user's value is not a switch (`line`): `progress` is false for
 * --no-progress, which wins.
 */
export function launcherProgress(progress, env = process.env) {
  if (!progress) return { value: 'off' };
  const s = progressSwitch(env);
  if (s === false) return { value: 'off' };
  return { value: 'on', line: s?.unknown && `${s.unknown}: live progress stays on, the default` };
}

/**
 * `{wanted: true}` or `{wanted: false, reason}` for a process with `argv` and
 * `env`; `unknown: true` when the reason is a value that is not a switch,
 * which the preload says in its line.
 */
export function progressSetting(argv = process.argv, env = process.env) {
  const s = progressSwitch(env);
  if (s === false) return { wanted: false, reason: `turned off (${VARIABLE}=${env[VARIABLE]})` };
  if (s === undefined) return { wanted: false, reason: `not asked for (${VARIABLE} is not on)` };
  if (s !== true) return { wanted: false, unknown: true, reason: `${s.unknown}: left off, the default` };
  if (!argv.some((arg) => ACP_FLAGS.includes(arg))) {
    return { wanted: false, reason: 'not in ACP mode (--acp): no editor shows these cards' };
  }
  return { wanted: true };
}
