// End to end with a client by other authors, judged by what it shows: Toad
// (PyPI batrachian-toad, pinned in helpers/toad.mjs), a Textual terminal app,
// runs headless under Textual's pilot (__test__/python/toad_driver.py) with
// toolcall-stream-agent as its ACP agent over real stdio pipes, the real
// Anthropic SDK inside the agent against the loopback provider. The prompt
// goes into Toad's prompt box and Enter sends it; the driver samples the
// rendered header of each tool-call card every 200 ms until the turn is over.
// While the write_file arguments stream, with a pause with keep-alives and a
// silent pause, Toad's card counts the bytes up, says why it waits during
// each pause, and then completes, and the file is written.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProvider } from '../demo/provider.mjs';
import { agentArgs } from '../demo/harness.mjs';
import { scenarios } from '../demo/scenarios.mjs';
import { workspaces } from './helpers/e2e.mjs';
import { ensureToad, runToad, quote, TOAD_VERSION } from './helpers/toad.mjs';

/** Shorter than the scenario's 2.6 s pauses, so each is announced. */
const STALL_MS = 1200;

const env = ensureToad();
if (env.skip) console.error(`e2e-toad-client: skipped: ${env.skip}`);
const skip = env.skip ? `Toad is not available: ${env.skip}` : false;

const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'toolcall-stream-e2e-toad-'));
after(() => fs.rm(tmpRoot, { recursive: true, force: true }));
const workspace = workspaces(tmpRoot);

describe(`Toad ${TOAD_VERSION} as the client: what its tool card shows`, { skip }, () => {
  let provider;
  let run;
  let cwd;

  before(async () => {
    provider = await startProvider({ speed: 1 });
    cwd = await workspace();
    const args = agentArgs({
      provider: 'anthropic',
      providerUrl: provider.url,
      retryDelayMs: 5,
      extraArgs: ['--approve=always', '--progress-stall-ms', String(STALL_MS)],
    });
    const command = [process.execPath, ...args].map(quote).join(' ');
    run = await runToad(env.python, command, cwd, scenarios['progress-pauses'].prompt, path.join(tmpRoot, 'toad-home'));
  });
  after(() => provider?.close());

  /** The header of the one card in each sample, in order, without repeats. */
  const titles = () => {
    const shown = [];
    for (const { cards } of run.samples) {
      assert.ok(cards.length <= 1, `one card: ${JSON.stringify(cards)}`);
      if (cards.length && cards[0] !== shown.at(-1)) shown.push(cards[0]);
    }
    return shown;
  };

  it('Toad ran the turn to its end and took samples', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.samples.length > 0, run.stderr);
  });

  it('while the arguments stream, the card counts the bytes up', () => {
    const receiving = titles()
      .map((t) => t.match(/WriteFile · receiving ([\d.]+) (B|KB)(?:, \d+ lines?)? ⌛$/))
      .filter(Boolean)
      .map(([, n, unit]) => Number(n) * (unit === 'KB' ? 1024 : 1));
    assert.ok(receiving.length >= 3, `counts shown: ${JSON.stringify(titles())}`);
    for (let i = 1; i < receiving.length; i++) assert.ok(receiving[i] >= receiving[i - 1], 'never counts down');
    assert.ok(receiving.at(-1) > receiving[0], 'the count grows');
  });

  it('during the pauses it says why it waits: the model first, then the provider; then it counts on', () => {
    const shown = titles();
    // Each names when the agent gives up (its stall watchdog, 240 s by default).
    const model = shown.findIndex((t) =>
      /WriteFile · waiting for the model, \d+ s \(the agent gives up at 240 s\) ⌛$/.test(t),
    );
    const provider = shown.findIndex((t) =>
      /WriteFile · no data from the provider, \d+ s \(the agent gives up at 240 s\) ⌛$/.test(t),
    );
    assert.ok(model > 0, `the pause with keep-alives: ${JSON.stringify(shown)}`);
    assert.ok(provider > model, `the silent pause, after it: ${JSON.stringify(shown)}`);
    assert.ok(
      shown.slice(provider + 1).some((t) => t.includes('WriteFile · receiving')),
      'counting again after the pauses',
    );
  });

  it('then the card completes and the file is written', async () => {
    const last = run.samples.at(-1).cards;
    assert.equal(last.length, 1);
    assert.match(last[0], /src\/table\.js ✔$/);
    const { input } = scenarios['progress-pauses'].turns[0][0].blocks[0];
    assert.equal(await fs.readFile(path.join(cwd, input.path), 'utf8'), input.content);
  });
});
