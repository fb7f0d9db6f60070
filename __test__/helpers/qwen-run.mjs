// Runs one Qwen Code release's own content generator — stock, or with
// toolcall-stream/qwen installed — on corpus streams served over loopback
// HTTP, and prints what Qwen's callers see, one JSON line per stream:
//
//   node qwen-run.mjs <packageDir> <anthropic|openai> <stock|native> <stream.json>...
import fs from 'node:fs';
import path from 'node:path';
import { startQwenGenerators, ssePieces } from './qwen-generator.mjs';

const [packageDir, provider, mode, ...files] = process.argv.slice(2);

// Generated tool-call ids (`call_<ms>_<random>`) repeat with a seeded Math.random.
let seed = 42;
Math.random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const qwen = await startQwenGenerators({ packageDir, mode });
const { q } = qwen;
const plain = (v) => JSON.parse(JSON.stringify(v));
// Qwen's private marker of OpenAI reasoning thoughts (thoughtUtils.ts,
// OPENAI_REASONING_THOUGHT_MARKER), as its own factory attaches it.
const [REASONING_MARKER] = Object.getOwnPropertySymbols(q.createOpenAIReasoningThoughtPart(''));
/** Qwen's usage provenance of the response: its keys (one may hold undefined) and values. */
function provenance(r) {
  const p = r.usageMetadata ? q.getGenAiUsageProvenance(r.usageMetadata) : undefined;
  return p === undefined ? null : { keys: Object.keys(p), value: plain(p) };
}
/** Per part of the response: whether it carries Qwen's reasoning marker (non-enumerable). */
const reasoningMarks = (r) =>
  (r.candidates?.[0]?.content?.parts ?? []).map((p) => {
    const d = Object.getOwnPropertyDescriptor(p, REASONING_MARKER);
    return d ? { value: d.value, enumerable: d.enumerable } : false;
  });
for (const file of files) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  qwen.serve(ssePieces(provider, Array.isArray(raw) ? raw : (raw.events ?? raw.chunks)));
  const responses = [];
  let error;
  try {
    for await (const r of await qwen.stream(provider)) {
      responses.push({
        json: plain(r),
        preparations: plain(q.getToolCallPreparations(r)),
        // Qwen's own getters: its telemetry's usage provenance, its thought summary.
        usageProvenance: provenance(r),
        thoughtSummary: q.getThoughtSummary(r),
        reasoningMarks: reasoningMarks(r),
        qwenClass: r instanceof q.GenerateContentResponse,
        functionCalls: plain(r.functionCalls ?? null),
        text: r.text ?? null,
      });
    }
  } catch (err) {
    error = {
      name: err?.name,
      message: err?.message,
      type: err?.type,
      invalidStream: err instanceof q.InvalidStreamError,
      status: err?.status,
    };
  }
  process.stdout.write(JSON.stringify({ file: path.basename(file), responses, error }) + '\n');
}
process.stdout.write(JSON.stringify({ stats: qwen.stats }) + '\n');
await qwen.close();
