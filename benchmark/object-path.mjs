// What the object path (lib/object-path.js) buys on SDK objects: the same
// SDK-decoded event / chunk objects converted with `pushEvent` / `pushChunk`,
// every object-path predicate on, and every one off (the test-only switch
// TOOLCALL_STREAM_OBJECT_PATH_OFF, read when the module loads, so each side
// runs in a process of its own; the processes alternate). Each process also
// times the SDK's own decoding of the same bytes (what a host paid before it
// had the objects) and the byte path (`pushBytes`, which the switch must not
// touch). Medians of the processes' medians, ms per stream. See BENCHMARKS.md.
//
//   node benchmark/object-path.mjs [processes per side = 5]
import os from 'node:os';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as streams from './streams.mjs';
import { iterableResponseOf } from '../devtools/peer-adapters.mjs';

const require = createRequire(import.meta.url);
const OFF = 'anthropicGather,anthropicText,anthropicStopGathered,openaiText,openaiGather';
const CASES = [
  ['Anthropic write_file 100 KB', 'anthropic', () => streams.anthropicWriteFile(100 * 1024)],
  ['Anthropic write_file 1 MB', 'anthropic', () => streams.anthropicWriteFile(1024 * 1024)],
  ['Anthropic 2000 text deltas + thinking', 'anthropic', () => streams.anthropicText(2000)],
  ['Anthropic 5000 text deltas + thinking', 'anthropic', () => streams.anthropicText(5000)],
  ['OpenAI write_file 100 KB', 'openai', () => streams.openaiWriteFile(100 * 1024)],
  ['OpenAI write_file 1 MB', 'openai', () => streams.openaiWriteFile(1024 * 1024)],
  ['OpenAI 2000 text deltas + reasoning', 'openai', () => streams.openaiText(2000)],
  ['OpenAI 5000 text deltas + reasoning', 'openai', () => streams.openaiText(5000)],
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv[2] === '--child') await child();
else parent(Number(process.argv[2] ?? 5));

/** One process: every case, its three timings interleaved, after a warm-up. */
async function child() {
  const api = require('..');
  const { Stream: AnthropicSdkStream } = require('@anthropic-ai/sdk/core/streaming');
  const { Stream: OpenAISdkStream } = require('openai/core/streaming');
  const decodeAll = async (provider, reads) => {
    const out = [];
    const stream = (provider === 'anthropic' ? AnthropicSdkStream : OpenAISdkStream).fromSSEResponse(
      iterableResponseOf(reads),
      new AbortController(),
    );
    for await (const item of stream) out.push(item);
    return out;
  };
  let sink = 0;
  const touch = (out) => {
    if (out == null) return;
    for (const r of Array.isArray(out) ? out : [out]) sink += r?.candidates?.[0]?.content?.parts?.length ?? 0;
  };
  const converter = (provider) =>
    provider === 'anthropic' ? new api.AnthropicConverter({ model: 'm' }) : new api.OpenAIConverter({ model: 'm' });
  const objects = (provider, items) => {
    const c = converter(provider);
    if (provider === 'anthropic') for (const event of items) touch(c.pushEvent(event));
    else for (const chunk of items) touch(c.pushChunk(chunk));
    touch(c.end());
  };
  const bytes = (provider, reads) => {
    const c = converter(provider);
    for (const u8 of reads) touch(c.pushBytes(u8));
    touch(c.end());
  };
  const out = {};
  for (const [name, provider, make] of CASES) {
    const st = make();
    const items = await decodeAll(provider, st.reads);
    const large = name.includes('1 MB') || name.includes('5000');
    for (let i = 0; i < (large ? 5 : 20); i++) {
      objects(provider, items);
      bytes(provider, st.reads);
      await decodeAll(provider, st.reads);
    }
    const s = { objects: [], bytes: [], sdk: [] };
    for (let i = 0; i < (large ? 9 : 31); i++) {
      let t = performance.now();
      objects(provider, items);
      s.objects.push(performance.now() - t);
      t = performance.now();
      bytes(provider, st.reads);
      s.bytes.push(performance.now() - t);
      t = performance.now();
      await decodeAll(provider, st.reads);
      s.sdk.push(performance.now() - t);
    }
    out[name] = { objects: median(s.objects), bytes: median(s.bytes), sdk: median(s.sdk), items: items.length };
  }
  process.stdout.write(JSON.stringify(out) + (sink < 0 ? ' ' : '') + '\n');
}

/** Alternates on / off processes, then the table. */
function parent(perSide) {
  const self = fileURLToPath(import.meta.url);
  const runs = { on: [], off: [] };
  const loads = [os.loadavg()[0]];
  for (let round = 0; round < perSide; round++) {
    for (const side of round % 2 ? ['off', 'on'] : ['on', 'off']) {
      const env = { ...process.env };
      delete env.TOOLCALL_STREAM_OBJECT_PATH_OFF;
      if (side === 'off') env.TOOLCALL_STREAM_OBJECT_PATH_OFF = OFF;
      runs[side].push(JSON.parse(execFileSync(process.execPath, [self, '--child'], { env, encoding: 'utf8' })));
      loads.push(os.loadavg()[0]);
    }
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  console.log(
    `${cpu}, ${os.cpus().length} cores, Node ${process.version}; ${perSide} processes per side, alternating;`,
  );
  console.log(`load average (1 min) ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}; ms per stream`);
  console.log('');
  console.log(
    '| stream | SDK objects | SDK decoding ms | objects, object path on ms | off ms | saved ms | saved ÷ SDK decoding | bytes on ms | bytes off ms |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name] of CASES) {
    const of = (side, key) => median(runs[side].map((run) => run[name][key]));
    const sdk = median([...runs.on, ...runs.off].map((run) => run[name].sdk));
    const on = of('on', 'objects');
    const off = of('off', 'objects');
    const cells = [runs.on[0][name].items, sdk.toFixed(2), on.toFixed(2), off.toFixed(2), (off - on).toFixed(2)];
    cells.push(
      `${((100 * (off - on)) / sdk).toFixed(0)}%`,
      of('on', 'bytes').toFixed(2),
      of('off', 'bytes').toFixed(2),
    );
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}
