// Runs one Qwen Code release's own content generator — stock, or with
// toolcall-stream/qwen installed — on raw HTTP bodies served over loopback
// (each body: a list of pieces written in order, strings or byte arrays),
// and prints what Qwen's callers see, one JSON line per body:
//
//   node qwen-run-bodies.mjs <packageDir> <anthropic|openai> <stock|native> <bodies.json>
import fs from 'node:fs';
import { startQwenGenerators } from '../../devtools/qwen-generator.mjs';

const [packageDir, provider, mode, file] = process.argv.slice(2);

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
const plain = (v) => JSON.parse(JSON.stringify(v));
for (const [name, pieces] of Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')))) {
  qwen.serve(pieces.map((p) => (p === null || typeof p === 'string' ? p : Buffer.from(p))));
  const responses = [];
  let error;
  try {
    for await (const r of await qwen.stream(provider)) {
      responses.push({ json: plain(r), preparations: plain(qwen.q.getToolCallPreparations(r)) });
    }
  } catch (err) {
    error = { name: err?.name, message: err?.message, type: err?.type, code: err?.code };
  }
  process.stdout.write(JSON.stringify({ name, responses, error }) + '\n');
}
process.stdout.write(JSON.stringify({ stats: qwen.stats }) + '\n');
await qwen.close();
