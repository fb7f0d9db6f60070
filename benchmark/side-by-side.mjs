// Two builds of the package side by side in one process, alternating
// rounds, p10 µs, on the bench's streams in each form a host feeds: raw bytes
// (`pushBytes`, the launcher's path), SDK objects (`pushEvent` / `pushChunk`,
// Qwen with telemetry on: the objects are the streams' `data:` payloads
// parsed once, as the SDKs hand them over), and the ACP path
// (`consumeModelStream` over a tool-heavy stream's responses, with a
// `historyIds` set as the agent keeps one). For a before/after table of a
// change (BENCHMARKS.md):
//   node benchmark/side-by-side.mjs <before package dir> [after package dir = this one] [--only <part of a case's name>]
// (a package dir is a built checkout: its index.js and .node).
import { createRequire } from 'node:module';
import path from 'node:path';
import * as streams from './streams.mjs';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const only = argv.includes('--only') ? argv.splice(argv.indexOf('--only'), 2)[1] : undefined;
const [beforeDir, afterDir = path.join(import.meta.dirname, '..')] = argv;
if (!beforeDir) throw new Error('usage: node benchmark/side-by-side.mjs <before package dir> [after package dir]');
const before = require(path.resolve(beforeDir, 'index.js'));
const after = require(path.resolve(afterDir, 'index.js'));
const cases = {
  // [stream, converter class, options]
  'P1 Anthropic 100 KB': [streams.anthropicWriteFile(100 * 1024), 'AnthropicConverter', {}],
  'P1 Anthropic 1 MB': [streams.anthropicWriteFile(1024 * 1024), 'AnthropicConverter', {}],
  'P1 OpenAI 100 KB': [streams.openaiWriteFile(100 * 1024), 'OpenAIConverter', {}],
  'P1 OpenAI 100 KB, dropEmptyResponses': [
    streams.openaiWriteFile(100 * 1024),
    'OpenAIConverter',
    { dropEmptyResponses: true },
  ],
  'P1 OpenAI 1 MB': [streams.openaiWriteFile(1024 * 1024), 'OpenAIConverter', {}],
  'P1 OpenAI 1 MB, dropEmptyResponses': [
    streams.openaiWriteFile(1024 * 1024),
    'OpenAIConverter',
    { dropEmptyResponses: true },
  ],
  'P7 OpenAI tool-heavy': [streams.openaiToolHeavy(100 * 1024), 'OpenAIConverter', {}],
  'P7 Anthropic text-heavy': [streams.anthropicTextHeavy(33 * 1024), 'AnthropicConverter', {}],
  'P7 OpenAI text-heavy': [streams.openaiTextHeavy(33 * 1024), 'OpenAIConverter', {}],
};
/** The SDK objects of a stream: each `data:` payload but `[DONE]`, parsed. */
function objectsOf(st) {
  const text = Buffer.concat(st.reads.map((u8) => Buffer.from(u8))).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));
}
for (const [name, [st, cls, opts]] of Object.entries({ ...cases })) {
  if (!/^P1 .*100 KB$|^P7 /.test(name)) continue;
  cases[`${name}, SDK objects`] = [{ objects: objectsOf(st) }, cls, opts];
}
/** The responses of a stream, converted once by `api` (each side its own). */
const responsesOf = (api, st, cls) => {
  const c = new api[cls]();
  return [...st.reads.flatMap((u8) => c.pushBytes(u8)), ...c.end()];
};
const acpStream = streams.openaiToolHeavy(100 * 1024);
cases['ACP consumeModelStream, OpenAI tool-heavy'] = [{ acp: acpStream }, 'OpenAIConverter', {}];
const acpResponses = new Map();

let sink = 0;
const run = async (api, [st, cls, opts]) => {
  if (st.acp) {
    if (!acpResponses.has(api)) acpResponses.set(api, responsesOf(api, st.acp, cls));
    const responses = acpResponses.get(api);
    async function* events() {
      for (const value of responses) yield { type: 'chunk', value };
    }
    const send = () => {
      sink += 1;
    };
    const cards = new api.ToolCallCards();
    const { functionCalls } = await api.consumeModelStream(events(), { cards, send, historyIds: new Set() });
    sink += functionCalls.length;
    return;
  }
  const c = new api[cls](opts);
  if (st.objects) {
    const push = cls === 'AnthropicConverter' ? (o) => c.pushEvent(o) : (o) => [c.pushChunk(o)];
    for (const o of st.objects) for (const r of push(o)) sink += r.candidates?.[0]?.content?.parts?.length ?? 0;
  } else {
    for (const u8 of st.reads) for (const r of c.pushBytes(u8)) sink += r.candidates?.[0]?.content?.parts?.length ?? 0;
  }
  for (const r of c.end()) sink += 1;
};
console.log('| case | before p10 µs | after p10 µs | after ÷ before |\n|---|---:|---:|---:|');
for (const [name, c] of Object.entries(cases)) {
  if (only !== undefined && !name.includes(only)) continue;
  const n = name.includes('1 MB') ? 4 : 25;
  // Warm-up as in bench.mjs: both sides at least 30 runs and 1 s, so both
  // are measured with optimised code (a host converts thousands of streams).
  for (let i = 0, started = performance.now(); i < 30 || performance.now() - started < 1000; i++) {
    await run(before, c);
    await run(after, c);
  }
  const s = { before: [], after: [] };
  for (let round = 0; round < 12; round++) {
    for (const [k, api] of round % 2
      ? [
          ['after', after],
          ['before', before],
        ]
      : [
          ['before', before],
          ['after', after],
        ]) {
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await run(api, c);
        s[k].push(performance.now() - t);
      }
    }
  }
  const p10 = (xs) => xs.sort((a, b) => a - b)[Math.floor(0.1 * (xs.length - 1))] * 1e3;
  const b = p10(s.before),
    a = p10(s.after);
  console.log(`| ${name} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} |`);
}
if (sink < 0) console.log(sink);
