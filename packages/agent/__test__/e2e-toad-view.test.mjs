// What a Toad user reads on the agent's cards, from Toad's own widgets: Toad
// (PyPI batrachian-toad, pinned in helpers/toad.mjs) runs headless under
// Textual's pilot (python/toad_driver.py) with toolcall-stream-agent as its
// ACP agent over real stdio pipes, the real Anthropic SDK inside the agent
// against the loopback provider; the driver samples the rendered header of
// each tool-call card every 200 ms. Toad shows a card's title and a status
// mark (⌛ pending, a "failed" pill, ✔ completed: toad/widgets/tool_call.py,
// ToolCallHeader). Three demo scenarios, the agent waiting half a second
// before each retry so that a discarded card's header stays long enough to
// be sampled: both stalls of a write naming the agent's idle limit, and a
// retry and a model fallback each saying why the call did not run. (The
// driver has no Stop, and waits for a turn that ends in an error forever:
// e2e-zed-view.test.mjs covers the cancel and the cut stream with Zed's rules.)
//
// TOOLCALL_STREAM_ZED_VIEW_BREAK=title|status|name|progress starts the agent
// through helpers/zed-broken-agent.mjs, which removes that part of its tool
// frames (a deliberately broken agent): each assertion here fails under at
// least one of them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProvider } from '../demo/provider.mjs';
import { agentArgs } from '../demo/harness.mjs';
import { scenarios, FALLBACK_MODEL } from '../demo/scenarios.mjs';
import { workspaces } from './helpers/e2e.mjs';
import { ensureToad, runToad, quote, TOAD_VERSION } from './helpers/toad.mjs';

const BROKEN_AGENT = fileURLToPath(new URL('./helpers/zed-broken-agent.mjs', import.meta.url));
/** Shorter than the scenario's 2.6 s pauses, so each is announced. */
const PROGRESS_STALL_MS = 1200;
/** The agent's idle limit: longer than those pauses. */
const STALL_TIMEOUT_MS = 4000;
/** Longer than the driver's 200 ms between samples: the discarded header is on screen that long. */
const RETRY_DELAY_MS = 500;

const env = ensureToad();
if (env.skip) console.error(`e2e-toad-view: skipped: ${env.skip}`);
const skip = env.skip ? `Toad is not available: ${env.skip}` : false;

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-toad-view-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

/**
 * Every header Toad showed, in the order each first appeared (headers are
 * sampled by what is laid out, so a card's position in a sample can shift),
 * and the headers of the last sample, taken after the turn.
 */
function headers(samples) {
  const seen = new Set();
  for (const { cards } of samples) for (const text of cards) seen.add(text);
  return { shown: [...seen], last: samples.at(-1)?.cards ?? [] };
}

describe(`Toad ${TOAD_VERSION} as the client: what its tool-card headers say`, { skip }, () => {
  let provider;
  const runs = {};

  before(async () => {
    // The recorded pacing: a turn over before Toad's driver sees it start would never be sampled.
    provider = await startProvider({ speed: 1 });
    const command = [
      process.execPath,
      ...(process.env.TOOLCALL_STREAM_ZED_VIEW_BREAK ? [BROKEN_AGENT] : []),
      ...agentArgs({
        provider: 'anthropic',
        providerUrl: provider.url,
        retryDelayMs: RETRY_DELAY_MS,
        extraArgs: [
          '--approve=always',
          '--progress-stall-ms',
          String(PROGRESS_STALL_MS),
          '--stall-timeout-ms',
          String(STALL_TIMEOUT_MS),
          '--model',
          'replay-primary',
          '--fallback-model',
          FALLBACK_MODEL,
        ],
      }),
    ]
      .map(quote)
      .join(' ');
    // One Toad at a time: several Textual apps side by side on two loaded
    // cores have been seen to exit with a CancelledError of their own.
    for (const [i, name] of ['progress-pauses', 'overloaded-retry', 'fallback-model'].entries()) {
      runs[name] = await runToad(
        env.python,
        command,
        await workspace(),
        scenarios[name].prompt,
        path.join(tmpRoot, `toad-home-${i}`),
      );
    }
  });
  after(() => provider?.close());

  it('Toad ran each turn to its end and took samples', () => {
    for (const [name, run] of Object.entries(runs)) {
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.ok(run.samples.length > 0, `${name}: ${run.stderr}`);
    }
  });

  it('progress-pauses: each stall says how long, why, and when the agent gives up', () => {
    const { shown, last } = headers(runs['progress-pauses'].samples);
    const model = shown.findIndex((t) => t.includes('WriteFile · waiting for the model, '));
    const silent = shown.findIndex((t) => t.includes('WriteFile · no data from the provider, '));
    assert.ok(model > 0 && silent > model, JSON.stringify(shown));
    for (const t of shown.filter((s) => /· (waiting for the model|no data from the provider), /.test(s)))
      assert.match(t, /· (waiting for the model|no data from the provider), \d+ s \([^()]+ gives up at 4 s\) ⌛$/);
    assert.deepEqual(last, ['▶ 🔧 WriteFile: src/table.js ✔']);
  });

  it('fallback-model: the primary model’s card says the call moved to another model', () => {
    const { last } = headers(runs['fallback-model'].samples);
    assert.deepEqual(last, [
      '▶ 🔧 ReadFile · not run: switched to another model ▌failed▐',
      '▶ 🔧 ReadFile: README.md ✔',
    ]);
  });

  it('overloaded-retry: the cut attempt’s cards say the request is being retried; then each completes', () => {
    const { shown, last } = headers(runs['overloaded-retry'].samples);
    for (const title of ['ReadFile', 'ListFiles'])
      assert.ok(
        shown.includes(`▶ 🔧 ${title} · not run: the request is being retried ▌failed▐`),
        JSON.stringify(shown),
      );
    assert.deepEqual(last, ['▶ 🔧 ReadFile: package.json ✔', '▶ 🔧 ListFiles: src ✔']);
  });
});
