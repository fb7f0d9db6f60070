// PreparationTracker with a host emitter against Qwen Code's own
// ToolCallPreparationTracker (packages/cli/src/acp-integration/session/
// tool-call-preparation-tracker.ts), imported from the published bundle: both
// get the same emitter answers (true, false, other truthy and falsy values,
// sync, async, thenables, throwing and rejecting emitters) and the same
// observe / resolve / discard calls, and must make the same emitStart and
// emitPreparationDiscarded calls and settle the same way. The class is the
// same text in every release from 0.21.2 to 0.24.4; the two ends are run.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { QWEN_VERSIONS, qwenBuildOrSkip } from '../devtools/qwen-builds.mjs';
import { importUnexported, unexportedSkip } from './helpers/qwen-unexported.mjs';
import { importHookPoints } from '../lib/qwen/hook-points.mjs';
import { findExporters } from '../lib/qwen/inspect.mjs';

const require = createRequire(import.meta.url);
const { ToolCallCards, PreparationTracker, setToolCallPreparations } = require('../index.js');

// ---- emitter answers --------------------------------------------------------
// Each is a function of the call it answers; a fresh value per call.
const sync = (value) => () => value;
const later = (value) => () => new Promise((resolve) => setImmediate(() => resolve(value)));
const thenable = (value) => () => ({ then: (resolve) => resolve(value) });
const throws = (what) => {
  throw new Error(`${what} failed`);
};
const rejects = (what) => Promise.reject(new Error(`${what} failed`));

/** An answer the scenario gives later, by a `release` step. */
function held(value) {
  const gate = {};
  const answer = () =>
    new Promise((resolve) => {
      gate.release = () => resolve(value);
    });
  answer.gate = gate;
  return answer;
}

/**
 * A host emitter whose answers are scripted per call id (`start[id]`,
 * `discard[id]`: one answer per ask, the last one repeating; a shown start
 * and an `undefined` discard when unscripted). `log` gets every call;
 * `shown` gets, per emitStart call, whether its answer showed the card.
 */
function scriptedEmitter(script, log, shown) {
  const asked = new Map();
  const next = (table, key, fallback) => {
    const answers = table?.[key] ?? [fallback];
    const n = asked.get(`${table === script.start}:${key}`) ?? 0;
    asked.set(`${table === script.start}:${key}`, n + 1);
    return answers[Math.min(n, answers.length - 1)];
  };
  return {
    emitStart(params) {
      log.push(['emitStart', JSON.parse(JSON.stringify(params))]);
      const at = shown.push(false) - 1;
      const answer = next(script.start, params.callId, sync(true))(`emitStart ${params.callId}`);
      Promise.resolve(answer).then(
        (value) => (shown[at] = Boolean(value)),
        () => {},
      );
      return answer;
    },
    emitPreparationDiscarded(callId, toolName) {
      log.push(['emitPreparationDiscarded', callId, toolName]);
      return next(script.discard, callId, sync(undefined))(`emitPreparationDiscarded ${callId}`);
    },
  };
}

/** `preparations` as `[callId, toolName?]`, the tool named after the id when left out. */
const preparationsOf = (list) => list.map(([callId, toolName = `tool_${callId}`]) => ({ callId, toolName }));

/** How a call settled: a value, or the rejection's message. */
async function settled(promise) {
  try {
    return { value: await promise };
  } catch (error) {
    return { rejected: error.message };
  }
}

/**
 * Runs `steps` on one tracker; returns every emitter call and how each step
 * settled, in order. Steps: `['observe', [[id, tool?], …]]`, `['resolve',
 * calls]`, `['discard', includeResolved]`, `['observeBegin', …]` /
 * `['observeEnd']` (an observe left running while other steps go on), and
 * `['release', id]` (settles a `held` answer).
 */
async function run(side, scenario, shown = []) {
  const log = [];
  const tracker = side.tracker(scriptedEmitter(scenario.script, log, shown));
  let running;
  for (const [step, arg] of scenario.steps) {
    if (step === 'observe') {
      log.push(['observe settled', await settled(tracker.observe(side.response(preparationsOf(arg))))]);
    } else if (step === 'observeBegin') {
      running = settled(tracker.observe(side.response(preparationsOf(arg))));
    } else if (step === 'observeEnd') {
      log.push(['observe settled', await running]);
    } else if (step === 'release') {
      scenario.script.start[arg].at(-1).gate.release();
    } else if (step === 'resolve') {
      tracker.resolve(arg);
    } else if (step === 'discard') {
      log.push(['discard settled', await settled(tracker.discard(arg))]);
    } else {
      throw new Error(`unknown step ${step}`);
    }
  }
  return log;
}

/** The cards a run's emitter showed and no discard ended since. */
function shownCards(log, shown) {
  const open = new Set();
  let n = 0;
  for (const entry of log) {
    if (entry[0] === 'emitStart' && shown[n++]) open.add(entry[1].callId);
    if (entry[0] === 'emitPreparationDiscarded') open.delete(entry[1]);
  }
  return [...open].sort();
}

/** Every scenario's script is rebuilt per run: `held` answers are single-use. */
const scenarios = [
  {
    name: 'shown starts: the unresolved are discarded once, the resolved only when the attempt is abandoned',
    script: () => ({ start: {} }),
    steps: [
      ['observe', [['a'], ['b']]],
      ['observe', [['a'], ['b'], ['c']]],
      ['resolve', [{ id: 'a' }, { id: '' }, {}, { id: 'not-prepared' }]],
      ['discard', false],
      ['discard', false],
    ],
  },
  {
    name: 'an abandoned attempt discards resolved cards too, and the next attempt asks about them again',
    script: () => ({ start: {} }),
    steps: [
      ['observe', [['a'], ['b']]],
      ['resolve', [{ id: 'a' }, { id: 'b' }]],
      ['discard', true],
      ['observe', [['a'], ['b']]],
      ['resolve', [{ id: 'b' }]],
      ['discard', false],
    ],
  },
  {
    name: 'a declined start is recorded: never asked again, never discarded, not resolvable',
    script: () => ({ start: { a: [sync(false)], c: [sync(false)] } }),
    steps: [
      ['observe', [['a', 'todo_write'], ['b']]],
      ['observe', [['a', 'todo_write'], ['b'], ['c']]],
      ['resolve', [{ id: 'a' }, { id: 'c' }]],
      ['discard', true],
      ['observe', [['a', 'todo_write'], ['c']]],
      ['discard', true],
    ],
  },
  {
    name: 'answers that are not booleans count by truthiness',
    script: () => ({
      start: {
        a: [sync(undefined)],
        b: [sync(0)],
        c: [sync('')],
        d: [sync(null)],
        e: [sync(1)],
        f: [sync('yes')],
        g: [sync({})],
      },
    }),
    steps: [
      ['observe', [['a'], ['b'], ['c'], ['d'], ['e'], ['f'], ['g']]],
      ['observe', [['a'], ['b'], ['c'], ['d'], ['e'], ['f'], ['g']]],
      ['discard', false],
    ],
  },
  {
    name: 'async answers: promises and thenables, shown and declined',
    script: () => ({
      start: { a: [later(true)], b: [later(false)], c: [thenable(true)], d: [thenable(false)] },
      discard: { a: [later(undefined)], c: [thenable('ignored')] },
    }),
    steps: [
      ['observe', [['a'], ['b'], ['c'], ['d']]],
      ['observe', [['a'], ['b'], ['c'], ['d']]],
      ['discard', true],
    ],
  },
  {
    name: 'a throwing emitStart records nothing: observe rejects, the rest wait, the call is asked again',
    script: () => ({ start: { a: [throws, sync(true)] } }),
    steps: [
      ['observe', [['a'], ['b']]],
      ['discard', true],
      ['observe', [['a'], ['b']]],
      ['discard', false],
    ],
  },
  {
    name: 'a rejecting emitStart records nothing, and its next answer counts',
    script: () => ({ start: { b: [rejects, later(false)] } }),
    steps: [
      ['observe', [['a'], ['b'], ['c']]],
      ['observe', [['a'], ['b'], ['c']]],
      ['observe', [['b'], ['c']]],
      ['discard', true],
    ],
  },
  {
    name: 'a failing discard: every card is tried, the first failure wins, none is discarded twice',
    script: () => ({ start: {}, discard: { a: [later(undefined)], b: [rejects], c: [throws], d: [later(true)] } }),
    steps: [
      ['observe', [['a'], ['b'], ['c'], ['d']]],
      ['discard', false],
      ['discard', true],
    ],
  },
  {
    name: 'a preparation repeated within one response is asked about once',
    script: () => ({ start: { a: [later(true)], b: [sync(false)] } }),
    steps: [
      ['observe', [['a'], ['a'], ['b'], ['b']]],
      ['discard', false],
    ],
  },
  {
    name: 'a start still awaiting its answer is not discarded, and is discarded once shown',
    script: () => ({ start: { a: [held(true)] } }),
    steps: [['observeBegin', [['a'], ['b']]], ['discard', true], ['release', 'a'], ['observeEnd'], ['discard', true]],
  },
  {
    name: 'a start still awaiting its answer cannot be resolved, and a decline then leaves nothing',
    script: () => ({ start: { a: [held(false)] } }),
    steps: [['observeBegin', [['a']]], ['resolve', [{ id: 'a' }]], ['release', 'a'], ['observeEnd'], ['discard', true]],
  },
];

for (const version of QWEN_VERSIONS) {
  const build = qwenBuildOrSkip(version);
  describe(
    `PreparationTracker with an emitter answers as Qwen Code ${version}'s tracker`,
    { skip: build.skip ?? unexportedSkip },
    () => {
      let qwen, ours, QwenEmitter;
      before(async () => {
        const QwenTracker = await importUnexported(build.dir, 'ToolCallPreparationTracker');
        const names = ['setToolCallPreparations', 'ToolCallEmitter'];
        const hooks = await importHookPoints(findExporters(build.dir, names), names);
        const setQwenPreparations = hooks.setToolCallPreparations;
        QwenEmitter = hooks.ToolCallEmitter;
        qwen = {
          Tracker: QwenTracker,
          tracker: (emitter) => new QwenTracker(emitter),
          response: (preparations) => {
            const response = {};
            setQwenPreparations(response, preparations);
            return response;
          },
        };
        ours = {
          cards: undefined,
          // No tool is suppressed by name: the emitter alone decides, as in Qwen.
          tracker(emitter) {
            this.cards = new ToolCallCards({ suppressedTools: [] });
            return new PreparationTracker(this.cards, { emitter });
          },
          response: (preparations) => {
            const response = {};
            setToolCallPreparations(response, preparations);
            return response;
          },
        };
      });

      for (const scenario of scenarios) {
        it(scenario.name, async () => {
          const want = await run(qwen, { ...scenario, script: scenario.script() });
          const shown = [];
          const got = await run(ours, { ...scenario, script: scenario.script() }, shown);
          assert.ok(
            want.some((e) => e[0] === 'emitStart'),
            'the scenario asks the emitter (Qwen read the preparations)',
          );
          assert.deepEqual(got, want);
          // The ledger holds exactly the cards the emitter showed and no discard ended.
          assert.deepEqual([...ours.cards.openIds()].sort(), shownCards(got, shown));
        });
      }

      it("with Qwen's own ToolCallEmitter, the client gets the same updates", async () => {
        // What a Qwen maintainer gets by swapping the tracker and keeping the
        // emitter: the emitter (packages/cli/src/acp-integration/session/
        // emitters/ToolCallEmitter.ts) declines TodoWrite, which the default
        // cards suppress by name as well, and sends its own frames.
        const steps = async (side, tracker) => {
          const prepared = [
            ['a', 'read_file'],
            ['b', 'todo_write'],
            ['c', 'mcp__files__search'],
          ];
          await tracker.observe(side.response(preparationsOf(prepared)));
          await tracker.observe(side.response(preparationsOf([...prepared, ['d', 'run_shell_command']])));
          tracker.resolve([{ id: 'a' }, { id: 'b' }]);
          await tracker.discard(true);
          await tracker.observe(side.response(preparationsOf(prepared)));
          tracker.resolve([{ id: 'c' }]);
          await tracker.discard(false);
        };
        const want = [];
        await steps(qwen, new qwen.Tracker(new QwenEmitter({ sendUpdate: async (update) => want.push(update) })));
        const got = [];
        const cards = new ToolCallCards();
        await steps(
          ours,
          new PreparationTracker(cards, {
            emitter: new QwenEmitter({ sendUpdate: async (update) => got.push(update) }),
          }),
        );
        assert.equal(
          want.filter((u) => u.status === 'pending').length,
          5,
          'Qwen showed a, c and d, then a and c again',
        );
        assert.deepEqual(got, want);
        assert.deepEqual(cards.openIds(), ['c'], 'the resolved card waits for its execution');
      });
    },
  );
}
