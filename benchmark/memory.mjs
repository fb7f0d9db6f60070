// P5: memory of the native converters, in a process of its own (run with
// --expose-gc; bench.mjs spawns it and reads one JSON object from stdout).
//   node --expose-gc benchmark/memory.mjs [--smoke] [--no-peer]
import { createRequire } from 'node:module';
import * as streams from './streams.mjs';

const require = createRequire(import.meta.url);
const SMOKE = process.argv.includes('--smoke');
const MODEL = 'bench-model';
const LARGE = SMOKE ? 128 * 1024 : 1024 * 1024;
const STREAMS = SMOKE ? 500 : 10_000;
const ABANDONED = SMOKE ? 100 : 1_000;
if (typeof global.gc !== 'function') throw new Error('memory.mjs needs node --expose-gc');

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MB`;
const rss = () => process.memoryUsage.rss();
/** RSS less the V8 heap: native state, without JS garbage waiting for a scavenge. */
const outsideHeap = () => {
  const m = process.memoryUsage();
  return m.rss - m.heapTotal;
};
async function settle() {
  // Finalizers of collected handles run on later turns of the loop.
  for (let i = 0; i < 4; i++) {
    global.gc();
    await new Promise((r) => setImmediate(r));
  }
}

/** The reads that end before `marker` (last occurrence): the call is still open after them. */
function openCallReads(st, marker) {
  const cut = Buffer.concat(st.reads).lastIndexOf(marker);
  const out = [];
  let off = 0;
  for (const r of st.reads) {
    if (off + r.byteLength > cut) break;
    out.push(r);
    off += r.byteLength;
  }
  return out;
}

let native = {};
try {
  native = require('..');
} catch {}
const hasNative = typeof native.AnthropicConverter === 'function';
const rows = [];
const label = SMOKE ? `${LARGE / 1024} KB` : '1 MB';

const anthropicLarge = streams.anthropicWriteFile(LARGE);
const openaiLarge = streams.openaiWriteFile(LARGE);
const anthropicOpen = openCallReads(anthropicLarge, '"type":"content_block_stop"');
const openaiOpen = openCallReads(openaiLarge, '"finish_reason":"tool_calls"');

const small = [streams.anthropicWriteFile(2048), streams.openaiWriteFile(2048)];
function runSmall(Converter, which) {
  const c = new Converter({ model: MODEL });
  for (const u8 of small[which].reads) c.pushBytes(u8);
  c.end();
}

async function nativeRows() {
  for (const [name, Converter, reads] of [
    ['Anthropic', native.AnthropicConverter, anthropicOpen],
    ['OpenAI', native.OpenAIConverter, openaiOpen],
  ]) {
    try {
      // Warm up first: the baseline excludes one-time costs (code pages, allocator arenas, JIT).
      for (let i = 0; i < 3; i++) runSmall(Converter, name === 'Anthropic' ? 0 : 1);
      await settle();
      const base = rss();
      const baseOutside = outsideHeap();
      let peak = base;
      let peakOutside = baseOutside;
      let c = new Converter({ model: MODEL });
      for (const u8 of reads) {
        c.pushBytes(u8);
        peak = Math.max(peak, rss());
        peakOutside = Math.max(peakOutside, outsideHeap());
      }
      rows.push({
        what: `native ${name}: one ${label} call open, peak RSS growth (of which outside the V8 heap)`,
        value: `${mb(peak - base)} (${mb(peakOutside - baseOutside)})`,
        target: '≤ 3 MB',
      });
      // The reads stop mid-event, so end() may rightly reject the cut tail; only the memory matters here.
      try {
        c.end();
      } catch {}
      c = null; // not left in a suspended frame's registers
    } catch (err) {
      rows.push({ what: `native ${name}`, value: `failed: ${err.code ?? ''} ${err.message}`, target: '—' });
    }
  }

  // Many short streams: RSS after GC at checkpoints, and no handle left behind.
  const checkpoints = [];
  await settle();
  const start = rss();
  // Each stream in its own (sync) function call: a suspended async function
  // may keep its last loop values in registers, which would pin a converter.
  const oneStream = (anthropic) => {
    const c = anthropic
      ? new native.AnthropicConverter({ model: MODEL })
      : new native.OpenAIConverter({ model: MODEL });
    for (const u8 of small[anthropic ? 0 : 1].reads) c.pushBytes(u8);
    c.end();
  };
  for (let i = 1; i <= STREAMS; i++) {
    oneStream(i % 2 === 1);
    if (i % (STREAMS / 10) === 0) {
      await settle();
      checkpoints.push(rss());
    }
  }
  const liveBeforeGc = native.liveHandles();
  rows.push({
    what: `native: ${STREAMS} streams (2 KB calls, both providers), RSS after GC at each tenth`,
    value: `${mb(start)} → ${checkpoints.map((x) => (x / 2 ** 20).toFixed(1)).join(', ')} MB (last tenth vs first: ${mb(checkpoints.at(-1) - checkpoints[0])})`,
    target: 'flat',
  });
  // Converters dropped mid-stream, never ended: their native state must go with them.
  const abandon = () => {
    const c = new native.AnthropicConverter({ model: MODEL });
    c.pushBytes(small[0].reads[0].subarray(0, 1000));
  };
  for (let i = 0; i < ABANDONED; i++) abandon();
  const liveAbandoned = native.liveHandles();
  await settle();
  rows.push({
    what: `liveHandles(): after ${STREAMS} ended streams (before GC) / with ${ABANDONED} abandoned mid-stream / after global.gc()`,
    value: `${liveBeforeGc} / ${liveAbandoned} / ${native.liveHandles()}`,
    target: '0 after GC',
  });
}
if (!hasNative) rows.push({ what: 'native', value: 'pending: AnthropicConverter not in the addon yet', target: '—' });
else {
  try {
    await nativeRows();
  } catch (err) {
    rows.push({ what: 'native', value: `failed: ${err.code ?? ''} ${err.message}`, target: '—' });
  }
}

// The peer on the same open call, for scale (its heap is loaded before the baseline).
if (!process.argv.includes('--no-peer')) {
  const { loadPeer } = await import('../devtools/peer.mjs');
  const { Stream } = require('@anthropic-ai/sdk/core/streaming');
  const peer = await loadPeer({ model: MODEL });
  await settle();
  const base = rss();
  let peak = base;
  let i = 0;
  const body = new ReadableStream({
    pull(controller) {
      peak = Math.max(peak, rss());
      if (i < anthropicOpen.length) controller.enqueue(anthropicOpen[i++]);
      else controller.close();
    },
  });
  await peer.anthropic(Stream.fromSSEResponse(new Response(body), new AbortController()), () => {});
  peak = Math.max(peak, rss());
  rows.push({
    what: `peer Anthropic (SDK + processStream): one ${label} call open, peak RSS growth`,
    value: mb(peak - base),
    target: '(for scale)',
  });
}

process.stdout.write(JSON.stringify({ rows }) + '\n');
