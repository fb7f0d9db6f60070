'use strict';
// Bounded ACP frames. The official ACP SDKs refuse a line over 32 MiB and drop
// the connection, so every frame the agent sends stays well below that: long
// texts (diffs, tool output) and rawInput are cut to a budget measured in JSON
// bytes (a control character costs six), at a character boundary (never
// inside a UTF-8 sequence or a surrogate pair), and the cut is marked under
// `_meta.toolcallStream`.

/** Default bound of one outgoing ACP line (JSON-RPC message), in bytes. */
const DEFAULT_MAX_FRAME_BYTES = 8 << 20;

/** Meta key under which the agent marks what it cut. */
const META_KEY = 'toolcallStream';

/** Bytes `ch` (one code point) costs inside a JSON string, as UTF-8. */
function jsonCost(cp) {
  if (cp === 0x22 || cp === 0x5c || cp === 0x08 || cp === 0x0c || cp === 0x0a || cp === 0x0d || cp === 0x09) return 2;
  if (cp < 0x20) return 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // a lone surrogate is escaped
  if (cp < 0x10000) return 3;
  return 4;
}

/** JSON-encoded UTF-8 size of a string, quotes excluded. */
function jsonTextBytes(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i);
    if (cp > 0xffff) i++;
    n += jsonCost(cp);
  }
  return n;
}

/**
 * `s` cut so its JSON encoding takes at most `maxBytes` bytes, at a code
 * point boundary. Returns {text, truncated, bytes} (bytes: the JSON size of
 * the whole `s`, computed only as far as needed when it fits).
 */
function truncateText(s, maxBytes) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i);
    const cost = jsonCost(cp);
    if (n + cost > maxBytes) return { text: s.slice(0, i), truncated: true, bytes: n + jsonTextBytes(s.slice(i)) };
    n += cost;
    if (cp > 0xffff) i++;
  }
  return { text: s, truncated: false, bytes: n };
}

/**
 * A copy of `args` whose JSON takes at most about `maxBytes`: string values
 * are cut (each to an equal share of what is left), deeper values past the
 * budget are dropped. Returns {rawInput, truncated, bytes}.
 */
function boundRawInput(args, maxBytes) {
  const json = JSON.stringify(args);
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return { rawInput: args, truncated: false, bytes };
  let budget = maxBytes;
  const cut = (value) => {
    if (typeof value === 'string') {
      const { text } = truncateText(value, Math.max(0, Math.min(budget, Math.floor(maxBytes / 2))));
      budget -= jsonTextBytes(text) + 2;
      return text;
    }
    if (value === null || typeof value !== 'object') {
      budget -= String(value).length;
      return value;
    }
    if (Array.isArray(value)) {
      const out = [];
      for (const v of value) {
        if (budget <= 0) break;
        out.push(cut(v));
      }
      return out;
    }
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      if (budget <= 0) break;
      budget -= Buffer.byteLength(k) + 4;
      out[k] = cut(v);
    }
    return out;
  };
  return { rawInput: cut(args), truncated: true, bytes };
}

/** At most this many characters of a tool name in the agent's own messages, as in the library's card frames. */
const SHOWN_NAME_CHARS = 120;

/** C0 and C1 controls and bidirectional formatting characters: a message shows none of them. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A tool name as the agent's messages (a failed card's text, a note to the
 * user) show it. The name is the model's choice: a name longer than any
 * real tool's is cut to its first characters and an ellipsis, as the
 * library's card frames cut it (core/src/acp/bounded_text.rs), and it
 * shows no control or bidirectional character.
 */
function shownToolName(name) {
  const s = String(name);
  let end = 0;
  for (let count = 0; end < s.length; count++) {
    if (count === SHOWN_NAME_CHARS - 1) {
      const rest = s.codePointAt(end) > 0xffff ? 2 : 1;
      if (end + rest < s.length) return `${s.slice(0, end).replace(UNPRINTABLE, '')}…`;
    }
    end += s.codePointAt(end) > 0xffff ? 2 : 1;
  }
  return s.replace(UNPRINTABLE, '');
}

/** The frame with `meta` merged into `_meta.toolcallStream`. */
function withMeta(frame, meta) {
  if (!frame) return frame;
  return { ...frame, _meta: { ...frame._meta, [META_KEY]: { ...frame._meta?.[META_KEY], ...meta } } };
}

/** Bytes of the `session/update` JSON-RPC line that carries `update`. */
function updateLineBytes(sessionId, update) {
  return (
    Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } })) + 1
  );
}

module.exports = {
  DEFAULT_MAX_FRAME_BYTES,
  META_KEY,
  truncateText,
  jsonTextBytes,
  boundRawInput,
  withMeta,
  updateLineBytes,
  shownToolName,
};
