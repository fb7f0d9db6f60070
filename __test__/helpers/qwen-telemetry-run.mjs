// Runs one Qwen Code release's content generators, made as its CLI makes
// them and with its telemetry recording to `outfile` (qwen-telemetry-generators.mjs),
// stock or with toolcall-stream/qwen installed, on corpus streams served over
// loopback HTTP. Prints what Qwen's callers see, one JSON line per stream, then
// the preload's stats; the telemetry file is complete when it exits.
//
//   node qwen-telemetry-run.mjs <packageDir> <stock|native> <outfile> <anthropic-…|openai-….json>...
import fs from 'node:fs';
import path from 'node:path';
import { ssePieces } from '../../devtools/qwen-generator.mjs';
import { qwenObserver } from './qwen-observe.mjs';
import { startQwenTelemetryGenerators } from '../../devtools/qwen-telemetry-generators.mjs';

const [packageDir, mode, outfile, ...files] = process.argv.slice(2);

const qwen = await startQwenTelemetryGenerators({ packageDir, mode, outfile, captureContent: true });
const observe = qwenObserver(qwen.q);
for (const file of files) {
  const provider = path.basename(file).startsWith('anthropic-') ? 'anthropic' : 'openai';
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
const { stats } = qwen;
await qwen.close();
process.stdout.write(JSON.stringify({ stats }) + '\n');
