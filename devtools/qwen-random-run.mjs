// Runs one Qwen Code release's own content generators — stock, or with
// toolcall-stream/qwen installed — on generated cases (stream-generator.mjs),
// each served over loopback HTTP by a server in this process, and prints
// what Qwen's callers see, one JSON line per case:
//
//   node qwen-random-run.mjs <packageDir> <stock|native> [cases.json]
//
// Without a file it reads batches from stdin (one JSON array of cases a
// line) and ends each batch's output with a `{"done": true}` line, so a
// long run (the fuzzer, the minimiser) pays for Qwen's start once.
//
// Per case: the responses (as qwen-run.mjs reads them), the error (class and
// where it comes from, message, the fields Qwen reads, and Qwen's own retry
// classification of it), the requests the SDK made (its retries), which path
// the preload took, and any unhandled rejection. With the preload, the
// argument progress of the stream is read after every response, as live
// progress reads it (lib/progress.js): the reads must change nothing Qwen
// sees, and a read that throws or whose counts go down is reported with the
// unhandled rejections, which stock never has.
import fs from 'node:fs';
import readline from 'node:readline';
import { setImmediate as turn } from 'node:timers/promises';
import { startQwenGenerators } from './qwen-generator.mjs';
import { startCaseServer } from './case-server.mjs';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';
import { findExporters } from '../lib/qwen/inspect.mjs';
import progress from '../lib/progress.js';
import { plainOrDigest } from './deep-json.mjs';

const [packageDir, mode, file] = process.argv.slice(2);

// Generated tool-call ids (`call_<ms>_<random>`) repeat with a seeded Math.random.
let seed = 42;
Math.random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
// The SDKs log a frame they cannot parse before throwing; the error is what is compared.
console.error = () => {};
// @google/genai warns on `.text` of a response with function calls; the value is what is compared.
console.warn = () => {};

const provider = await startCaseServer();
const qwen = await startQwenGenerators({ packageDir, mode, baseUrl: provider.base });
const { q, generators, stats } = qwen;
// Qwen's own reading of an error, which decides its retries
// (packages/core/src/utils/retryErrorClassification.ts, classifyRetryError;
// rateLimit.ts, isRateLimitError; errors.ts, getErrorStatus).
const classifiers = ['classifyRetryError', 'isRateLimitError', 'getErrorStatus'];
const { classifyRetryError, isRateLimitError, getErrorStatus } = await importHookPoints(
  findExporters(packageDir, classifiers),
  classifiers,
);

// Tool arguments may nest deeper than JSON.stringify takes: those are compared by a digest.
const plain = plainOrDigest;
const [REASONING_MARKER] = Object.getOwnPropertySymbols(q.createOpenAIReasoningThoughtPart(''));

function responseRecord(r) {
  const p = r.usageMetadata ? q.getGenAiUsageProvenance(r.usageMetadata) : undefined;
  return {
    json: plain(r),
    preparations: plain(q.getToolCallPreparations(r)),
    usageProvenance: p === undefined ? null : { keys: Object.keys(p), value: plain(p) },
    thoughtSummary: q.getThoughtSummary(r) ?? null,
    reasoningMarks: (r.candidates?.[0]?.content?.parts ?? []).map((part) => {
      const d = part && Object.getOwnPropertyDescriptor(part, REASONING_MARKER);
      return d ? { value: d.value, enumerable: d.enumerable } : false;
    }),
    qwenClass: r instanceof q.GenerateContentResponse,
    functionCalls: plain(r.functionCalls ?? null),
    text: r.text ?? null,
  };
}

// The bundled SDKs' error classes, by identity: an error is "from the SDK"
// only when its constructor is the very class Qwen's SDK client exposes.
const sdkClasses = [];
for (const [sdk, client] of [
  ['anthropic', generators.anthropic.client],
  ['openai', generators.openai.pipeline?.client],
]) {
  for (const [name, value] of Object.entries(client?.constructor ?? {}))
    if (typeof value === 'function' && value.prototype instanceof Error) sdkClasses.push([value, `${sdk}.${name}`]);
}
const INTRINSICS = [SyntaxError, TypeError, RangeError, Error];

/** Where the error's class comes from: the bundled SDK, the JS intrinsics, or elsewhere. */
function classOrigin(err) {
  const hit = sdkClasses.find(([cls]) => err.constructor === cls);
  if (hit) return hit[1];
  if (INTRINSICS.includes(err.constructor)) return `intrinsic.${err.constructor.name}`;
  return `other.${err.constructor?.name}`;
}

const safe = (f) => {
  try {
    return plain(f());
  } catch (e) {
    return { threw: String(e?.message) };
  }
};

function errorRecord(err) {
  if (err === null || typeof err !== 'object') return { thrown: typeof err, value: String(err) };
  return {
    name: err.name,
    origin: classOrigin(err),
    message: err.message,
    status: err.status,
    code: err.code,
    type: err.type,
    error: safe(() => err.error),
    requestID: err.requestID ?? err.request_id,
    invalidStream: err instanceof q.InvalidStreamError,
    cause: err.cause ? { name: err.cause.name, message: err.cause.message } : undefined,
    // Qwen's own reading of the error, which decides its retry (GeminiChat, retry.ts).
    qwen: {
      classification: safe(() => classifyRetryError(err)),
      rateLimit: safe(() => isRateLimitError(err)),
      status: safe(() => getErrorStatus(err)),
    },
  };
}

let unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(String(reason?.stack ?? reason).slice(0, 300)));

const model = 'test-model';
const counters = () => JSON.stringify(stats);
async function runCase(kase) {
  provider.serve(kase);
  unhandled = [];
  const before = JSON.parse(counters());
  const responses = [];
  let error;
  let hang = false;
  const abort = new AbortController();
  // A watchdog, not an assertion: a case that never ends is reported as such.
  const watchdog = setTimeout(() => {
    hang = true;
    abort.abort();
  }, 60_000);
  try {
    const request = {
      model,
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      config: { abortSignal: abort.signal },
    };
    const reader = mode === 'native' ? progressReader() : undefined;
    for await (const r of await generators[kase.provider].generateContentStream(request, 'prompt-1')) {
      responses.push(responseRecord(r));
      reader?.(r);
    }
  } catch (err) {
    error = errorRecord(err);
  }
  clearTimeout(watchdog);
  await turn();
  const after = stats;
  const took = ['bytes', 'objects', 'chunks'].filter(
    (k) => k in after[kase.provider] && after[kase.provider][k] !== before[kase.provider][k],
  );
  if (after.fallbacks !== before.fallbacks) took.push('fallback');
  process.stdout.write(
    JSON.stringify({ seed: kase.seed, requests: provider.requests, responses, error, hang, unhandled, path: took }) +
      '\n',
  );
}

/**
 * Reads the argument progress of the stream after each response, from the
 * latest response that carries preparations; what goes wrong goes to
 * `unhandled`.
 */
function progressReader() {
  let source;
  const seen = new Map();
  return (response) => {
    if (progress.progressSourceOf(response)) source = response;
    if (!source) return;
    try {
      const snapshot = progress.getToolCallProgress(source);
      for (const call of snapshot.calls) {
        const last = seen.get(call.callId);
        if (last && (call.argumentBytes < last.argumentBytes || call.argumentLines < last.argumentLines)) {
          unhandled.push(`progress of ${call.callId} went down: ${JSON.stringify([last, call])}`);
        }
        seen.set(call.callId, call);
      }
    } catch (err) {
      unhandled.push(`reading progress threw: ${String(err?.stack ?? err).slice(0, 300)}`);
    }
  };
}

async function* batches() {
  if (file) {
    yield JSON.parse(fs.readFileSync(file, 'utf8'));
    return;
  }
  for await (const line of readline.createInterface({ input: process.stdin })) if (line.trim()) yield JSON.parse(line);
}
for await (const cases of batches()) {
  for (const kase of cases) await runCase(kase);
  if (!file) process.stdout.write('{"done":true}\n');
}
await qwen.close();
provider.close();
