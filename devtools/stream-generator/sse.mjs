// Frames spelled as SSE text in the dialects real servers and proxies use:
// LF, CRLF or CR line ends; a space after the colon or none; comments,
// `id:` and `retry:` lines; data split over several `data:` lines; the
// event line before or after the data; extra blank lines; a BOM.
// The grammar is the WHATWG one the SDKs Qwen bundles decode
// (@anthropic-ai/sdk and openai, streaming.mjs: SSEDecoder, LineDecoder).
import { asciiJson } from './strings.mjs';

export function randomDialect(c) {
  return {
    eol: c.weighted([
      [6, '\n'],
      [2, '\r\n'],
      [1, '\r'],
    ]),
    space: c.weighted([
      [6, 'always'],
      [1, 'never'],
      [1, 'mixed'],
    ]),
    comments: c.weighted([
      [3, 0],
      [1, 0.2],
    ]),
    ids: c.weighted([
      [4, 0],
      [1, 0.3],
    ]),
    multiline: c.weighted([
      [4, 0],
      [1, 0.3],
    ]),
    ascii: c.chance(0.15),
    eventAfterData: c.chance(0.1),
    extraBlank: c.weighted([
      [5, 0],
      [1, 0.2],
    ]),
    bom: c.chance(0.03),
  };
}

/** The data text of a frame: its raw text, or its payload as JSON (pretty-printed when split over lines). */
function dataLines(c, frame, d) {
  if (frame.lines) return frame.lines;
  if (frame.raw !== undefined) return frame.raw.split(/\r\n|\r|\n/);
  if (!('data' in frame)) return [];
  if (c.chance(d.multiline)) return JSON.stringify(frame.data, null, 1).split('\n');
  return [d.ascii ? asciiJson(frame.data) : JSON.stringify(frame.data)];
}

/** One frame (`{event?, data? | raw? | lines?}`) as SSE text, with its blank line. */
export function sseFrame(c, frame, d) {
  const sep = () => (d.space === 'always' || (d.space === 'mixed' && c.chance(0.5)) ? ': ' : ':');
  const lines = dataLines(c, frame, d).map((l) => `data${sep()}${l}`);
  if (frame.event) {
    const line = `event${sep()}${frame.event}`;
    if (d.eventAfterData) lines.push(line);
    else lines.unshift(line);
  }
  if (c.chance(d.ids)) lines.splice(c.int(lines.length + 1), 0, `id: ${c.int(1000)}`);
  if (c.chance(d.ids)) lines.splice(c.int(lines.length + 1), 0, `retry: ${c.int(5000)}`);
  if (c.chance(d.comments))
    lines.splice(c.int(lines.length + 1), 0, c.pick([': keep-alive', ':', ': OPENROUTER PROCESSING']));
  const blank = d.eol.repeat(1 + (c.chance(d.extraBlank) ? c.between(1, 2) : 0));
  return lines.join(d.eol) + d.eol + blank;
}
