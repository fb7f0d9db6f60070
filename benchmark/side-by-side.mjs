// Two builds of the package side by side in one process: the public
// pushBytes path on the bench's streams, alternating rounds, p10 µs. For a
// before/after table of a change (BENCHMARKS.md):
//   node benchmark/side-by-side.mjs <before package dir> [after package dir = this one]
// (a package dir is a built checkout: its index.js and .node).
import { createRequire } from 'node:module';
import path from 'node:path';
import * as streams from './streams.mjs';

const require = createRequire(import.meta.url);
const [beforeDir, afterDir = path.join(import.meta.dirname, '..')] = process.argv.slice(2);
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
let sink = 0;
const run = (api, [st, cls, opts]) => {
  const c = new api[cls](opts);
  for (const u8 of st.reads) for (const r of c.pushBytes(u8)) sink += r.candidates?.[0]?.content?.parts?.length ?? 0;
  for (const r of c.end()) sink += 1;
};
console.log('| case | before p10 µs | after p10 µs | after ÷ before |\n|---|---:|---:|---:|');
for (const [name, c] of Object.entries(cases)) {
  const n = name.includes('1 MB') ? 4 : 25;
  for (let i = 0; i < 30; i++) {
    run(before, c);
    run(after, c);
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
        run(api, c);
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
