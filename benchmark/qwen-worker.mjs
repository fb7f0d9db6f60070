// One side of `npm run bench:qwen`: a process running a Qwen Code release's
// own content generators, stock or with toolcall-stream/qwen installed, that
// times whole streams on request (IPC from benchmark/qwen.mjs).
//
//   node benchmark/qwen-worker.mjs <packageDir> <stock|native> [--smoke] [--base-url URL] [--telemetry]
//
// With --base-url the provider runs in the driver, which serves each case's
// body before asking for it; otherwise this process serves it.
// With --telemetry the generators are made as Qwen's CLI makes them (its
// Config and createContentGenerator, so its LoggingContentGenerator) with
// Qwen's own OpenTelemetry recording to its file exporter, the way
// `"telemetry": {"enabled": true, "target": "local", "outfile": …}` in
// settings.json sets it up; the file is a temporary one, removed at exit.
// A native side whose release the preload does not serve (for either
// provider) says why in its ready message and exits: the driver measures a
// stock side in its place.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { startQwenGenerators } from '../devtools/qwen-generator.mjs';
import { startQwenTelemetryGenerators } from '../devtools/qwen-telemetry-generators.mjs';
import { qwenCases } from './qwen-cases.mjs';

const [packageDir, mode, ...flags] = process.argv.slice(2);
const cases = qwenCases(flags.includes('--smoke'));
const baseUrl = flags.includes('--base-url') ? flags[flags.indexOf('--base-url') + 1] : undefined;
const telemetry = flags.includes('--telemetry');
const telemetryDir = telemetry ? fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-bench-telemetry-')) : undefined;

const start = (side) =>
  telemetry
    ? startQwenTelemetryGenerators({
        packageDir,
        mode: side,
        baseUrl,
        outfile: path.join(telemetryDir, 'telemetry.json'),
      })
    : startQwenGenerators({ packageDir, mode: side, baseUrl });

let qwen;
try {
  qwen = await start(mode);
} catch (err) {
  if (mode !== 'native') throw err;
  if (telemetryDir) fs.rmSync(telemetryDir, { recursive: true, force: true });
  process.send({ ready: false, notServed: err.message }, () => process.exit(0));
  await new Promise(() => {});
}
const bodies = new Map();

/** One stream through Qwen, consumed as Qwen's callers consume it. */
async function once(c) {
  if (!baseUrl) {
    if (!bodies.has(c.name)) bodies.set(c.name, c.body());
    qwen.serve([bodies.get(c.name)]);
  }
  const cpu = process.cpuUsage();
  const start = performance.now();
  const responses = [];
  let error;
  try {
    for await (const r of await qwen.stream(c.provider)) responses.push(r);
  } catch (err) {
    error = `${err?.name}: ${err?.message}`;
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, responses, error };
}

/** What both sides must agree on: every response but its clock-based createTime. */
function digest(responses, error) {
  const hash = createHash('sha256');
  for (const r of responses) hash.update(JSON.stringify({ ...r, createTime: undefined }));
  return `${responses.length}:${hash.digest('hex').slice(0, 16)}${error ? ` ${error}` : ''}`;
}

process.on('message', async ({ name, iterations, minMs = 0, close }) => {
  if (close) {
    // Qwen's telemetry shutdown flushes the file before it is removed.
    await qwen.close();
    if (telemetryDir) fs.rmSync(telemetryDir, { recursive: true, force: true });
    process.send({ closed: true });
    process.disconnect();
    return;
  }
  const c = cases.find((x) => x.name === name);
  const times = [];
  const cpuTimes = [];
  let last;
  const start = performance.now();
  // At least `iterations` streams, and at least `minMs` of them.
  while (times.length < iterations || performance.now() - start < minMs) {
    last = await once(c);
    times.push(last.ms);
    cpuTimes.push(last.cpuMs);
  }
  process.send({ name, times, cpuTimes, digest: digest(last.responses, last.error), stats: qwen.stats });
});
process.send({ ready: true, version: qwen.version });
