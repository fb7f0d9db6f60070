// Where the native byte path's time goes, JS side: the same stream converted
// through the public API, through the bare native calls, and the batches
// those calls return decoded alone, in alternating rounds (p10 and median).
// The core alone (no N-API) is `cargo bench --manifest-path
// benchmark/rust/Cargo.toml`; BENCHMARKS.md puts the two together.
//   node benchmark/layers.mjs [anthropic|openai] [tool|tool-heavy|text-heavy] [contentKB=100]
import { createRequire } from 'node:module';
import * as streams from './streams.mjs';

const require = createRequire(import.meta.url);
const { native } = require('../lib/native.js');
const { NativeState, decode } = require('../lib/wire.js');
const api = require('..');

const [provider = 'anthropic', kind = 'tool', kbArg] = process.argv.slice(2);
const kb = Number(kbArg ?? (kind === 'text-heavy' ? 33 : 100));
const make = {
  anthropic: {
    tool: streams.anthropicWriteFile,
    'tool-heavy': streams.anthropicToolHeavy,
    'text-heavy': streams.anthropicTextHeavy,
  },
  openai: {
    tool: streams.openaiWriteFile,
    'tool-heavy': streams.openaiToolHeavy,
    'text-heavy': streams.openaiTextHeavy,
  },
}[provider]?.[kind];
if (!make) throw new Error(`layers: unknown stream ${provider} ${kind}`);
const st = make(kb * 1024);
const Converter = provider === 'anthropic' ? api.AnthropicConverter : api.OpenAIConverter;
let sink = 0;
const touch = (r) => {
  sink += r?.candidates?.[0]?.content?.parts?.length ?? 0;
};
const each = (out) => {
  for (const r of out ?? []) touch(r);
};
const ABSENT = Buffer.from([0, 0]);
const buffers = st.reads.map((u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength));
const payloads = st.finalArguments ?? [JSON.stringify(st.finalText)];

// The batches one stream's calls return, to time their decoding alone.
const first = new native.ConverterHandle(provider, undefined, undefined);
const batches = [...st.reads.map((u8) => native.converterPushBytes(first.slot, u8)), native.converterEnd(first.slot)];
// A batch that is the state word alone (a number) decodes to nothing; one
// with lifted string arguments is an array (its text first).
const texts = batches.filter((b) => typeof b !== 'number');
/** What a native answer is, reached without copying it: a length. */
const size = (b) => (Array.isArray(b) ? b[0].length + b.length : String(b).length);

const tasks = {
  'public API (pushBytes + end, responses reached)': () => {
    const c = new Converter({ model: 'bench-model' });
    for (const u8 of st.reads) each(c.pushBytes(u8));
    each(c.end());
  },
  ...(provider === 'openai' && {
    // What Qwen's pipeline (the peer) yields from: the empty responses are
    // never built (OpenAIConverter's dropEmptyResponses).
    'public API, dropEmptyResponses': () => {
      const c = new Converter({ dropEmptyResponses: true });
      for (const u8 of st.reads) each(c.pushBytes(u8));
      each(c.end());
    },
    'native calls alone, dropEmptyResponses': () => {
      const h = new native.ConverterHandle(
        provider,
        undefined,
        undefined,
        JSON.stringify({ dropEmptyResponses: true }),
      );
      let n = 0;
      for (const u8 of st.reads) n += size(native.converterPushBytes(h.slot, u8));
      return n + size(native.converterEnd(h.slot));
    },
  }),
  'native calls alone (core + batch text + N-API + JS string)': () => {
    const h = new native.ConverterHandle(provider, undefined, undefined);
    let n = 0;
    for (const u8 of st.reads) n += size(native.converterPushBytes(h.slot, u8));
    return n + size(native.converterEnd(h.slot));
  },
  'decode (lib/wire.js) of those batches (JSON.parse + response objects)': () => {
    for (const b of texts) each(decode(new NativeState(first.slot, 0), b));
  },
  'JSON.parse of those batches alone': () => {
    for (const b of texts) JSON.parse(Array.isArray(b) ? b[0] : b);
  },
  'floor: memchr pass': () => {
    let n = 0;
    for (const b of buffers) n += b.indexOf(ABSENT);
    return n;
  },
  'floor: JSON.parse of the payload': () => {
    for (const p of payloads) JSON.parse(p);
  },
};
const names = Object.keys(tasks);
for (const n of names) for (let i = 0; i < 30; i++) tasks[n]();
const samples = new Map(names.map((n) => [n, []]));
for (let round = 0; round < 12; round++) {
  for (const n of round % 2 ? [...names].reverse() : names) {
    for (let i = 0; i < 25; i++) {
      const t = performance.now();
      tasks[n]();
      samples.get(n).push(performance.now() - t);
    }
  }
}
const at = (xs, p) => xs[Math.floor(p * (xs.length - 1))];
const chars = texts.reduce((n, b) => n + (Array.isArray(b) ? b[0].length : b.length), 0);
const lifted = texts.reduce((n, b) => n + (Array.isArray(b) ? b.slice(1).reduce((m, s) => m + s.length, 0) : 0), 0);
console.log(
  `${provider} ${kind} ${kb} KB: ${st.reads.length} reads of ${streams.READ_SIZE} B, ${st.events} events, ` +
    `${texts.length} batches, ${Math.round(chars / 1024)} K chars of batch text, ` +
    `${Math.round(lifted / 1024)} K chars of lifted strings\n`,
);
console.log('| layer | p10 µs | median µs |\n|---|---:|---:|');
for (const n of names) {
  const xs = samples.get(n).sort((a, b) => a - b);
  console.log(`| ${n} | ${(at(xs, 0.1) * 1e3).toFixed(1)} | ${(at(xs, 0.5) * 1e3).toFixed(1)} |`);
}
if (sink < 0) console.log(sink);
