// The peer fed five ways (is the bench's peer set up at its
// fastest?): the same reads handed to the SDK decoder through different
// Response bodies, timed in one process in alternating rounds.
//   node benchmark/peer-setups.mjs [anthropic|openai] [contentKB=100]
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import * as streams from './streams.mjs';
import { loadPeer } from '../devtools/peer.mjs';
import { iterableResponseOf } from '../devtools/peer-adapters.mjs';

const require = createRequire(import.meta.url);
const { Stream: AnthropicSdkStream } = require('@anthropic-ai/sdk/core/streaming');
const { Stream: OpenAISdkStream } = require('openai/core/streaming');
const peer = await loadPeer({ model: 'bench-model' });
const [provider = 'anthropic', kbArg = '100'] = process.argv.slice(2);
const st = (provider === 'anthropic' ? streams.anthropicWriteFile : streams.openaiWriteFile)(Number(kbArg) * 1024);
const Sdk = provider === 'anthropic' ? AnthropicSdkStream : OpenAISdkStream;
const headers = { 'content-type': 'text/event-stream' };

const setups = {
  'ReadableStream, one read per pull (former)': () => streams.responseOf(st.reads),
  'ReadableStream, all reads enqueued in start': () =>
    new Response(
      new ReadableStream({
        start(c) {
          for (const r of st.reads) c.enqueue(r);
          c.close();
        },
      }),
      { headers },
    ),
  "byte stream (type 'bytes', a copy per read)": () => {
    let i = 0;
    return new Response(
      new ReadableStream({
        type: 'bytes',
        pull(c) {
          if (i < st.reads.length) c.enqueue(st.reads[i++].slice());
          else c.close();
        },
      }),
      { headers },
    );
  },
  'Readable.toWeb(Readable.from(reads))': () => new Response(Readable.toWeb(Readable.from(st.reads)), { headers }),
  'async-iterable body (the bench)': () => iterableResponseOf(st.reads),
};
let sink = 0;
const run = (name) =>
  peer[provider](Sdk.fromSSEResponse(setups[name](), new AbortController()), (r) => {
    sink += r?.candidates?.[0]?.content?.parts?.length ?? 0;
  });
const names = Object.keys(setups);
for (const n of names) for (let i = 0; i < 15; i++) await run(n);
const samples = new Map(names.map((n) => [n, []]));
for (let round = 0; round < 12; round++) {
  for (const n of round % 2 ? [...names].reverse() : names) {
    for (let i = 0; i < 8; i++) {
      const t = performance.now();
      await run(n);
      samples.get(n).push(performance.now() - t);
    }
  }
}
const at = (xs, p) => xs[Math.floor(p * (xs.length - 1))].toFixed(2);
console.log(`${provider} write_file ${kbArg} KB, ${st.reads.length} reads\n`);
console.log('| body | p10 ms | median ms | p90 ms |\n|---|---:|---:|---:|');
for (const n of names) {
  const xs = samples.get(n).sort((a, b) => a - b);
  console.log(`| ${n} | ${at(xs, 0.1)} | ${at(xs, 0.5)} | ${at(xs, 0.9)} |`);
}
if (sink < 0) console.log(sink);
