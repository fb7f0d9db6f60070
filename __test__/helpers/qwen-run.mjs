// Runs one Qwen Code release's own content generator — stock, or with
// toolcall-stream/qwen installed — on corpus streams served over loopback
// HTTP, and prints what Qwen's callers see, one JSON line per stream:
//
//   node qwen-run.mjs <packageDir> <anthropic|openai> <stock|native> <stream.json>...
import fs from 'node:fs';
import path from 'node:path';
import { startQwenGenerators, ssePieces } from '../../devtools/qwen-generator.mjs';
import { qwenObserver } from './qwen-observe.mjs';

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
const observe = qwenObserver(qwen.q);
for (const file of files) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  qwen.serve(ssePieces(provider, Array.isArray(raw) ? raw : (raw.events ?? raw.chunks)));
  const responses = [];
  let error;
  try {
    for await (const r of await qwen.stream(provider)) responses.push(observe.response(r));
  } catch (err) {
    error = observe.error(err);
  }
  process.stdout.write(JSON.stringify({ file: path.basename(file), responses, error }) + '\n');
}
process.stdout.write(JSON.stringify({ stats: qwen.stats }) + '\n');
await qwen.close();
