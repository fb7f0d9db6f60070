// `npm run bench:qwen` (second part): card latency in `qwen --acp`, stock vs
// toolcall-stream/qwen. Two Qwen processes of the same release against one
// loopback provider, prompts alternating between them; each prompt streams a
// `write_file` call, and the latency is from the provider writing the call's
// start (id and name) to the ACP client receiving its preparing card. The
// preload's report (TOOLCALL_STREAM_QWEN_REPORT) tells which path it took.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startProvider } from '../packages/agent/demo/provider.mjs';
import { openaiCallId } from '../packages/agent/demo/sse-body.mjs';
import { designDocument } from '../packages/agent/demo/scenarios.mjs';
import { launchQwen } from '../devtools/qwen-acp.mjs';
import { sideAnswer } from '../devtools/qwen-side-requests.mjs';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const preload = pathToFileURL(fileURLToPath(new URL('../lib/qwen/preload.mjs', import.meta.url))).href;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * The preload side's path from its report, one line per Qwen process that
 * ran cli.js: the streams it converted from the raw body or from SDK
 * objects, or why it ran stock.
 */
function preloadPath(reportFile, provider) {
  let lines = [];
  try {
    lines = fs
      .readFileSync(reportFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  } catch {
    return 'no report';
  }
  const stock = lines.find((l) => !l.active);
  if (stock) return `runs stock: ${stock.reason}`;
  const sum = (key) => lines.reduce((n, l) => n + l.streams[provider][key], 0);
  const paths = [];
  if (sum('bytes')) paths.push(`raw body ×${sum('bytes')}`);
  const objects = sum(provider === 'anthropic' ? 'objects' : 'chunks');
  if (objects) paths.push(`SDK objects ×${objects}`);
  const fallbacks = lines.reduce((n, l) => n + l.fallbacks, 0);
  if (fallbacks) paths.push(`stock (fallback) ×${fallbacks}`);
  return paths.join(' + ') || 'none';
}

/** Median ms from call start to preparing card, per side, for one release and provider (and every sample), and the preload's path. */
export async function cardLatency({ version, provider, runs }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-cards-'));
  const sides = ['stock', 'preload'];
  const scenarios = {};
  for (const side of sides)
    for (let i = 0; i < runs; i++) {
      const id = `toolu_01Card${side}${i}`;
      scenarios[`${side}-${i}`] = {
        prompt: `Write card bench file ${side} ${i}.`,
        turns: [
          [
            {
              blocks: [
                { type: 'text', text: 'Writing it.' },
                {
                  type: 'tool_use',
                  id,
                  name: 'write_file',
                  input: { file_path: path.join(root, `${side}-${i}.md`), content: designDocument() },
                },
              ],
              stop: 'tool_use',
            },
          ],
          [{ blocks: [{ type: 'text', text: 'Done.' }], stop: 'end_turn' }],
        ],
      };
    }
  const server = await startProvider({ speed: 20, scenarios, fallback: sideAnswer });
  const reportFile = path.join(root, 'preload-report.ndjson');
  const starts = new Map();
  server.events.on('frame', ({ note, at }) => {
    if (note?.tool && note.argSent === undefined && note.argsComplete === undefined && !starts.has(note.id))
      starts.set(note.id, at);
  });
  const qwen = {};
  try {
    for (const side of sides)
      qwen[side] = await launchQwen({
        version,
        provider,
        providerUrl: server.url,
        cwd: REPO,
        nodeOptions: side === 'preload' ? `--import=${preload}` : undefined,
        env: side === 'preload' ? { TOOLCALL_STREAM_QWEN_REPORT: reportFile } : {},
        retryInitialDelayMs: 100,
      });
    const latency = { stock: [], preload: [] };
    for (let i = 0; i < runs; i++) {
      for (const side of i % 2 ? [...sides].reverse() : sides) {
        const q = qwen[side];
        const sessionId = await q.newSession(root);
        await q.prompt(sessionId, scenarios[`${side}-${i}`].prompt);
        const rawId = `toolu_01Card${side}${i}`;
        const id = provider === 'openai' ? openaiCallId(rawId) : rawId;
        const card = q
          .updates(sessionId)
          .find((e) => e.update.sessionUpdate === 'tool_call' && e.update.toolCallId === id);
        if (!card || !starts.has(id)) throw new Error(`no card or no start for ${id}`);
        latency[side].push(card.at - starts.get(id));
      }
    }
    for (const side of sides) await qwen[side].close();
    return {
      stock: median(latency.stock),
      preload: median(latency.preload),
      samples: latency,
      path: preloadPath(reportFile, provider),
    };
  } finally {
    for (const side of sides) await qwen[side]?.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
