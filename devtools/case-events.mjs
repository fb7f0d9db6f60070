// A generated case's body read as the SDKs Qwen bundles read it
// (@anthropic-ai/sdk and openai, streaming.mjs: LineDecoder, SSEDecoder):
// lines split at CR, LF or CRLF, a blank line dispatches, `data` lines
// joined with LF. Used to say what a case holds, not to convert it.
import { caseBody } from './stream-generator.mjs';

/** `[{event, lines, data, json}]`: `json` is the parsed data, or undefined when it is not JSON. */
export function caseEvents(kase) {
  // A leading BOM is not part of the first field name (the SSE grammar; the decoders skip it).
  const text = caseBody(kase)
    .toString('utf8')
    .replace(/^\ufeff/, '');
  const out = [];
  let event = null;
  let lines = [];
  const dispatch = () => {
    if (event === null && !lines.length) return;
    const data = lines.join('\n');
    let json;
    try {
      json = JSON.parse(data);
    } catch {
      json = undefined;
    }
    out.push({ event, lines, data, json });
    event = null;
    lines = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i === -1 ? line : line.slice(0, i);
    let value = i === -1 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') lines.push(value);
  }
  return out;
}

/** Every JSON payload of the case, nested values included: `visit(value, path)` for each. */
export function walkPayloads(kase, visit) {
  const walk = (v, path) => {
    visit(v, path);
    if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  for (const e of caseEvents(kase)) if (e.json !== undefined) walk(e.json, []);
}
