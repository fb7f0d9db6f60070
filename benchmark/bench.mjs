// Races the native converters against the TypeScript they replace (the
// published Qwen Code build, fed by the real SDK SSE decoders), alternately in
// one process, on streams generated in memory. See BENCHMARKS.md.
//
//   npm run bench                 # full run (about 3 minutes on 2 cores)
//   npm run bench:smoke           # tiny sizes, a few iterations (CI: proves it runs)
//   node --expose-gc benchmark/bench.mjs [--smoke] [--only P0,P1,P4,P6] [--no-memory]
//   npm run bench -- --wasi       # the WebAssembly build (npm run build:wasi) in the native side's place
//   node benchmark/scaling.mjs    # P6 alone: 1, 2 and N worker threads, native and pure JS
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import * as streams from './streams.mjs';
import { machine } from './machine.mjs';
import { loadPeer, PEER_VERSION, RESPONSES_PEER_VERSION } from '../devtools/peer.mjs';
import { iterableResponseOf, loadPeerAdapter } from '../devtools/peer-adapters.mjs';
import { readFixture } from '../devtools/provider-fixtures.mjs';
import { providerClasses } from '../devtools/provider-classes.mjs';
import { scaling, scalingTable } from './scaling.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Stream: AnthropicSdkStream } = require('@anthropic-ai/sdk/core/streaming');
const { Stream: OpenAISdkStream } = require('openai/core/streaming');
// The core's provider table's names (plain constants: loading them loads no binding).
const { PROVIDERS } = require('../lib/generated/wire-constants.js');

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : null;
// lib/native.js's own switch: the WASI build or no binding at all, never a
// silent native one (checked below); P6's workers inherit it.
const WASI = argv.includes('--wasi');
if (WASI) process.env.TOOLCALL_STREAM_FORCE_WASI = '1';
const MODEL = 'bench-model';

// Sizes and time budgets. Smoke keeps every path but shrinks everything.
const size = SMOKE
  ? { small: 8 * 1024, large: 32 * 1024, textDeltas: 200, parallel: 4 * 1024, prose: 4000 }
  : { small: 100 * 1024, large: 1024 * 1024, textDeltas: 2000, parallel: 25 * 1024, prose: 34000 };
// Warm-up: each task runs at least `warmup` times and `warmupTime` ms before
// its first round, so both sides are measured with optimised code whatever
// ran before them (the peer's converter is already hot from the byte cases
// when the object cases start).
const timing = SMOKE
  ? { rounds: 1, time: 30, iterations: 2, warmup: 1, warmupTime: 0 }
  : { rounds: 6, time: 250, iterations: 3, warmup: 5, warmupTime: 200 };

// ---------------------------------------------------------------- native
let native = {};
try {
  native = require('..');
} catch (err) {
  process.stderr.write(`bench: native addon did not load (${err.message.split('\n')[0]})\n`);
}
const hasNative = typeof native.AnthropicConverter === 'function' && typeof native.OpenAIConverter === 'function';
const binding = hasNative ? require('../lib/available.js').checkAvailable() : null;
if (WASI && binding?.kind !== 'wasi') {
  process.stderr.write('bench --wasi: the WebAssembly build did not load (npm run build:wasi first)\n');
  process.exit(1);
}
const hasResponses = typeof native.OpenAIResponsesConverter === 'function';

/** Calls fn on each response of whatever a converter call returned (array, one, or none). */
function each(out, fn) {
  if (out == null) return;
  if (Array.isArray(out)) for (const r of out) fn(r);
  else fn(out);
}

// Both sides' responses are consumed the same way: reach the parts, as a caller would.
let sink = 0;
const touch = (r) => {
  sink += r?.candidates?.[0]?.content?.parts?.length ?? 0;
};

const nativePaths = {
  anthropicBytes(reads, onResponse = touch) {
    const c = new native.AnthropicConverter({ model: MODEL });
    for (const u8 of reads) each(c.pushBytes(u8), onResponse);
    each(c.end(), onResponse);
  },
  openaiBytes(reads, onResponse = touch) {
    const c = new native.OpenAIConverter({ model: MODEL });
    for (const u8 of reads) each(c.pushBytes(u8), onResponse);
    each(c.end(), onResponse);
  },
  /** The pipeline's output (what the peer's `processStreamWithLogging` yields from). */
  openaiBytesDropped(reads, onResponse = touch) {
    const c = new native.OpenAIConverter({ model: MODEL, dropEmptyResponses: true });
    for (const u8 of reads) each(c.pushBytes(u8), onResponse);
    each(c.end(), onResponse);
  },
  responsesBytes(reads, onResponse = touch) {
    const c = new native.OpenAIResponsesConverter({ model: MODEL });
    for (const u8 of reads) each(c.pushBytes(u8), onResponse);
    each(c.end(), onResponse);
  },
  async anthropicEvents(events, onResponse = touch) {
    const c = new native.AnthropicConverter({ model: MODEL });
    for await (const ev of streams.feed(events)) each(c.pushEvent(ev), onResponse);
    each(c.end(), onResponse);
  },
  async openaiChunks(chunks, onResponse = touch) {
    const c = new native.OpenAIConverter({ model: MODEL });
    for await (const ch of streams.feed(chunks)) each(c.pushChunk(ch), onResponse);
    each(c.end(), onResponse);
  },
  async anthropicStream(events, onResponse = touch) {
    for await (const r of native.convertAnthropicStream(streams.feed(events), { model: MODEL })) onResponse(r);
  },
  async openaiStream(chunks, onResponse = touch) {
    for await (const r of native.convertOpenAIStream(streams.feed(chunks), { model: MODEL })) onResponse(r);
  },
};

// ---------------------------------------------------------------- peer
/** Stops the run with one line: a provider with no class, fixture folder or peer adapter must not pass for measured. */
function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

// Bytes reach every peer through its provider's adapter (devtools/peer-adapters.mjs:
// the SDK decoder over an async-iterable body, or the Responses pipeline's own
// reader), loaded once per provider, release and model.
const adapters = new Map();
async function peerAdapter(provider, { qwen, model = MODEL }) {
  const key = JSON.stringify([provider, qwen, model]);
  if (!adapters.has(key)) {
    try {
      adapters.set(key, await loadPeerAdapter(provider, { qwen, model }));
    } catch (err) {
      fail(err.message);
    }
  }
  return adapters.get(key);
}
const bytePeers = {
  anthropic: await peerAdapter('anthropic', { qwen: PEER_VERSION }),
  openai: await peerAdapter('openai', { qwen: PEER_VERSION }),
  // A later release (the Responses generator ships from 0.23.3).
  'openai-responses': await peerAdapter('openai-responses', { qwen: RESPONSES_PEER_VERSION }),
};
// The SDK-decoded objects' drivers (P3), and P7's second setup.
const peer = await loadPeer({ model: MODEL });
const sdkStream = (provider, body) =>
  (provider === 'anthropic' ? AnthropicSdkStream : OpenAISdkStream).fromSSEResponse(body, new AbortController());

// The peer at its fastest: its adapter. `streamBody` is the former setup, a
// web ReadableStream Response (one pull per read, as a fetch body); P7 times both.
const peerFromBytes = (provider, reads, onResponse = touch, streamBody = false) =>
  streamBody
    ? peer[provider](sdkStream(provider, streams.responseOf(reads)), onResponse)
    : bytePeers[provider].consume(reads, onResponse);

async function decodeAll(provider, reads) {
  const out = [];
  for await (const item of sdkStream(provider, iterableResponseOf(reads))) out.push(item);
  return out;
}

// ---------------------------------------------------------------- floor
const ABSENT = Buffer.from([0, 0]);
/**
 * The floor: one memchr-speed pass over every read (Buffer.indexOf of a byte
 * pair that never occurs, so each 16 KiB read is scanned once, vectorised),
 * plus one JSON.parse per final payload (the arguments, or the text) to hand
 * the result to JS. No real converter can beat it.
 */
function floorPath(buffers, payloads) {
  let n = 0;
  for (const b of buffers) n += b.indexOf(ABSENT);
  for (const p of payloads) JSON.parse(p);
  return n;
}

// ---------------------------------------------------------------- same output?
/** What a caller keeps from a stream: texts, thoughts, calls, finish reason. */
function summary() {
  const s = { text: '', thought: '', calls: [], finish: undefined };
  return {
    s,
    onResponse(r) {
      const cand = r?.candidates?.[0];
      for (const p of cand?.content?.parts ?? []) {
        if (p.functionCall) s.calls.push({ name: p.functionCall.name, args: p.functionCall.args });
        else if (typeof p.text === 'string') p.thought ? (s.thought += p.text) : (s.text += p.text);
      }
      if (cand?.finishReason) s.finish = cand.finishReason;
    },
  };
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// ---------------------------------------------------------------- timing
/**
 * Runs the tasks in alternating rounds (order reversed every round) so drift,
 * GC debt and the other tenant of this 2-core machine hit all sides alike;
 * returns the median of all samples per task, in ms.
 */
async function measure(tasks) {
  const samples = new Map(tasks.map((t) => [t.name, []]));
  for (let r = 0; r < timing.rounds; r++) {
    const bench = new Bench({
      time: timing.time,
      iterations: timing.iterations,
      warmup: r === 0,
      warmupIterations: timing.warmup,
      warmupTime: timing.warmupTime,
      retainSamples: true,
      throws: true,
    });
    for (const t of r % 2 ? [...tasks].reverse() : tasks) bench.add(t.name, t.fn);
    await bench.run();
    for (const task of bench.tasks) samples.get(task.name).push(...task.result.latency.samples);
  }
  const med = new Map();
  for (const [name, xs] of samples) {
    xs.sort((a, b) => a - b);
    const m = xs.length >> 1;
    med.set(name, { median: xs.length % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2, n: xs.length });
  }
  return med;
}

// ---------------------------------------------------------------- cases
const kb = (n) => (n >= 1024 * 1024 ? `${+(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`);
const streamCases = [
  {
    id: 'P1',
    label: `Anthropic write_file ${kb(size.small)}`,
    provider: 'anthropic',
    make: () => streams.anthropicWriteFile(size.small),
    target: '≥ 8×; ÷ floor ≤ 2×',
  },
  {
    id: 'P1',
    label: `Anthropic write_file ${kb(size.large)}`,
    provider: 'anthropic',
    make: () => streams.anthropicWriteFile(size.large),
    target: '≥ 8×; ÷ floor ≤ 2×',
  },
  {
    id: 'P1',
    label: `OpenAI write_file ${kb(size.small)}`,
    provider: 'openai',
    make: () => streams.openaiWriteFile(size.small),
    target: '≥ 8×; ÷ floor ≤ 2×',
  },
  {
    id: 'P1',
    label: `OpenAI write_file ${kb(size.large)}`,
    provider: 'openai',
    make: () => streams.openaiWriteFile(size.large),
    target: '≥ 8×; ÷ floor ≤ 2×',
  },
  {
    id: 'P1',
    label: `OpenAI Responses write_file ${kb(size.small)}`,
    provider: 'openai-responses',
    make: () => streams.responsesWriteFile(size.small),
    target: '≥ 8×; ÷ floor ≤ 2×',
  },
  {
    id: 'P1',
    label: `OpenAI Responses write_file ${kb(size.large)}`,
    provider: 'openai-responses',
    make: () => streams.responsesWriteFile(size.large),
    target: '≥ 8×; ÷ floor ≤ 2×',
  },
  {
    id: 'P2',
    label: `Anthropic ${size.textDeltas} text deltas + thinking`,
    provider: 'anthropic',
    make: () => streams.anthropicText(size.textDeltas),
    target: '≥ 1.5×',
  },
  {
    id: 'P2',
    label: `OpenAI ${size.textDeltas} text deltas + reasoning`,
    provider: 'openai',
    make: () => streams.openaiText(size.textDeltas),
    target: '≥ 1.5×',
  },
  {
    id: 'P2',
    label: `OpenAI Responses ${size.textDeltas} text deltas + reasoning summary`,
    provider: 'openai-responses',
    make: () => streams.responsesText(size.textDeltas),
    target: '≥ 1.5×',
  },
  {
    id: 'P4',
    label: `OpenAI 4 interleaved calls × ${kb(size.parallel)}`,
    provider: 'openai',
    make: () => streams.openaiParallel(4, size.parallel),
    target: '≥ 5×',
  },
  // The shape of an independent tool-heavy benchmark: text first, ~52-character fragments, realistic escapes.
  {
    id: 'P7',
    label: `Anthropic tool-heavy: text + write_file ${kb(size.small)}`,
    provider: 'anthropic',
    make: () => streams.anthropicToolHeavy(size.small),
    target: '≥ 12×',
    streamBody: true,
  },
  {
    id: 'P7',
    label: `OpenAI tool-heavy: text + write_file ${kb(size.small)}`,
    provider: 'openai',
    make: () => streams.openaiToolHeavy(size.small),
    target: '≥ 12×',
    streamBody: true,
  },
  {
    id: 'P7',
    label: `Anthropic text-heavy: ${kb(size.prose)} of prose`,
    provider: 'anthropic',
    make: () => streams.anthropicTextHeavy(size.prose),
    target: '≥ 4×',
    streamBody: true,
  },
  {
    id: 'P7',
    label: `OpenAI text-heavy: ${kb(size.prose)} of prose`,
    provider: 'openai',
    make: () => streams.openaiTextHeavy(size.prose),
    target: '≥ 4×',
    streamBody: true,
  },
];
// P3 reuses a tool-call and a text stream per provider, fed as SDK-decoded objects.
const compatCases = [
  {
    label: `Anthropic write_file ${kb(size.small)}`,
    provider: 'anthropic',
    make: () => streams.anthropicWriteFile(size.small),
  },
  {
    label: `Anthropic ${size.textDeltas} text deltas + thinking`,
    provider: 'anthropic',
    make: () => streams.anthropicText(size.textDeltas),
  },
  { label: `OpenAI write_file ${kb(size.small)}`, provider: 'openai', make: () => streams.openaiWriteFile(size.small) },
  {
    label: `OpenAI ${size.textDeltas} text deltas + reasoning`,
    provider: 'openai',
    make: () => streams.openaiText(size.textDeltas),
  },
];
const want = (id) => !only || only.includes(id);

const rows = [];
const fmt = (ms) =>
  ms == null ? '—' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3);
const ratio = (a, b) => (a == null || b == null ? '—' : `${(a / b).toFixed(a / b >= 10 ? 1 : 2)}×`);

async function checkSame(provider, runNative, runPeer) {
  const p = summary();
  await runPeer(p.onResponse);
  const n = summary();
  try {
    await runNative(n.onResponse);
  } catch (err) {
    return `native threw: ${err.message}`;
  }
  return same(p.s, n.s) ? 'same' : 'DIFFERS';
}

/** Guards the generators: the peer must give back exactly the arguments / text that were streamed. */
async function assertPeerReproduces(c, st) {
  const p = summary();
  await peerFromBytes(c.provider, st.reads, p.onResponse);
  const expected = st.finalArguments ? st.finalArguments.map((a) => JSON.stringify(JSON.parse(a))) : [st.finalText];
  const got = st.finalArguments ? p.s.calls.map((call) => JSON.stringify(call.args)) : [p.s.thought + p.s.text];
  if (!same(got, expected)) throw new Error(`bench: the peer does not reproduce the generated stream for ${c.label}`);
}

// ---------------------------------------------------------------- P0: every provider's folder
/** The message a side's error carries (the host's own where native hands one back, as Qwen threw it). */
const errorMessage = (err) => String(err?.hostError?.message ?? err?.message ?? err);

/**
 * P0: every provider of the core's table (PROVIDERS) over the streams of its
 * fixture folder (devtools/provider-fixtures.mjs), under the folder's first
 * release: native through the class that declares the provider, the peer
 * through its adapter at that release. No code here names a provider.
 */
async function corpusRows() {
  const classes = hasNative ? providerClasses(native) : new Map();
  const out = [];
  for (const name of PROVIDERS) {
    let fixture;
    try {
      fixture = readFixture(name);
    } catch (err) {
      fail(err.message);
    }
    const { manifest } = fixture;
    const release = manifest.releases[0];
    const model = manifest.settings.model ?? MODEL;
    // A feed that fails (`__throw__`, `__cut__`) ends in the host's transport
    // error, which only the native side is told of (upstreamFailed): left out.
    const corpus = fixture.streams
      .filter((st) => st.ending.end)
      .map((st) => ({
        name: st.name,
        reads: streams.readsOf(st.body),
        bytes: st.body.length,
        events: st.objects.length,
      }));
    const left = fixture.streams.length - corpus.length;
    const peerSide = await peerAdapter(name, { qwen: release.qwen, model });
    const Class = classes.get(name);
    if (hasNative && !Class) fail(`P0: the native provider ${name} has no public class declaring it (kProvider)`);

    // One stream, a fresh converter; an error ends it on either side, its message kept for the comparison.
    const nativeOne = (reads, onResponse) => {
      const c = new Class({ ...manifest.settings, model, profile: release.profile });
      try {
        for (const u8 of reads) each(c.pushBytes(u8), onResponse);
        each(c.end(), onResponse);
        return null;
      } catch (err) {
        each(err.responses, onResponse);
        return errorMessage(err);
      }
    };
    const peerOne = async (reads, onResponse) => {
      try {
        await peerSide.consume(reads, onResponse);
        return null;
      } catch (err) {
        return errorMessage(err);
      }
    };

    // Same output, stream by stream: what a caller keeps, and the error it ends with.
    const differs = [];
    const payloads = [];
    let errors = 0;
    for (const st of corpus) {
      const p = summary();
      const peerError = await peerOne(st.reads, p.onResponse);
      if (peerError !== null) errors++;
      for (const call of p.s.calls) payloads.push(JSON.stringify(call.args));
      payloads.push(JSON.stringify(p.s.thought + p.s.text));
      if (!hasNative) continue;
      const n = summary();
      const nativeError = nativeOne(st.reads, n.onResponse);
      if (!same({ ...p.s, error: peerError }, { ...n.s, error: nativeError })) differs.push(st.name);
    }
    const check = !hasNative
      ? 'native pending'
      : differs.length
        ? `DIFFERS (${differs.slice(0, 3).join(', ')}${differs.length > 3 ? ', …' : ''})`
        : 'same';

    const buffers = corpus.flatMap((st) => st.reads.map((u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength)));
    const tasks = [
      {
        name: 'peer',
        fn: async () => {
          for (const st of corpus) await peerOne(st.reads, touch);
        },
      },
      { name: 'floor', fn: () => floorPath(buffers, payloads) },
    ];
    if (hasNative)
      tasks.push({
        name: 'native',
        fn: () => {
          for (const st of corpus) nativeOne(st.reads, touch);
        },
      });
    const bytes = corpus.reduce((n, st) => n + st.bytes, 0);
    const events = corpus.reduce((n, st) => n + st.events, 0);
    process.stderr.write(
      `bench: P0 ${name} folder (${corpus.length} streams, ${errors} of them ending in Qwen's error; ${left} with a failing feed left out; ${kb(bytes)} SSE)\n`,
    );
    const m = await measure(tasks);
    out.push({
      id: 'P0',
      label: `${name} folder, ${corpus.length} streams`,
      path: 'pushBytes',
      sse: `${kb(bytes)} / ${events}`,
      peer: m.get('peer').median,
      native: m.get('native')?.median,
      floor: m.get('floor').median,
      target: '—',
      check,
      corpus: { release, peerVersion: peerSide.version, streams: corpus.length, left },
    });
  }
  return out;
}
if (want('P0')) rows.push(...(await corpusRows()));

for (const c of streamCases) {
  if (!want(c.id)) continue;
  const st = c.make();
  const buffers = st.reads.map((u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength));
  const payloads = st.finalArguments ?? [JSON.stringify(st.finalText)];
  const bytesPath = {
    anthropic: nativePaths.anthropicBytes,
    openai: nativePaths.openaiBytes,
    'openai-responses': nativePaths.responsesBytes,
  }[c.provider];
  const tasks = [
    { name: 'peer', fn: () => peerFromBytes(c.provider, st.reads) },
    { name: 'floor', fn: () => floorPath(buffers, payloads) },
  ];
  if (c.streamBody) tasks.push({ name: 'peerStream', fn: () => peerFromBytes(c.provider, st.reads, touch, true) });
  await assertPeerReproduces(c, st);
  let check = 'native pending';
  let dropCheck;
  if (hasNative && (c.provider !== 'openai-responses' || hasResponses)) {
    check = await checkSame(
      c.provider,
      (on) => bytesPath(st.reads, on),
      (on) => peerFromBytes(c.provider, st.reads, on),
    );
    if (!check.startsWith('native threw')) tasks.push({ name: 'native', fn: () => bytesPath(st.reads) });
    if (c.provider === 'openai') {
      // The peer is Qwen's pipeline, which drops the empty responses: the
      // native path that leaves them out gives what the peer gives.
      dropCheck = await checkSame(
        c.provider,
        (on) => nativePaths.openaiBytesDropped(st.reads, on),
        (on) => peerFromBytes(c.provider, st.reads, on),
      );
      if (!dropCheck.startsWith('native threw'))
        tasks.push({ name: 'nativeDrop', fn: () => nativePaths.openaiBytesDropped(st.reads) });
    }
  }
  process.stderr.write(
    `bench: ${c.id} ${c.label} (${kb(st.bytes)} SSE, ${st.events} events, ${st.reads.length} reads)\n`,
  );
  const m = await measure(tasks);
  rows.push({
    id: c.id,
    label: c.label,
    path: 'pushBytes',
    sse: `${kb(st.bytes)} / ${st.events}`,
    peer: m.get('peer').median,
    peerStream: m.get('peerStream')?.median,
    native: m.get('native')?.median,
    floor: m.get('floor').median,
    target: c.target,
    check,
  });
  if (m.get('nativeDrop'))
    rows.push({
      ...rows.at(-1),
      path: 'pushBytes + dropEmptyResponses',
      peerStream: undefined,
      native: m.get('nativeDrop').median,
      check: dropCheck,
    });
}

if (want('P3')) {
  for (const c of compatCases) {
    const st = c.make();
    const items = await decodeAll(c.provider, st.reads);
    const runPeer = (on = touch) => peer[c.provider](streams.feed(items), on);
    const variants =
      c.provider === 'anthropic'
        ? [
            ['pushEvent', nativePaths.anthropicEvents],
            ['convertAnthropicStream', nativePaths.anthropicStream],
          ]
        : [
            ['pushChunk', nativePaths.openaiChunks],
            ['convertOpenAIStream', nativePaths.openaiStream],
          ];
    const tasks = [{ name: 'peer', fn: () => runPeer() }];
    const checks = {};
    if (hasNative) {
      for (const [name, run] of variants) {
        checks[name] = await checkSame(c.provider, (on) => run(items, on), runPeer);
        if (!checks[name].startsWith('native threw')) tasks.push({ name, fn: () => run(items) });
      }
    }
    process.stderr.write(`bench: P3 ${c.label} (${items.length} SDK objects)\n`);
    const m = await measure(tasks);
    for (const [name] of variants) {
      rows.push({
        id: 'P3',
        label: c.label,
        path: name,
        sse: `${items.length} objects`,
        peer: m.get('peer').median,
        native: m.get(name)?.median,
        floor: undefined,
        target: 'native ≤ 1.2× peer time',
        check: hasNative ? checks[name] : 'native pending',
      });
    }
  }
}

// ---------------------------------------------------------------- P5 memory
let memory = null;
if (want('P5') && !argv.includes('--no-memory')) {
  // A child of its own: RSS free of the peer's heap, and --expose-gc.
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', path.join(here, 'memory.mjs'), ...(SMOKE ? ['--smoke'] : [])],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  memory = JSON.parse(out);
}

// ---------------------------------------------------------------- P6 scaling
const scaled = want('P6') && hasNative ? await scaling({ smoke: SMOKE }) : null;

// ---------------------------------------------------------------- report
const lines = [];
lines.push(`Machine: ${machine()}`);
lines.push(
  `Peer: @qwen-code/qwen-code ${peer.version} (+ @anthropic-ai/sdk / openai SSE decoders from node_modules); OpenAI Responses rows: ${bytePeers['openai-responses'].version}'s own reader and converter; P0: each folder's first release`,
);
lines.push(
  `Native: ${hasNative ? `toolcall-stream ${require('../package.json').version}, binding ${binding.kind} (${binding.platform})` : 'not available yet (AnthropicConverter missing from the addon)'}`,
);
lines.push(`Mode: ${SMOKE ? 'smoke' : 'full'}; medians over ${timing.rounds} alternating round(s); 16 KiB reads`);
lines.push('');
lines.push(
  '| case | stream | native path | SSE / events | peer ms | native ms | native speed-up | target | floor ms | native ÷ floor | output |',
);
lines.push('|---|---|---|---|---:|---:|---:|---|---:|---:|---|');
for (const r of rows) {
  lines.push(
    `| ${r.id} | ${r.label} | \`${r.path}\` | ${r.sse} | ${fmt(r.peer)} | ${fmt(r.native)} | ${ratio(r.peer, r.native)} | ${r.target} | ${fmt(r.floor)} | ${ratio(r.native, r.floor)} | ${r.check} |`,
  );
}
const setups = rows.filter((r) => r.peerStream != null);
if (setups.length) {
  lines.push('');
  lines.push(
    '| peer setup (same run) | async-iterable body ms (the peer above) | ReadableStream Response ms | native speed-up against it |',
  );
  lines.push('|---|---:|---:|---:|');
  for (const r of setups)
    lines.push(`| ${r.id} ${r.label} | ${fmt(r.peer)} | ${fmt(r.peerStream)} | ${ratio(r.peerStream, r.native)} |`);
}
const corpora = rows.filter((r) => r.corpus);
if (corpora.length) {
  lines.push('');
  lines.push(
    '| P0 folder | native profile / peer release | streams timed | left out (a failing feed) | peer µs / stream | native µs / stream | floor µs / stream |',
  );
  lines.push('|---|---|---:|---:|---:|---:|---:|');
  const perStream = (ms, r) => (ms == null ? '—' : fmt((ms * 1000) / r.corpus.streams));
  for (const r of corpora)
    lines.push(
      `| ${r.label} | ${r.corpus.release.profile} / ${r.corpus.peerVersion} | ${r.corpus.streams} | ${r.corpus.left} | ${perStream(r.peer, r)} | ${perStream(r.native, r)} | ${perStream(r.floor, r)} |`,
    );
}
if (memory) {
  lines.push('');
  lines.push('| P5 memory | measured | target |');
  lines.push('|---|---|---|');
  for (const m of memory.rows) lines.push(`| ${m.what} | ${m.value} | ${m.target} |`);
}
if (scaled) {
  lines.push('');
  lines.push(scalingTable(scaled));
}
process.stdout.write(lines.join('\n') + '\n');
if (sink < 0) process.stdout.write(String(sink)); // keeps consumption observable
