// A seeded generator of provider streams as real providers and proxies send
// them: Anthropic Messages SSE and OpenAI chat.completion.chunk SSE, from a
// random plan (stream-generator/plan.mjs), in a random SSE dialect
// (stream-generator/sse.mjs), with odd field types
// (stream-generator/odd-types.mjs), faults (stream-generator/faults.mjs),
// and write pieces cut at any byte (stream-generator/bytes.mjs).
//
// A case is plain JSON, so it is saved, minimised and replayed as it is:
//   {seed, provider, status, contentType, frames: [text | {latin1}], cuts: [byte offsets], end: 'close'|'drop', notes}
// `end: 'drop'`: the connection is dropped after the last piece instead of
// the response ending.
import { chooser } from './stream-generator/random.mjs';
import { randomPlan } from './stream-generator/plan.mjs';
import { anthropicEvents } from './stream-generator/anthropic.mjs';
import { openaiChunks } from './stream-generator/openai.mjs';
import { mutateOddType } from './stream-generator/odd-types.mjs';
import { randomDialect, sseFrame } from './stream-generator/sse.mjs';
import { malformedFrame, inBandError, strayFrame, proxyPage } from './stream-generator/faults.mjs';
import { caseBody, truncateFrames } from './stream-generator/bytes.mjs';

export { caseBody, casePieces } from './stream-generator/bytes.mjs';

const ANTHROPIC_EVENTS = [
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
];

const insertAt = (c, list, item) => list.splice(c.int(list.length + 1), 0, item);

/** The structured frames of a stream: the plan spelled, then the faults. */
function structuredFrames(c, provider, notes) {
  const frames = provider === 'anthropic' ? anthropicEvents(c, randomPlan(c)) : openaiChunks(c, randomPlan(c));
  if (provider === 'openai' && c.chance(0.85)) frames.push({ raw: '[DONE]' });
  if (c.chance(0.3))
    for (let i = 0, n = c.between(1, 2); i < n; i++) {
      const what = mutateOddType(c, provider, frames);
      if (what) notes.push(`odd type: ${what}`);
    }
  if (provider === 'anthropic' && c.chance(0.05)) {
    const f = c.pick(frames);
    f.event = c.pick([...ANTHROPIC_EVENTS, null]);
    notes.push(`event name ${f.event} on ${f.data?.type}`);
  }
  if (c.chance(0.1)) {
    insertAt(c, frames, strayFrame(c, provider));
    notes.push('stray frame');
  }
  if (c.chance(0.06)) {
    insertAt(c, frames, malformedFrame(c, provider));
    notes.push('malformed frame');
  }
  if (c.chance(0.12)) {
    const at = c.int(frames.length + 1);
    frames.splice(at, 0, inBandError(c, provider));
    if (c.chance(0.7)) frames.length = at + 1;
    notes.push('in-band error');
  }
  return frames;
}

/** The case of `seed` (provider chosen by the seed unless given). */
export function generateCase(seed, provider) {
  const c = chooser(seed);
  provider ??= c.pick(['anthropic', 'openai']);
  const notes = [];
  let status = 200;
  let contentType = 'text/event-stream';
  let frames;
  if (c.chance(0.03)) {
    ({ status, contentType, frames } = proxyPage(c));
    notes.push(`proxy page ${status} ${contentType}`);
  } else {
    const d = randomDialect(c);
    frames = structuredFrames(c, provider, notes).map((f) => sseFrame(c, f, d));
    if (d.bom) frames[0] = '\ufeff' + frames[0];
    if (c.chance(0.02)) {
      const i = c.int(frames.length);
      const bytes = Buffer.from(frames[i], 'utf8').toString('latin1');
      const at = c.int(bytes.length);
      frames[i] = {
        latin1: bytes.slice(0, at) + c.pick(['\xff', '\xc3', '\xed\xa0\x80', '\xf0\x9f']) + bytes.slice(at),
      };
      notes.push('invalid UTF-8');
    }
  }
  const length = caseBody({ frames }).length;
  if (c.chance(0.12) && length > 1) {
    frames = truncateFrames(frames, c.between(1, length - 1));
    notes.push('ends mid-frame');
  }
  const end = c.chance(0.15) ? 'drop' : 'close';
  const total = caseBody({ frames }).length;
  const cutCount = c.weighted([
    [3, 0],
    [4, c.between(1, 4)],
    [2, c.between(5, 24)],
  ]);
  const cuts = [];
  for (let i = 0; i < cutCount && total > 1; i++) cuts.push(c.between(1, total - 1));
  return { seed, provider, status, contentType, frames, cuts: cuts.sort((a, b) => a - b), end, notes };
}
