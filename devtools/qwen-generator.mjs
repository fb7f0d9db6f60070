// Qwen Code's own content generators — stock, or with toolcall-stream/qwen
// installed — with their real SDK clients pointed at a loopback HTTP server
// that answers every request with the body it was last given (in this
// process, or another's). Shared by the differential test (qwen-run.mjs) and
// `npm run bench:qwen`.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';
import { findExporters } from '../lib/qwen/inspect.mjs';
import { install, newStats } from '../lib/qwen/install.mjs';

/**
 * The loopback provider: an HTTP server that answers every request with the
 * body it was last given (`serve(pieces)`: strings or buffers written one by
 * one; `null` drops the connection there).
 */
export async function startLoopbackProvider() {
  let body = [];
  let paced = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      for (const piece of body) {
        // A body that ends in a dropped connection is paced, so each piece is
        // read before the drop, whoever reads it (the drop must not race the reads).
        if (paced) await new Promise((r) => setTimeout(r, 15));
        if (piece === null) {
          res.socket.destroy();
          return;
        }
        res.write(piece);
      }
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    serve(pieces) {
      body = pieces;
      paced = pieces.includes(null);
    },
    close: () =>
      new Promise((r) => {
        server.close(r);
        server.closeAllConnections();
      }),
  };
}

/**
 * @param {{packageDir: string, mode: 'stock'|'native', baseUrl?: string}} options
 *   `baseUrl`: a provider running elsewhere (another process's
 *   startLoopbackProvider); without it, one is started in this process.
 * @returns the generators, `serve(chunks)` (the next response body of this
 *   process's provider), the stats, close()
 */
export async function startQwenGenerators({ packageDir, mode, baseUrl }) {
  const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
  const stats = newStats();
  if (mode === 'native') {
    const outcome = await install({ dir: packageDir, version }, stats);
    for (const p of ['anthropic', 'openai'])
      if (!outcome[p].served) throw new Error(`toolcall-stream/qwen does not serve ${p}: ${outcome[p].reason}`);
  }
  const names = [
    'AnthropicContentGenerator',
    'createOpenAIContentGenerator',
    'GenerateContentResponse',
    'getToolCallPreparations',
    'getGenAiUsageProvenance',
    'createOpenAIReasoningThoughtPart',
    'getThoughtSummary',
    'InvalidStreamError',
    'preloadRuntimeFetchModule',
  ];
  const q = await importHookPoints(findExporters(packageDir, names), names);
  if (q.preloadRuntimeFetchModule) await q.preloadRuntimeFetchModule();

  const loopback = baseUrl ? undefined : await startLoopbackProvider();
  const base = baseUrl ?? loopback.base;

  // Qwen's CLI Config, the one stand-in: only getCliVersion and getProxy are read here.
  const cliConfig = new Proxy(
    { getCliVersion: () => 'test', getProxy: () => undefined },
    { get: (t, k) => (typeof k === 'symbol' || k === 'then' ? undefined : k in t ? t[k] : () => undefined) },
  );
  // TOOLCALL_STREAM_TEST_MODEL: a model name that changes the provider's response parsing (qwen3).
  const model = process.env.TOOLCALL_STREAM_TEST_MODEL ?? 'test-model';
  const generators = {
    anthropic: new q.AnthropicContentGenerator(
      { model, apiKey: 'sk-test', baseUrl: base, authType: 'anthropic' },
      cliConfig,
    ),
    openai: q.createOpenAIContentGenerator(
      { model, apiKey: 'sk-test', baseUrl: `${base}/v1`, authType: 'openai' },
      cliConfig,
    ),
  };
  const request = { model, contents: [{ role: 'user', parts: [{ text: 'hi' }] }], config: {} };
  return {
    q,
    version,
    generators,
    stats,
    /** The next responses' body: pieces written in order (`null`: the connection drops there). */
    serve(pieces) {
      loopback.serve(pieces);
    },
    /** Qwen's own streaming call, as its callers make it. */
    stream: (provider) => generators[provider].generateContentStream(request, 'prompt-1'),
    close: async () => loopback?.close(),
  };
}

/** A provider stream (events or chunks; `{__throw__}` = dropped connection) as SSE body pieces. */
export function ssePieces(provider, items) {
  const pieces = items.map((item) => {
    if (item && item.__throw__) return null;
    return provider === 'anthropic'
      ? `event: ${item.type}\ndata: ${JSON.stringify(item)}\n\n`
      : `data: ${JSON.stringify(item)}\n\n`;
  });
  if (provider === 'openai' && !pieces.includes(null)) pieces.push('data: [DONE]\n\n');
  return pieces;
}
