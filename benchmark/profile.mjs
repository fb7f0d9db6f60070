// Where the time goes, JS side: samples one path with the V8 CPU profiler and
// prints self time grouped by where the code lives, then the top functions.
//   node benchmark/profile.mjs [peer|native] [anthropic|openai] [contentKB] [iterations]
import inspector from 'node:inspector/promises';
import { createRequire } from 'node:module';
import * as streams from './streams.mjs';
import { loadPeer } from '../devtools/peer.mjs';

const require = createRequire(import.meta.url);
const [side = 'peer', provider = 'anthropic', kbArg = '100', itArg = '40'] = process.argv.slice(2);
const st = (provider === 'anthropic' ? streams.anthropicWriteFile : streams.openaiWriteFile)(Number(kbArg) * 1024);
const iterations = Number(itArg);

let run;
if (side === 'peer') {
  const peer = await loadPeer();
  const { Stream } = require(provider === 'anthropic' ? '@anthropic-ai/sdk/core/streaming' : 'openai/core/streaming');
  run = () => peer[provider](Stream.fromSSEResponse(streams.responseOf(st.reads), new AbortController()), () => {});
} else {
  const native = require('..');
  const Converter = provider === 'anthropic' ? native.AnthropicConverter : native.OpenAIConverter;
  run = () => {
    const c = new Converter({ model: 'bench-model' });
    for (const u8 of st.reads) c.pushBytes(u8);
    c.end();
  };
}
for (let i = 0; i < 5; i++) await run(); // warm up

const session = new inspector.Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
for (let i = 0; i < iterations; i++) await run();
const { profile } = await session.post('Profiler.stop');

function group(url, name) {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)' || name === '(idle)') return 'V8/native (program)';
  if (name === 'parse' && !url) return 'JSON.parse';
  if (url.includes('@anthropic-ai/sdk') || url.includes('/openai/')) return 'SDK SSE decoder (node_modules)';
  if (url.includes('qwen-oracle') || url.includes('qwen-code')) return 'Qwen Code converter (peer)';
  if (url.startsWith('node:internal/webstreams') || url.includes('undici') || url.includes('internal/deps'))
    return 'fetch Response / web streams';
  if (url.startsWith('node:')) return 'other Node internals';
  if (url.includes('/benchmark/')) return 'bench driver';
  if (!url) return `builtin: ${name || '(anonymous)'}`;
  return url.replace(/^.*\/node_modules\//, '');
}
const dt = new Map(profile.nodes.map((n) => [n.id, 0]));
for (let i = 0; i < profile.samples.length; i++)
  dt.set(profile.samples[i], dt.get(profile.samples[i]) + (profile.timeDeltas[i] ?? 0));
const byGroup = new Map();
const byFn = new Map();
let total = 0;
for (const n of profile.nodes) {
  const t = dt.get(n.id);
  if (!t || n.callFrame.functionName === '(idle)') continue;
  total += t;
  const g = group(n.callFrame.url, n.callFrame.functionName);
  byGroup.set(g, (byGroup.get(g) ?? 0) + t);
  const f = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
  byFn.set(f, (byFn.get(f) ?? 0) + t);
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
console.log(
  `${side} ${provider} write_file ${kbArg} KB × ${iterations}: ${(total / 1000 / iterations).toFixed(2)} ms/stream sampled`,
);
for (const [g, t] of [...byGroup].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(t)}  ${g}`);
console.log('  top functions (self):');
for (const [f, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${pct(t)}  ${f}`);
