// One side of benchmark/side-by-side.mjs: `side(dir)` loads one build of the
// package and converts the cases' streams with it. The main script imports
// this module once per side, under its own URL (`?before`, `?after`), so
// that each side runs its own copy of this code: call sites that saw only
// their own build's classes, as in a host that loads one build, where one
// shared copy would see both builds' and optimise for the mix.
import { createRequire } from 'node:module';
import path from 'node:path';
import * as streams from './streams.mjs';

/** Each case: () => [stream, converter class, options]. */
const BYTE_CASES = {
  'P1 Anthropic 100 KB': () => [streams.anthropicWriteFile(100 * 1024), 'AnthropicConverter', {}],
  'P1 Anthropic 1 MB': () => [streams.anthropicWriteFile(1024 * 1024), 'AnthropicConverter', {}],
  'P1 OpenAI 100 KB': () => [streams.openaiWriteFile(100 * 1024), 'OpenAIConverter', {}],
  'P1 OpenAI 100 KB, dropEmptyResponses': () => [
    streams.openaiWriteFile(100 * 1024),
    'OpenAIConverter',
    { dropEmptyResponses: true },
  ],
  'P1 OpenAI 1 MB': () => [streams.openaiWriteFile(1024 * 1024), 'OpenAIConverter', {}],
  'P1 OpenAI 1 MB, dropEmptyResponses': () => [
    streams.openaiWriteFile(1024 * 1024),
    'OpenAIConverter',
    { dropEmptyResponses: true },
  ],
  'P7 OpenAI tool-heavy': () => [streams.openaiToolHeavy(100 * 1024), 'OpenAIConverter', {}],
  'P7 Anthropic text-heavy': () => [streams.anthropicTextHeavy(33 * 1024), 'AnthropicConverter', {}],
  'P7 OpenAI text-heavy': () => [streams.openaiTextHeavy(33 * 1024), 'OpenAIConverter', {}],
};

/** The SDK objects of a stream: each `data:` payload but `[DONE]`, parsed. */
function objectsOf(st) {
  const text = Buffer.concat(st.reads.map((u8) => Buffer.from(u8))).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));
}

const cases = { ...BYTE_CASES };
for (const [name, make] of Object.entries(BYTE_CASES)) {
  if (!/^P1 .*100 KB$|^P7 /.test(name)) continue;
  cases[`${name}, SDK objects`] = () => {
    const [st, cls, opts] = make();
    return [{ objects: objectsOf(st) }, cls, opts];
  };
}
cases['ACP consumeModelStream, OpenAI tool-heavy'] = () => [
  { acp: streams.openaiToolHeavy(100 * 1024) },
  'OpenAIConverter',
  {},
];

/** The cases' names, in the table's order. */
export const CASES = Object.keys(cases);

/** Converts with the package in `dir`: `run(name, n, warmUpMs)` → the n streams' durations (ms), after at least warmUpMs of warm-up. */
export function side(dir) {
  const require = createRequire(import.meta.url);
  const api = require(path.join(dir, 'index.js'));
  const made = new Map();
  const caseOf = (name) => {
    if (!made.has(name)) {
      const c = cases[name]();
      // The ACP loop's responses: the stream converted once, by this build.
      if (c[0].acp) {
        const conv = new api[c[1]]();
        c[0].responses = [...c[0].acp.reads.flatMap((u8) => conv.pushBytes(u8)), ...conv.end()];
      }
      made.set(name, c);
    }
    return made.get(name);
  };

  let sink = 0;
  const run = async ([st, cls, opts]) => {
    if (st.responses) {
      async function* events() {
        for (const value of st.responses) yield { type: 'chunk', value };
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
      if (cls === 'AnthropicConverter') {
        for (const o of st.objects)
          for (const r of c.pushEvent(o)) sink += r.candidates?.[0]?.content?.parts?.length ?? 0;
      } else {
        for (const o of st.objects) sink += c.pushChunk(o).candidates?.[0]?.content?.parts?.length ?? 0;
      }
    } else {
      for (const u8 of st.reads)
        for (const r of c.pushBytes(u8)) sink += r.candidates?.[0]?.content?.parts?.length ?? 0;
    }
    for (const r of c.end()) sink += 1;
  };

  return {
    async run(name, n, warmUpMs = 0) {
      const c = caseOf(name);
      for (let i = 0, started = performance.now(); i < n || performance.now() - started < warmUpMs; i++) await run(c);
      const durations = [];
      if (!warmUpMs) {
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          await run(c);
          durations.push(performance.now() - t);
        }
      }
      if (sink < 0) console.log(sink);
      return durations;
    },
  };
}
