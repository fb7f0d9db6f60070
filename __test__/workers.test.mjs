// Worker threads: converters convert in parallel, each worker's state is its
// own (a slot number from elsewhere addresses nothing), terminated workers
// free what they held, and liveHandles() counts the whole process (on the
// WebAssembly build, where each thread has an instance of its own, the
// calling thread: src/handles.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { anthropicWriteFile, expectedArguments } from './helpers/worker-stream.mjs';

const require = createRequire(import.meta.url);
const { AnthropicConverter, liveHandles } = require('../index.js');
const { native, bindingKind } = require('../lib/native.js');
const { NativeState, decode } = require('../lib/wire.js');

/** One batch's responses (lib/wire.js decodes it into a throwaway state). */
const decodeBatch = (batch) => [...decode(new NativeState(0, 0), batch)];

const workerUrl = new URL('./helpers/worker-convert.mjs', import.meta.url);

/** A worker answering commands (see helpers/worker-convert.mjs). */
function spawn(bytes = 4096) {
  const worker = new Worker(workerUrl, { workerData: { bytes } });
  let next = 0;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  return {
    worker,
    exited,
    call(cmd, args = {}) {
      const id = next++;
      return new Promise((resolve, reject) => {
        const onMessage = (m) => {
          if (m.id !== id) return;
          worker.off('message', onMessage);
          if (m.error) reject(new Error(m.error));
          else resolve(m.ok);
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
        worker.postMessage({ cmd, id, ...args });
      });
    },
    /** Starts converting forever; resolves once it runs. */
    start() {
      return new Promise((resolve, reject) => {
        worker.on('message', (m) => m.running && resolve());
        worker.once('error', reject);
        worker.postMessage({ cmd: 'forever', id: -1 });
      });
    },
  };
}

async function settle(baseline) {
  for (let i = 0; i < 50 && liveHandles() > baseline; i++) {
    global.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function convertHere(reads) {
  const c = new AnthropicConverter();
  let args;
  for (const r of [...reads.flatMap((read) => c.pushBytes(read)), ...c.end()]) {
    for (const p of r.candidates?.[0]?.content?.parts ?? []) if (p.functionCall) args = p.functionCall.args;
  }
  return JSON.stringify(args);
}

test('workers convert correctly while others are terminated mid-stream; what they held is freed', async () => {
  global.gc();
  const baseline = liveHandles();
  const doomed = [spawn(), spawn(), spawn()];
  const steady = [spawn(16384), spawn(16384)];
  await Promise.all(doomed.map((d) => d.start()));
  const results = steady.map((s) => s.call('convert', { rounds: 40 }));
  // Terminated while converting, with half-fed converters alive.
  for (const d of doomed) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await d.worker.terminate();
  }
  const { reads } = anthropicWriteFile(16384);
  for (let i = 0; i < 20; i++) assert.equal(convertHere(reads), expectedArguments(16384));
  for (const { wrong } of await Promise.all(results)) assert.equal(wrong, 0);
  await Promise.all(steady.map((s) => s.worker.terminate()));
  await settle(baseline);
  assert.equal(liveHandles(), baseline);
});

test('a converter is never reachable from another thread: a foreign slot number is an error there', async () => {
  const a = spawn();
  const b = spawn();
  try {
    const { slot: slotA } = await a.call('handle', { name: 'x' });
    const { slot: slotB } = await b.call('handle', { name: 'x' });
    // Both are the first converter of their thread, yet their numbers differ.
    assert.notEqual(slotA, slotB);
    const own = new native.ConverterHandle('anthropic');
    assert.ok(![slotA, slotB].includes(own.slot));

    // From the main thread: A's number addresses nothing here.
    for (const call of [() => native.converterPushBytes(slotA, new Uint8Array(8)), () => native.converterEnd(slotA)]) {
      assert.throws(() => decodeBatch(call()), { code: 'INVALID_ARGUMENT', message: /no live converter/ });
    }
    // From B, where a converter of the same index is alive and half-fed.
    assert.deepEqual(await b.call('poke', { slot: slotA }), { push: 'INVALID_ARGUMENT', end: 'INVALID_ARGUMENT' });
    // Not-a-slot numbers too.
    for (const slot of [-1, 0.5, NaN, Infinity, 2 ** 53, slotA + 0.5]) {
      assert.deepEqual(await b.call('poke', { slot }), { push: 'INVALID_ARGUMENT', end: 'INVALID_ARGUMENT' });
    }
    // Neither converter was touched: both finish their own stream.
    const expected = expectedArguments(4096);
    assert.deepEqual(await a.call('finish', { name: 'x' }), { args: expected });
    assert.deepEqual(await b.call('finish', { name: 'x' }), { args: expected });
  } finally {
    await Promise.all([a.worker.terminate(), b.worker.terminate()]);
  }
});

test('liveHandles() counts the native states of the whole process, every worker included', async () => {
  global.gc();
  await settle(0);
  const baseline = liveHandles();
  const a = spawn();
  const b = spawn();
  try {
    // Each `open` keeps 4 states per count: two converters, a card ledger, an id table.
    const { live: afterA } = await a.call('open', { count: 5 });
    const { live: afterB } = await b.call('open', { count: 3 });
    if (bindingKind === 'wasi') {
      // The WebAssembly build: a worker's instance starts empty and counts
      // its own states only; this thread's count is untouched.
      assert.deepEqual([afterA, afterB, liveHandles()], [20, 12, baseline]);
      return;
    }
    assert.equal(afterA, baseline + 20);
    assert.equal(afterB, baseline + 32);
    assert.equal(liveHandles(), baseline + 32);
    // A worker that is terminated frees its states; so does one that exits.
    await a.worker.terminate();
    assert.equal(liveHandles(), baseline + 12);
    b.worker.postMessage({ cmd: 'exit', id: -1 });
    assert.equal(await b.exited, 0);
    assert.equal(liveHandles(), baseline);
  } finally {
    await Promise.all([a.worker.terminate(), b.worker.terminate()]);
  }
});
