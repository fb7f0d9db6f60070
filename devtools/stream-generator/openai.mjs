// A plan spelled as OpenAI chat.completion.chunk objects: a role chunk,
// content and reasoning deltas, tool calls (parallel ones with their
// argument deltas interleaved), a finish chunk, a usage chunk; each
// `{event: null, data}` for the SSE framing.
import { splitText } from './strings.mjs';

const FINISH = { tool: 'tool_calls', stop: 'stop', length: 'length', filter: 'content_filter', none: null };
// Spellings real OpenAI-compatible servers send that Qwen maps in some releases.
const ODD_FINISH = ['STOP', 'max_tokens', 'end_turn', 'Tool_Calls', 'function_call', '', 'eos'];

export function openaiChunks(c, plan) {
  const id = `chatcmpl-${c.int(1e6).toString(36)}`;
  const created = 1700000000 + c.int(1e6);
  const chunk = (choices, extra = {}) => ({
    event: null,
    data: { id, object: 'chat.completion.chunk', created, model: 'test-model', choices, ...extra },
  });
  const delta = (d, finish_reason = null) => chunk([{ index: 0, delta: d, finish_reason, logprobs: null }]);
  const out = [];
  if (c.chance(0.7)) out.push(delta({ role: 'assistant', content: c.chance(0.5) ? '' : null }));
  const reasoningField = c.chance(0.7) ? 'reasoning_content' : 'reasoning';
  let toolIndex = 0;
  let i = 0;
  const blocks = plan.blocks;
  while (i < blocks.length) {
    const b = blocks[i];
    if (b.kind === 'text' || b.kind === 'thinking') {
      const field = b.kind === 'text' ? 'content' : reasoningField;
      for (const piece of splitText(c, b.text)) out.push(delta({ [field]: piece }));
      i++;
      continue;
    }
    // A run of consecutive tool calls is sent in parallel: their argument deltas interleave.
    const run = [];
    while (i < blocks.length && blocks[i].kind === 'tool') run.push({ ...blocks[i++], index: toolIndex++ });
    const queues = run.map((t) => {
      const args = splitText(c, t.args, c.between(1, 5));
      const first = { index: t.index, id: t.id, type: 'function', function: { name: t.name, arguments: args[0] } };
      return [first, ...args.slice(1).map((a) => ({ index: t.index, function: { arguments: a } }))];
    });
    while (queues.some((q) => q.length)) {
      const live = queues.filter((q) => q.length);
      const batch = c.chance(0.2) ? live.map((q) => q.shift()) : [c.pick(live).shift()];
      out.push(delta({ tool_calls: batch }));
    }
  }
  const finish = plan.finish === 'odd' ? c.pick(ODD_FINISH) : FINISH[plan.finish];
  const usage = plan.usage && {
    prompt_tokens: plan.usage.input,
    completion_tokens: plan.usage.output,
    total_tokens: plan.usage.input + plan.usage.output,
    ...(plan.usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: plan.usage.cached } } : {}),
  };
  if (usage && c.chance(0.3)) {
    out.push(chunk([{ index: 0, delta: {}, finish_reason: finish, logprobs: null }], { usage }));
  } else {
    if (finish !== null || c.chance(0.5)) out.push(delta({}, finish));
    if (usage) out.push(chunk([], { usage }));
  }
  return out;
}
