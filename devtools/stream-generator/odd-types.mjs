// Odd field types: a field Qwen reads without validating (its converters in
// packages/core/src/core/anthropicContentGenerator/converter.ts and
// packages/core/src/core/openaiContentGenerator/converter.ts) given a number,
// a string, an object, null, an array or a boolean instead, or a whole
// payload that is not an object.

/** The fields Qwen reads, per payload type (paths into the event / chunk). */
const ANTHROPIC_FIELDS = {
  message_start: [
    ['message'],
    ['message', 'id'],
    ['message', 'model'],
    ['message', 'usage'],
    ['message', 'usage', 'input_tokens'],
    ['message', 'usage', 'cache_read_input_tokens'],
    ['message', 'usage', 'cache_creation_input_tokens'],
  ],
  content_block_start: [
    ['index'],
    ['content_block'],
    ['content_block', 'type'],
    ['content_block', 'id'],
    ['content_block', 'name'],
    ['content_block', 'input'],
    ['content_block', 'text'],
    ['content_block', 'thinking'],
    ['content_block', 'data'],
  ],
  content_block_delta: [
    ['index'],
    ['delta'],
    ['delta', 'type'],
    ['delta', 'text'],
    ['delta', 'thinking'],
    ['delta', 'signature'],
    ['delta', 'partial_json'],
  ],
  content_block_stop: [['index']],
  message_delta: [
    ['delta'],
    ['delta', 'stop_reason'],
    ['usage'],
    ['usage', 'output_tokens'],
    ['usage', 'input_tokens'],
    ['usage', 'cache_read_input_tokens'],
  ],
  message_stop: [['type']],
  ping: [['type']],
};

const OPENAI_FIELDS = [
  ['id'],
  ['model'],
  ['created'],
  ['choices'],
  ['choices', 0],
  ['choices', 0, 'delta'],
  ['choices', 0, 'index'],
  ['choices', 0, 'finish_reason'],
  ['choices', 0, 'delta', 'content'],
  ['choices', 0, 'delta', 'reasoning_content'],
  ['choices', 0, 'delta', 'reasoning'],
  ['choices', 0, 'delta', 'role'],
  ['choices', 0, 'delta', 'tool_calls'],
  ['choices', 0, 'delta', 'tool_calls', 0],
  ['choices', 0, 'delta', 'tool_calls', 0, 'index'],
  ['choices', 0, 'delta', 'tool_calls', 0, 'id'],
  ['choices', 0, 'delta', 'tool_calls', 0, 'function'],
  ['choices', 0, 'delta', 'tool_calls', 0, 'function', 'name'],
  ['choices', 0, 'delta', 'tool_calls', 0, 'function', 'arguments'],
  ['usage'],
  ['usage', 'prompt_tokens'],
  ['usage', 'completion_tokens'],
  ['usage', 'total_tokens'],
  ['usage', 'prompt_tokens_details'],
  ['usage', 'prompt_tokens_details', 'cached_tokens'],
];

/** A value of another type than `current`. */
function oddValue(c, current) {
  const options = [
    c.between(-3, 70000),
    1.5,
    String(typeof current === 'number' ? current : c.between(0, 99)),
    'x',
    '',
    {},
    { text: 'obj' },
    null,
    [],
    ['a', 1],
    true,
    false,
  ];
  // A string as an array: `String(array)` gives back the text (its items
  // joined), while `for (const char of chunk)` walks the items.
  if (typeof current === 'string') options.push(current.toUpperCase(), 0, [current], [...current]);
  return c.pick(options.filter((v) => JSON.stringify(v) !== JSON.stringify(current)));
}

const exists = (obj, path) => {
  let o = obj;
  for (const k of path.slice(0, -1)) {
    if (o === null || typeof o !== 'object' || !(k in o)) return false;
    o = o[k];
  }
  return o !== null && typeof o === 'object';
};

/**
 * Changes one field of one frame's payload in place (or, rarely, the whole
 * payload); returns a short description of what changed.
 */
export function mutateOddType(c, provider, frames) {
  const candidates = frames.filter((f) => f.data !== null && typeof f.data === 'object' && !f.raw);
  if (!candidates.length) return undefined;
  const frame = c.pick(candidates);
  if (c.chance(0.08)) {
    frame.data = c.pick([null, [], 5, 'text', true]);
    return `${provider} payload is ${JSON.stringify(frame.data)}`;
  }
  const paths = (provider === 'anthropic' ? ANTHROPIC_FIELDS[frame.data.type] : OPENAI_FIELDS) ?? [['type']];
  const usable = paths.filter((p) => exists(frame.data, p));
  if (!usable.length) return undefined;
  const path = c.pick(usable);
  let o = frame.data;
  for (const k of path.slice(0, -1)) o = o[k];
  const last = path[path.length - 1];
  o[last] = oddValue(c, o[last]);
  return `${path.join('.')} = ${JSON.stringify(o[last])}`;
}
