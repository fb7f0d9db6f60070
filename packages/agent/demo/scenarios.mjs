// The recorded conversations the loopback provider replays (demo and e2e
// tests). Each scenario is provider-neutral: a list of model turns, each turn a
// list of attempts (attempt N of a request replays attempts[min(N, last)]), each
// attempt a list of content blocks plus how it ends. sse-body.mjs renders an
// attempt as Anthropic Messages SSE or OpenAI chat.completion.chunk SSE with
// the pacing of a fast real model, so the bytes sent are what the real
// APIs send.

/** Deterministic PRNG (mulberry32), so every run replays identical bytes. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A ~5 KB design document: the large `write_file` argument of the demo. */
export function designDocument() {
  const sections = [
    [
      'Goal',
      'Show a tool card in the editor the moment the model names a tool, not when its arguments are complete. Large `write_file` calls spend seconds streaming arguments; execution takes milliseconds.',
    ],
    [
      'Lifecycle',
      'preparing → in_progress → completed | failed. The preparing card carries the stable id and the tool name only — never partial arguments — and never starts execution.',
    ],
    [
      'Providers',
      'Anthropic exposes id and name in `content_block_start`; OpenAI-compatible servers in the first `delta.tool_calls` item. Both are converted natively (Rust, napi-rs) into Gemini `GenerateContentResponse` chunks; the preparation rides out of band in a WeakMap.',
    ],
    [
      'Retries',
      'An abandoned attempt (retry, model fallback, cancel, stream error) ends every card it opened with `failed` + `_meta.preparationDiscarded: true`, and clears the calls it collected, so nothing from a failed attempt is executed.',
    ],
    [
      'Cancellation',
      'session/cancel aborts the provider request; the in-flight cards are discarded and the turn ends with stopReason `cancelled`.',
    ],
    [
      'Invariants',
      'The first frame for a toolCallId is a `tool_call`; no `tool_call_update` for a card that is not open; exactly one terminal frame per card per attempt; every frame validates against the ACP schema.',
    ],
  ];
  const out = ['# Tool-call preparing events — design notes', ''];
  for (const [i, [title, body]] of sections.entries()) {
    out.push(`## ${i + 1}. ${title}`, '', body, '');
    out.push('| step | frame | status | rawInput |', '|---|---|---|---|');
    out.push(
      '| 1 | tool_call | pending | {} |',
      '| 2 | tool_call_update | in_progress | full args |',
      '| 3 | tool_call_update | completed | — |',
      '',
    );
    out.push(
      '```ts',
      `// ${title.toLowerCase()}: café-safe UTF-8 ✓`,
      'for await (const event of modelStream) {',
      '  for (const update of tracker.observe(event)) send(update);',
      '}',
      '```',
      '',
    );
  }
  out.push('## Appendix: a recorded frame log', '', '| t (ms) | frame | toolCallId | status |', '|---:|---|---|---|');
  const log = [
    ['tool_call', 'pending'],
    ['tool_call_update', 'in_progress'],
    ['tool_call_update', 'completed'],
  ];
  for (let i = 0; i < 30; i++)
    out.push(`| ${120 + i * 85} | ${log[i % 3][0]} | toolu_${String(i >> 1).padStart(3, '0')} | ${log[i % 3][1]} |`);
  out.push('', '— end of notes —', '');
  return out.join('\n');
}

/** A long generated fixture: the arguments the cancel scenario never finishes. */
export function longFixture() {
  const rows = [];
  for (let i = 0; i < 600; i++)
    rows.push(`export const case${i} = { input: ${JSON.stringify(`value-${i}-ü`)}, expected: ${i * 7} };`);
  return rows.join('\n') + '\n';
}

const overloaded = { type: 'overloaded_error', message: 'Overloaded' };
const rateLimited = {
  type: 'rate_limit_error',
  message: 'Number of request tokens has exceeded your per-minute rate limit',
};

/** The short note the permission scenarios write. */
export const NOTE = '# Notes\n\n- ask before writing\n';

/** The model the fallback scenario's primary model fails over to. */
export const FALLBACK_MODEL = 'replay-fallback';

/**
 * A `write_file` whose model stops writing twice mid-arguments: once with
 * keep-alives on the connection (the model is slow), once without a byte
 * (the connection is); the same attempt then completes.
 */
function pausingWrite({ prompt, id, path, bytes, pauseMs }) {
  return {
    prompt,
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id,
              name: 'write_file',
              input: { path, content: longFixture().slice(0, bytes) },
              pauses: [
                { fraction: 0.3, ms: pauseMs, keepAlive: true },
                { fraction: 0.6, ms: pauseMs, keepAlive: false },
              ],
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Written.' }], stop: 'end_turn' }],
    ],
  };
}

/**
 * Scenarios, keyed by name. `prompt` is what the client types; the provider
 * recognises the scenario by the last user text of a request and the turn by
 * the number of assistant messages after it.
 */
export const scenarios = {
  'large-write': {
    prompt: 'Write the design notes for tool-call preparing events to docs/design.md.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'thinking',
              text: 'The user wants the design notes written to a file. I will draft them in one write_file call.',
            },
            { type: 'text', text: "I'll write the design notes to docs/design.md." },
            {
              type: 'tool_use',
              id: 'toolu_01WriteDesignNotes',
              name: 'write_file',
              input: { path: 'docs/design.md', content: designDocument() },
            },
          ],
          stop: 'tool_use',
        },
      ],
      [
        {
          blocks: [
            {
              type: 'text',
              text: 'Done: docs/design.md now holds the design notes (lifecycle, providers, retries, cancellation, invariants).',
            },
          ],
          stop: 'end_turn',
        },
      ],
    ],
  },
  'overloaded-retry': {
    prompt: 'Look at package.json and the src directory, then summarise the project.',
    turns: [
      [
        // Attempt 1: read_file completes, list_directory is cut off mid-arguments.
        {
          blocks: [
            { type: 'text', text: 'Let me look at the project first.' },
            { type: 'tool_use', id: 'toolu_01ReadPackageJson', name: 'read_file', input: { path: 'package.json' } },
            { type: 'tool_use', id: 'toolu_01ListSrc', name: 'list_directory', input: { path: 'src' } },
          ],
          interrupt: { block: 2, fraction: 0.5, error: overloaded },
          stop: 'tool_use',
        },
        // Attempt 2 (the retry): the same calls, complete.
        {
          blocks: [
            { type: 'text', text: 'Let me look at the project first.' },
            { type: 'tool_use', id: 'toolu_01ReadPackageJson', name: 'read_file', input: { path: 'package.json' } },
            { type: 'tool_use', id: 'toolu_01ListSrc', name: 'list_directory', input: { path: 'src' } },
          ],
          stop: 'tool_use',
        },
      ],
      [
        {
          blocks: [{ type: 'text', text: 'This is a small Node.js project ("sample-app") with its sources in src/.' }],
          stop: 'end_turn',
        },
      ],
    ],
  },
  'cancel-mid-arguments': {
    prompt: 'Generate the full regression fixture file test/fixtures.js.',
    turns: [
      [
        {
          blocks: [
            { type: 'text', text: 'Generating the fixture file.' },
            {
              type: 'tool_use',
              id: 'toolu_01WriteFixtures',
              name: 'write_file',
              input: { path: 'test/fixtures.js', content: longFixture() },
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Fixtures written.' }], stop: 'end_turn' }],
    ],
  },
  'outside-cwd': {
    prompt: 'Show me /etc/hostname and ../secret.txt.',
    turns: [
      [
        {
          blocks: [
            { type: 'tool_use', id: 'toolu_01ReadEtc', name: 'read_file', input: { path: '/etc/hostname' } },
            { type: 'tool_use', id: 'toolu_01ReadParent', name: 'read_file', input: { path: '../secret.txt' } },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'I can only access files inside the workspace.' }], stop: 'end_turn' }],
    ],
  },
  'todo-plan': {
    prompt: 'Plan the refactor, then list the src directory.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: 'toolu_01TodoWrite',
              name: 'todo_write',
              input: {
                todos: [
                  { id: '1', content: 'Read the current sources', status: 'in_progress' },
                  { id: '2', content: 'Extract the parser into its own module', status: 'pending' },
                  { id: '3', content: 'Update the tests', status: 'pending' },
                ],
              },
            },
            { type: 'tool_use', id: 'toolu_01ListSrcPlan', name: 'list_directory', input: { path: 'src' } },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Plan recorded; src/ has the files to refactor.' }], stop: 'end_turn' }],
    ],
  },
  'reused-id': {
    // Some OpenAI-compatible servers number calls per response, so an id
    // comes back in a later turn; the card must not collide with the old one.
    prompt: 'Read README.md, then package.json.',
    turns: [
      [
        {
          blocks: [{ type: 'tool_use', id: 'toolu_01Same', name: 'read_file', input: { path: 'README.md' } }],
          stop: 'tool_use',
        },
      ],
      [
        {
          blocks: [{ type: 'tool_use', id: 'toolu_01Same', name: 'read_file', input: { path: 'package.json' } }],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Both files read.' }], stop: 'end_turn' }],
    ],
  },
  'http-529': {
    prompt: 'Read README.md.',
    turns: [
      [
        { http: { status: 529, error: overloaded } },
        {
          blocks: [{ type: 'tool_use', id: 'toolu_01ReadReadme', name: 'read_file', input: { path: 'README.md' } }],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'README.md says hello.' }], stop: 'end_turn' }],
    ],
  },
  'permission-write': {
    // A write the user is asked about (default mode): allowed, rejected, or
    // answered for the whole session.
    prompt: 'Write a short note to notes/todo.md.',
    turns: [
      [
        {
          blocks: [
            { type: 'text', text: "I'll write the note." },
            {
              type: 'tool_use',
              id: 'toolu_01WriteNote',
              name: 'write_file',
              input: { path: 'notes/todo.md', content: NOTE },
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Saved notes/todo.md.' }], stop: 'end_turn' }],
    ],
  },
  'two-writes': {
    prompt: 'Write notes/a.md, then notes/b.md, and read README.md.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: 'toolu_01WriteA',
              name: 'write_file',
              input: { path: 'notes/a.md', content: 'a\n' },
            },
          ],
          stop: 'tool_use',
        },
      ],
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: 'toolu_01WriteB',
              name: 'write_file',
              input: { path: 'notes/b.md', content: 'b\n' },
            },
            { type: 'tool_use', id: 'toolu_01ReadReadmeToo', name: 'read_file', input: { path: 'README.md' } },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Both notes written.' }], stop: 'end_turn' }],
    ],
  },
  'rate-limited': {
    // Every attempt is rate limited: after the retries, a 429 RequestError.
    prompt: 'Read package.json (the provider is rate limiting).',
    turns: [[{ http: { status: 429, error: rateLimited } }]],
  },
  'fallback-model': {
    // The primary model is overloaded on every attempt; the fallback model answers.
    prompt: 'Read README.md, with a fallback model.',
    turns: [
      [
        {
          blocks: [{ type: 'tool_use', id: 'toolu_01ReadPrimary', name: 'read_file', input: { path: 'README.md' } }],
          interrupt: { block: 0, fraction: 0.5, error: overloaded },
          stop: 'tool_use',
        },
      ],
    ],
    byModel: {
      [FALLBACK_MODEL]: [
        [
          {
            blocks: [{ type: 'tool_use', id: 'toolu_01ReadFallback', name: 'read_file', input: { path: 'README.md' } }],
            stop: 'tool_use',
          },
        ],
        [{ blocks: [{ type: 'text', text: 'README.md says hello (fallback model).' }], stop: 'end_turn' }],
      ],
    },
  },
  'cut-after-call': {
    // The socket is cut in the second call's arguments. Anthropic has already
    // delivered the first call complete (content_block_stop): that is output,
    // so no transport retry. OpenAI delivers calls only at the finish: nothing
    // was output, so the attempt is retried.
    prompt: 'Read README.md and package.json (the connection drops).',
    turns: [
      [
        {
          blocks: [
            { type: 'tool_use', id: 'toolu_01CutFirst', name: 'read_file', input: { path: 'README.md' } },
            { type: 'tool_use', id: 'toolu_01CutSecond', name: 'read_file', input: { path: 'package.json' } },
          ],
          interrupt: { block: 1, fraction: 0.5, then: 'cut' },
          stop: 'tool_use',
        },
        {
          blocks: [
            { type: 'tool_use', id: 'toolu_01CutFirst', name: 'read_file', input: { path: 'README.md' } },
            { type: 'tool_use', id: 'toolu_01CutSecond', name: 'read_file', input: { path: 'package.json' } },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Both read.' }], stop: 'end_turn' }],
    ],
  },
  // The model stops writing twice mid-arguments (pausingWrite): 6.5 s each
  // in the demo; 2.6 s each for tests that shorten the stall time.
  'pause-mid-arguments': pausingWrite({
    prompt: 'Write the parser module to src/tokens.js.',
    id: 'toolu_01WritePaused',
    path: 'src/tokens.js',
    bytes: 9000,
    pauseMs: 6500,
  }),
  'progress-pauses': pausingWrite({
    prompt: 'Write the token table to src/table.js.',
    id: 'toolu_01WriteTable',
    path: 'src/table.js',
    bytes: 6000,
    pauseMs: 2600,
  }),
  'stall-mid-arguments': {
    // Attempt 1 goes silent halfway through the arguments (the connection
    // stays open, only keep-alives); the retry completes.
    prompt: 'Write the regression fixtures to test/stalled.js.',
    turns: [
      [
        {
          blocks: [
            {
              type: 'tool_use',
              id: 'toolu_01WriteStalled',
              name: 'write_file',
              input: { path: 'test/stalled.js', content: 'export const ok = true;\n'.repeat(40) },
            },
          ],
          interrupt: { block: 0, fraction: 0.5, then: 'stall' },
          stop: 'tool_use',
        },
        {
          blocks: [
            {
              type: 'tool_use',
              id: 'toolu_01WriteStalled',
              name: 'write_file',
              input: { path: 'test/stalled.js', content: 'export const ok = true;\n'.repeat(40) },
            },
          ],
          stop: 'tool_use',
        },
      ],
      [{ blocks: [{ type: 'text', text: 'Fixtures written.' }], stop: 'end_turn' }],
    ],
  },
};

/** Files every scenario expects in the session's cwd. */
export const workspaceFiles = {
  'package.json': JSON.stringify({ name: 'sample-app', version: '1.0.0', main: 'src/index.js' }, null, 2) + '\n',
  'README.md': '# sample-app\n\nHello.\n',
  'src/index.js': "module.exports = require('./parser');\n",
  'src/parser.js': 'module.exports = (s) => s.split(",");\n',
};
