// One worker thread of the scaling case (benchmark/scaling.mjs): converts the
// P1 Anthropic stream over and over, on the native converter or on the peer
// (the pure-JS control), starting each timed run at the same instant as its
// siblings (a barrier in shared memory).
import { parentPort, workerData } from 'node:worker_threads';
import { createRequire } from 'node:module';
import * as streams from './streams.mjs';
import { loadPeer } from '../devtools/peer.mjs';

const require = createRequire(import.meta.url);
const { mode, bytes, barrier } = workerData;
// [0]: workers ready for the run; [1]: the run's generation, bumped by the main thread to start it.
const shared = new Int32Array(barrier);
const st = streams.anthropicWriteFile(bytes);
const expected = JSON.stringify(JSON.parse(st.finalArguments[0]));

let run;
if (mode === 'native') {
  const { AnthropicConverter } = require('..');
  run = (onResponse) => {
    const c = new AnthropicConverter({ model: 'bench-model' });
    for (const u8 of st.reads) for (const r of c.pushBytes(u8)) onResponse(r);
    for (const r of c.end()) onResponse(r);
  };
} else {
  const { Stream } = require('@anthropic-ai/sdk/core/streaming');
  const peer = await loadPeer({ model: 'bench-model' });
  run = (onResponse) =>
    peer.anthropic(Stream.fromSSEResponse(streams.responseOf(st.reads), new AbortController()), onResponse);
}

let sink = 0;
const touch = (r) => {
  sink += r?.candidates?.[0]?.content?.parts?.length ?? 0;
};

// Same output first: the worker must give back the streamed arguments.
let args;
await run((r) => {
  for (const p of r?.candidates?.[0]?.content?.parts ?? [])
    if (p.functionCall) args = JSON.stringify(p.functionCall.args);
});
if (args !== expected) throw new Error(`scaling worker (${mode}): the converted arguments differ from the stream's`);

parentPort.on('message', async ({ iterations, generation }) => {
  Atomics.add(shared, 0, 1);
  Atomics.notify(shared, 0);
  while (Atomics.load(shared, 1) < generation) Atomics.wait(shared, 1, generation - 1);
  for (let i = 0; i < iterations; i++) await run(touch);
  parentPort.postMessage({ done: generation, sink });
});
parentPort.postMessage({ loaded: true });
