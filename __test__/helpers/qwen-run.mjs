// Runs one Qwen Code release's own content generator — stock, or with
// toolcall-stream/qwen installed — on corpus streams served by a loopback
// HTTP server, through Qwen's own SDK client, and prints what Qwen's callers
// would see, as JSON lines (one per stream):
//
//   node qwen-run.mjs <packageDir> <anthropic|openai> <stock|native> <stream.json>...
//
// A stream element {"__throw__": {...}} makes the server cut the connection
// there (a transport error).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { importHookPoints } from '../../lib/qwen/locate.mjs';
import { install, newStats } from '../../lib/qwen/install.mjs';

const [packageDir, provider, mode, ...files] = process.argv.slice(2);
const pkg = {
  dir: packageDir,
  version: JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version,
};

// Generated tool-call ids (`call_<ms>_<random>`) repeat with a seeded Math.random.
let seed = 42;
Math.random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const stats = newStats();
if (mode === 'native') {
  const outcome = await install(pkg, stats);
  if (!outcome.active) throw new Error(`not installed: ${outcome.reason}`);
}
const q = await importHookPoints(pkg.dir, pkg.version, [
  'AnthropicContentGenerator',
  'createOpenAIContentGenerator',
  'GenerateContentResponse',
  'getToolCallPreparations',
  'InvalidStreamError',
  'preloadRuntimeFetchModule',
]);
if (q.preloadRuntimeFetchModule) await q.preloadRuntimeFetchModule();

let current;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    // A stream that ends in a dropped connection is paced, so each event is
    // read before the drop, whoever reads it (the drop must not race the reads).
    const paced = current.some((item) => item?.__throw__);
    for (const item of current) {
      if (paced) await new Promise((r) => setTimeout(r, 15));
      if (item && item.__throw__) {
        res.socket.destroy();
        return;
      }
      if (provider === 'anthropic') res.write(`event: ${item.type}\ndata: ${JSON.stringify(item)}\n\n`);
      else res.write(`data: ${JSON.stringify(item)}\n\n`);
    }
    if (provider === 'openai') res.write('data: [DONE]\n\n');
    res.end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const cliConfig = new Proxy(
  { getCliVersion: () => 'test', getProxy: () => undefined },
  { get: (t, k) => (typeof k === 'symbol' || k === 'then' ? undefined : k in t ? t[k] : () => undefined) },
);
const model = 'test-model';
const generator =
  provider === 'anthropic'
    ? new q.AnthropicContentGenerator({ model, apiKey: 'sk-test', baseUrl: base, authType: 'anthropic' }, cliConfig)
    : q.createOpenAIContentGenerator(
        { model, apiKey: 'sk-test', baseUrl: `${base}/v1`, authType: 'openai' },
        cliConfig,
      );

const plain = (v) => JSON.parse(JSON.stringify(v));
for (const file of files) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  current = Array.isArray(raw) ? raw : (raw.events ?? raw.chunks);
  const responses = [];
  let error;
  try {
    const stream = await generator.generateContentStream(
      { model, contents: [{ role: 'user', parts: [{ text: 'hi' }] }], config: {} },
      'prompt-1',
    );
    for await (const r of stream) {
      responses.push({
        json: plain(r),
        preparations: plain(q.getToolCallPreparations(r)),
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
process.stdout.write(JSON.stringify({ stats }) + '\n');
server.close();
