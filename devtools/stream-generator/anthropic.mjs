// A plan spelled as Anthropic Messages stream events
// (message_start, content_block_start/delta/stop, message_delta, message_stop,
// ping), each `{event, data}` with the SSE event name and its JSON payload.
import { splitText } from './strings.mjs';

const STOP = {
  tool: 'tool_use',
  stop: 'end_turn',
  length: 'max_tokens',
  filter: 'refusal',
  none: null,
};
const ODD_STOPS = ['stop_sequence', 'pause_turn', 'END_TURN', 'tool_calls', 'weird', ''];

const ev = (data) => ({ event: data.type, data });

export function anthropicEvents(c, plan) {
  const out = [];
  const usage = plan.usage;
  out.push(
    ev({
      type: 'message_start',
      message: {
        id: `msg_${c.int(1e6).toString(36)}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage
          ? {
              input_tokens: usage.input,
              output_tokens: c.chance(0.5) ? 1 : 0,
              ...(usage.cached !== undefined ? { cache_read_input_tokens: usage.cached } : {}),
              ...(usage.cacheCreation !== undefined ? { cache_creation_input_tokens: usage.cacheCreation } : {}),
            }
          : { input_tokens: 0, output_tokens: 0 },
      },
    }),
  );
  plan.blocks.forEach((b, index) => {
    if (c.chance(0.1)) out.push(ev({ type: 'ping' }));
    if (b.kind === 'text') {
      out.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const text of splitText(c, b.text))
        out.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    } else if (b.kind === 'thinking') {
      if (c.chance(0.1)) {
        out.push(
          ev({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: b.text } }),
        );
      } else {
        out.push(
          ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        );
        for (const thinking of splitText(c, b.text))
          out.push(ev({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } }));
        if (b.signature)
          out.push(
            ev({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } }),
          );
      }
    } else {
      out.push(
        ev({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        }),
      );
      for (const partial_json of splitText(c, b.args, c.between(1, 6)))
        out.push(ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }));
    }
    out.push(ev({ type: 'content_block_stop', index }));
  });
  const stop = plan.finish === 'odd' ? c.pick(ODD_STOPS) : STOP[plan.finish];
  out.push(
    ev({
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: usage
        ? {
            output_tokens: usage.output,
            ...(c.chance(0.3) ? { input_tokens: usage.input } : {}),
            ...(c.chance(0.2) && usage.cached !== undefined ? { cache_read_input_tokens: usage.cached } : {}),
          }
        : { output_tokens: 0 },
    }),
  );
  if (c.chance(0.9)) out.push(ev({ type: 'message_stop' }));
  return out;
}
