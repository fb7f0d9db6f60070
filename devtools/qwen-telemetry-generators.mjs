// Qwen Code's content generators as its CLI makes them, with Qwen's
// OpenTelemetry recording to its own file exporter — stock, or with
// toolcall-stream/qwen installed. Shared by the telemetry differential
// (qwen-telemetry-run.mjs) and `npm run bench:qwen`.
//
// Nothing here stands in for Qwen: its own `Config`, given the telemetry
// settings that `"telemetry": {"enabled": true, "target": "local", "outfile":
// …}` in settings.json resolves to (packages/cli/src/config/config.ts,
// resolveTelemetrySettings), starts Qwen's own OpenTelemetry SDK from its
// constructor (packages/core/src/telemetry/sdk.ts, initializeTelemetry) with
// Qwen's file exporters (telemetry/file-exporters.ts) and its HTTP and undici
// instrumentations. The generators come from Qwen's own
// `createContentGenerator` (core/contentGenerator.ts), so every stream goes
// through its LoggingContentGenerator: the `llm_request` span, the request
// exchange whose telemetry attempt reaches processStream / the pipeline, the
// api_request / api_response / api_error log events and the metrics.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';
import { findExporters } from '../lib/qwen/inspect.mjs';
import { startLoopbackProvider, startQwenGenerators } from './qwen-generator.mjs';

/**
 * @param {{packageDir: string, mode: 'stock'|'native', outfile: string,
 *   baseUrl?: string, captureContent?: boolean}} options
 *   `outfile`: Qwen's telemetry file (spans, logs and metrics, appended).
 *   `baseUrl`: a provider running elsewhere; without it one runs here.
 *   `captureContent`: Qwen's `includeSensitiveSpanAttributes` (the request
 *   and output messages on the span).
 * @returns the Qwen hook points `q`, the generators, `serve(pieces)`, the
 *   preload's stats, `stream(provider)`, close() (flushes the telemetry file)
 */
export async function startQwenTelemetryGenerators({ packageDir, mode, outfile, baseUrl, captureContent = false }) {
  const loopback = baseUrl ? undefined : await startLoopbackProvider();
  const base = baseUrl ?? loopback.base;
  // The preload installed (or not) exactly as in the telemetry-off harness;
  // its stand-in generators are not used here.
  const harness = await startQwenGenerators({ packageDir, mode, baseUrl: base });
  const { q, version, stats } = harness;
  const names = [
    'Config',
    'createContentGenerator',
    'initializeTelemetry',
    'isTelemetrySdkInitialized',
    'shutdownTelemetry',
  ];
  const t = await importHookPoints(findExporters(packageDir, names), names);
  const missing = names.filter((name) => t[name] === undefined);
  if (missing.length) throw new Error(`Qwen Code ${version} exports no ${missing.join(', ')}`);

  // Qwen keeps per-project state under QWEN_HOME (Storage.getGlobalQwenDir):
  // a directory of its own, so nothing lands in the user's ~/.qwen.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-qwen-telemetry-'));
  process.env.QWEN_HOME = home;
  const model = process.env.TOOLCALL_STREAM_TEST_MODEL ?? 'test-model';
  const config = new t.Config({
    sessionId: 'toolcall-stream-telemetry',
    targetDir: home,
    cwd: home,
    debugMode: false,
    model,
    // Qwen's own usage statistics go to a remote service: never from here.
    usageStatisticsEnabled: false,
    telemetry: {
      enabled: true,
      target: 'local',
      outfile,
      logPrompts: true,
      includeSensitiveSpanAttributes: captureContent,
    },
  });
  // The constructor started the SDK; this waits for it (the same promise).
  await t.initializeTelemetry(config);
  if (!t.isTelemetrySdkInitialized()) throw new Error(`Qwen Code ${version}: its telemetry SDK did not start`);

  const generators = {
    anthropic: await t.createContentGenerator(
      { model, apiKey: 'sk-test', baseUrl: base, authType: 'anthropic' },
      config,
    ),
    openai: await t.createContentGenerator(
      { model, apiKey: 'sk-test', baseUrl: `${base}/v1`, authType: 'openai' },
      config,
    ),
  };
  const request = { model, contents: [{ role: 'user', parts: [{ text: 'hi' }] }], config: {} };
  let prompts = 0;
  return {
    q,
    version,
    generators,
    stats,
    serve(pieces) {
      loopback.serve(pieces);
    },
    /** Qwen's own streaming call, as GeminiChat makes it: one prompt id per call. */
    stream: (provider) => generators[provider].generateContentStream(request, `prompt-${prompts++}`),
    /** Ends the session: Qwen's shutdown flushes every span, log record and metric to the file. */
    async close() {
      await t.shutdownTelemetry();
      await harness.close();
      await loopback?.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
