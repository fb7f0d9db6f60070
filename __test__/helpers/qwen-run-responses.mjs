// Runs one Qwen Code release's own OpenAI Responses generator — stock, or
// with toolcall-stream/qwen installed — on Responses streams served over
// loopback HTTP, and prints what Qwen's callers see, one JSON line per
// stream:
//
//   node qwen-run-responses.mjs <packageDir> <stock|native> <cases.json>
//
// `cases.json` is an array of `{name, pieces, latin1}`: each piece a string
// written to the body as it is (bytes as latin1 text where `latin1`, so a
// piece may end inside a UTF-8 character), or `null` where the connection
// drops, or a number: a pause of that many milliseconds (the body stays
// open). `guards` sets the generator's idle and lifetime limits
// (`streamIdleTimeoutMs`, `streamMaxLifetimeMs`: Qwen's own guards in
// iterateBody's readChunk); `abortAfter: n` aborts the request's signal
// once n responses have arrived. Each body is asked for twice: streaming
// (generateContentStream) and not (generateContent). Qwen is set up
// as its `openai-responses` auth type sets it up: the generator's factory
// (createOpenAIResponsesContentGenerator, packages/core/src/core/contentGenerator.ts
// picks it for AuthType.USE_OPENAI_RESPONSES) with the provider's base URL,
// key and model; the pipeline posts to `<baseUrl>/v1/responses`, which the
// loopback server answers whatever the path. Its retries are off
// (maxRetries: 0), so each case is one request.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { importHookPoints } from '../../lib/qwen/hook-points.mjs';
import { findExporters } from '../../lib/qwen/inspect.mjs';
import { install, newStats } from '../../lib/qwen/install.mjs';

const [packageDir, mode, casesFile] = process.argv.slice(2);
const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;

const stats = newStats();
if (mode === 'native') {
  const outcome = await install({ dir: packageDir, version }, stats);
  if (!outcome.openaiResponses.served)
    throw new Error(`toolcall-stream/qwen does not serve the Responses generator: ${outcome.openaiResponses.reason}`);
}
const names = [
  'createOpenAIResponsesContentGenerator',
  'GenerateContentResponse',
  'getToolCallPreparations',
  'getGenAiUsageProvenance',
  'getThoughtSummary',
  'createOpenAIReasoningThoughtPart',
  'preloadRuntimeFetchModule',
];
const q = await importHookPoints(findExporters(packageDir, names), names);
if (q.preloadRuntimeFetchModule) await q.preloadRuntimeFetchModule();
const [REASONING_MARKER] = Object.getOwnPropertySymbols(q.createOpenAIReasoningThoughtPart(''));

let body = [];
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    const paced = body.includes(null) || body.some((p) => typeof p === 'number');
    for (const piece of body) {
      // A body that ends in a dropped connection or pauses is paced, so each piece is read on its own.
      if (paced) await new Promise((r) => setTimeout(r, 10));
      if (res.destroyed) return;
      if (typeof piece === 'number') {
        await new Promise((r) => setTimeout(r, piece));
        continue;
      }
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

// Qwen's CLI Config, the one stand-in: what the generator reads of it answers undefined.
const cliConfig = new Proxy(
  { getCliVersion: () => 'test', getProxy: () => undefined },
  { get: (t, k) => (typeof k === 'symbol' || k === 'then' ? undefined : k in t ? t[k] : () => undefined) },
);
const model = 'test-model';
/** The generator, its guards set where a case asks (the pipeline resolves them once, as it is built). */
const generatorOf = (guards = {}) =>
  q.createOpenAIResponsesContentGenerator(
    {
      model,
      apiKey: 'sk-test',
      baseUrl: `http://127.0.0.1:${server.address().port}`,
      authType: 'openai-responses',
      maxRetries: 0,
      ...(guards.idleMs === undefined ? {} : { streamIdleTimeoutMs: guards.idleMs }),
      ...(guards.lifetimeMs === undefined ? {} : { streamMaxLifetimeMs: guards.lifetimeMs }),
    },
    cliConfig,
  );
const plainGenerator = generatorOf();

/**
 * A response's JSON text, key order included, its createTime masked: stock
 * reads `Date.now()` (makeChunkResponse), the native converter its own
 * millisecond clock; either is 13 digits, and anything else stays to differ.
 */
const text = (r, replacer) => JSON.stringify(r, replacer).replace(/"createTime":"\d{13}"/g, '"createTime":"<now>"');

/**
 * A text part's message metadata (0.23.4 on) is one object per output, to
 * which Qwen adds a `phase` at the output's `output_item.done` or at
 * `response.completed`, after the part was yielded (ResponsesStreamState.updateMessage).
 * The native converter converts a read at once, so a part yielded from the
 * same read as that event already shows the phase. Qwen reads the metadata
 * only from the parts it kept, after the stream (getResponsesMessage, in
 * the next request's input and in GeminiChat's consolidation): compared
 * there (`kept`), and as the message id where a response is yielded.
 */
const messageAsId = (key, value) =>
  key === 'responsesMessage' && value && typeof value === 'object' ? { id: value.id } : value;

/** A response as Qwen's callers read it when it is yielded: its JSON text and Qwen's getters. */
const record = (r) => ({
  json: text(r, messageAsId),
  qwenClass: r instanceof q.GenerateContentResponse,
  preparations: JSON.stringify(q.getToolCallPreparations(r)),
  usageProvenance: r.usageMetadata ? JSON.stringify(q.getGenAiUsageProvenance(r.usageMetadata)) : null,
  thoughtSummary: q.getThoughtSummary(r) ?? null,
  reasoningMarks: (r.candidates?.[0]?.content?.parts ?? []).map((p) =>
    Boolean(p && typeof p === 'object' && Object.getOwnPropertyDescriptor(p, REASONING_MARKER)),
  ),
});

const errorRecord = (err) => ({
  class: err?.constructor?.name,
  name: err?.name,
  message: err?.message,
  type: err?.type,
  code: err?.code,
  status: err?.status,
  keys: err && typeof err === 'object' ? Object.keys(err) : [],
});

for (const { name, pieces, latin1, guards, abortAfter } of JSON.parse(fs.readFileSync(casesFile, 'utf8'))) {
  body = pieces.map((p) => (p === null || typeof p === 'number' ? p : Buffer.from(p, latin1 ? 'latin1' : 'utf8')));
  const generator = guards ? generatorOf(guards) : plainGenerator;
  const abort = new AbortController();
  const request = {
    model,
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    config: { abortSignal: abort.signal },
  };
  const responses = [];
  const seen = [];
  let error;
  try {
    for await (const r of await generator.generateContentStream(request, 'prompt-1')) {
      seen.push(r);
      responses.push(record(r));
      if (seen.length === abortAfter) abort.abort();
    }
  } catch (err) {
    error = errorRecord(err);
  }
  // What a caller that keeps the responses sees at the end, message metadata included.
  const kept = seen.map((r) => text(r));
  // The non-streaming call: the same body through Qwen's execute(), merged by its mergeStreamResponses.
  let merged;
  if (abortAfter === undefined) {
    try {
      merged = { json: text(await generator.generateContent(request, 'prompt-1')) };
    } catch (err) {
      merged = { error: errorRecord(err) };
    }
  }
  process.stdout.write(JSON.stringify({ name, responses, kept, error, merged }) + '\n');
}
process.stdout.write(JSON.stringify({ stats: stats.openaiResponses }) + '\n');
server.close();
server.closeAllConnections();
