// What a model turn holds, before any provider spells it: text, thinking and
// tool calls (several, and for OpenAI in parallel), usage and a finish reason.
import { randomText } from './strings.mjs';

const TOOL_NAMES = ['write_file', 'read_file', 'run_shell_command', 'edit', 'glob', 'x'];

function randomInput(c) {
  const input = {};
  for (let i = 0, n = c.between(0, 3); i < n; i++) {
    input[c.pick(['file_path', 'content', 'command', 'n', 'flags', 'nested'])] = c.weighted([
      [4, randomText(c, c.between(0, 6))],
      [1, c.between(-5, 5000)],
      [1, [1, 'two', null]],
      [1, { deep: { x: randomText(c, 2) } }],
      [1, true],
    ]);
  }
  return input;
}

/** The argument text of a call: its input as JSON, or (rarely) text that is not a JSON object. */
function argumentText(c, input) {
  return c.weighted([
    [12, JSON.stringify(input)],
    [1, ''],
    [1, JSON.stringify(input).slice(0, -1)],
    [1, '{"file_path": "a.txt", "content": "unterminated'],
    [1, '[1,2]'],
    [1, 'not json'],
  ]);
}

/**
 * A plan: `{blocks, usage, finish}`. Blocks are `{kind: 'text'|'thinking', text}`
 * or `{kind: 'tool', id, name, args}`; `finish` is a provider-neutral name the
 * spellers map (or an odd value they pass through).
 */
export function randomPlan(c) {
  const blocks = [];
  for (
    let i = 0,
      n = c.weighted([
        [1, 0],
        [4, 1],
        [4, 2],
        [3, 3],
        [1, 5],
      ]);
    i < n;
    i++
  ) {
    const kind = c.weighted([
      [5, 'text'],
      [2, 'thinking'],
      [4, 'tool'],
    ]);
    if (kind === 'tool') {
      const input = randomInput(c);
      blocks.push({
        kind,
        id: c.chance(0.9) ? `call_${c.int(1e6).toString(36)}` : c.pick(['', 'dup']),
        name: c.chance(0.95) ? c.pick(TOOL_NAMES) : '',
        args: argumentText(c, input),
      });
    } else {
      blocks.push({ kind, text: randomText(c), signature: c.chance(0.5) ? randomText(c, 2) : '' });
    }
  }
  const tools = blocks.some((b) => b.kind === 'tool');
  return {
    blocks,
    usage: c.chance(0.8)
      ? {
          input: c.between(0, 5000),
          output: c.between(0, 900),
          cached: c.chance(0.3) ? c.between(0, 400) : undefined,
          cacheCreation: c.chance(0.2) ? c.between(0, 50) : undefined,
        }
      : undefined,
    finish: c.weighted([
      [8, tools ? 'tool' : 'stop'],
      [2, 'stop'],
      [1, 'length'],
      [1, 'filter'],
      [1, 'none'],
      [1, 'odd'],
    ]),
  };
}
