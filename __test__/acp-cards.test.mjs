// The card lifecycle through the public JS API: ToolCallCards,
// PreparationTracker, ToolCallIds (docs/behaviour.md §4.1, §5.3–§5.5, §6.2, §6.3), every
// frame validated against the ACP schema v1.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { assertValidUpdate, CardClient } from './acp-helpers.mjs';

const require = createRequire(import.meta.url);
const {
  ToolCallCards,
  PreparationTracker,
  ToolCallIds,
  getProviderToolCallId,
  setToolCallPreparations,
  getToolCallPreparations,
  liveHandles,
} = require('../index.js');

/** Asserts frame validity and exact JSON (key order included). */
function assertFrame(actual, expected) {
  assert.notEqual(actual, null);
  assertValidUpdate(actual);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected));
}

function response(parts, preparations) {
  const r = { candidates: [{ content: { role: 'model', parts } }] };
  if (preparations) setToolCallPreparations(r, preparations);
  return r;
}

describe('ToolCallCards', () => {
  it('prepares, starts and finishes one card with the exact docs/behaviour.md §6.2 frames', () => {
    const cards = new ToolCallCards({ describe: (name) => ({ title: `Read: ${name}`, kind: 'read' }) });
    assertFrame(cards.preparing('call-1', 'read_file'), {
      sessionUpdate: 'tool_call',
      toolCallId: 'call-1',
      status: 'pending',
      title: 'Read: read_file',
      name: 'read_file',
      content: [],
      locations: [],
      kind: 'read',
      rawInput: {},
      _meta: { toolName: 'read_file', tool_name: 'read_file', phase: 'preparing', provenance: 'builtin' },
    });
    assertFrame(
      cards.started({
        callId: 'call-1',
        toolName: 'read_file',
        rawInput: { file_path: 'README.md' },
        title: 'ReadFile: README.md',
        locations: [{ path: '/w/README.md' }],
      }),
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1',
        status: 'in_progress',
        title: 'ReadFile: README.md',
        content: [],
        locations: [{ path: '/w/README.md', line: null }],
        kind: 'read',
        rawInput: { file_path: 'README.md' },
        _meta: { toolName: 'read_file', tool_name: 'read_file', provenance: 'builtin' },
      },
    );
    const text = { type: 'content', content: { type: 'text', text: 'hello' } };
    assertFrame(cards.finished('call-1', 'read_file', { status: 'completed', content: [text], rawOutput: 'hello' }), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call-1',
      status: 'completed',
      content: [text],
      _meta: { toolName: 'read_file', tool_name: 'read_file', provenance: 'builtin' },
      rawOutput: 'hello',
    });
    assert.equal(cards.isOpen('call-1'), false);
  });

  it('starts an unprepared call as a tool_call and stamps mcp provenance', () => {
    const cards = new ToolCallCards();
    assertFrame(cards.started({ callId: 'c', toolName: 'mcp__github__create_issue', rawInput: { t: 1 } }), {
      sessionUpdate: 'tool_call',
      toolCallId: 'c',
      status: 'in_progress',
      title: 'mcp__github__create_issue',
      name: 'mcp__github__create_issue',
      content: [],
      locations: [],
      kind: 'other',
      rawInput: { t: 1 },
      _meta: {
        toolName: 'mcp__github__create_issue',
        tool_name: 'mcp__github__create_issue',
        provenance: 'mcp',
        serverId: 'github',
      },
    });
  });

  it("ACP's name: on every tool_call, on an update or permission request only when it changes", () => {
    const cards = new ToolCallCards();
    assert.equal(cards.preparing('a', 'read_file').name, 'read_file');
    assert.equal('name' in cards.started({ callId: 'a', toolName: 'read_file', rawInput: {} }), false);
    cards.preparing('b', 'read_file');
    const renamed = cards.started({ callId: 'b', toolName: 'read_many_files', rawInput: {} });
    assertValidUpdate(renamed);
    assert.deepEqual(Object.keys(renamed).slice(0, 5), ['sessionUpdate', 'toolCallId', 'status', 'title', 'name']);
    assert.equal(renamed.name, 'read_many_files');
    assert.equal(cards.started({ callId: 'c', toolName: 'shell', rawInput: {} }).name, 'shell');
    assert.equal(cards.permission({ callId: 'd', toolName: 'write_file', rawInput: {} }).name, 'write_file');
    cards.preparing('e', 'write_file');
    assert.equal('name' in cards.permission({ callId: 'e', toolName: 'write_file', rawInput: {} }), false);
    for (const frame of [cards.failed('a', 'read_file', 'x'), ...cards.closeAll()])
      assert.equal('name' in frame, false);
  });

  it('a huge or hostile name: every frame small, its name cut, its title printable', () => {
    const name = `\u001b]0;pwned\u0007\u202e\r\n${'n'.repeat(4 << 20)}`;
    const cards = new ToolCallCards();
    const frames = [
      cards.preparing('a', name),
      cards.discarded('a', name),
      cards.started({ callId: 'b', toolName: name, rawInput: {}, title: name }),
      cards.failed('b', name, 'Tool not found'),
      cards.permission({ callId: 'c', toolName: name, rawInput: {} }),
      ...cards.closeAll(),
    ];
    for (const frame of frames) {
      if (frame.sessionUpdate) assertValidUpdate(frame);
      assert.ok(JSON.stringify(frame).length < 1024, `${JSON.stringify(frame).length} characters`);
      for (const shown of [frame.name, frame._meta.toolName, frame._meta.tool_name]) {
        if (shown !== undefined) assert.equal(shown, `${name.slice(0, 119)}…`);
      }
    }
    assert.equal(frames[0].title, `]0;pwned  ${'n'.repeat(109)}…`);
    assert.equal(frames[2].title, `]0;pwned  ${'n'.repeat(245)}…`, 'a described title: up to 256 characters');
  });

  it('emits the protocol-valid discarded preparation frame', () => {
    const cards = new ToolCallCards();
    cards.preparing('call-1', 'mcp__filesystem__read_file');
    assertFrame(cards.discarded('call-1', 'mcp__filesystem__read_file'), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call-1',
      status: 'failed',
      title: 'mcp__filesystem__read_file · not run',
      content: [],
      _meta: {
        toolName: 'mcp__filesystem__read_file',
        tool_name: 'mcp__filesystem__read_file',
        phase: 'preparing',
        preparationDiscarded: true,
        provenance: 'mcp',
        serverId: 'filesystem',
      },
    });
  });

  it('never builds an update for an id without an open card', () => {
    const cards = new ToolCallCards();
    assert.equal(cards.finished('ghost', 'read_file', { status: 'failed' }), null);
    assert.equal(cards.discarded('ghost', 'read_file'), null);
    assert.equal(cards.failed('ghost', 'read_file', 'boom'), null);
    cards.preparing('a', 'read_file');
    assert.notEqual(cards.discarded('a', 'read_file'), null);
    assert.equal(cards.discarded('a', 'read_file'), null, 'one terminal frame per card');
  });

  it('suppresses duplicate preparing frames and re-prepares after a terminal frame', () => {
    const cards = new ToolCallCards();
    assert.notEqual(cards.preparing('a', 'read_file'), null);
    assert.equal(cards.preparing('a', 'read_file'), null);
    cards.failed('a', 'read_file', 'nope');
    assert.equal(cards.preparing('a', 'read_file').sessionUpdate, 'tool_call');
  });

  it('never gives todo_write a card and builds its plan update instead (docs/behaviour.md §6.3)', () => {
    const cards = new ToolCallCards();
    const todos = [{ id: '1', content: 'write tests', status: 'in_progress' }];
    assert.equal(cards.preparing('t', 'todo_write'), null);
    assert.equal(cards.started({ callId: 't', toolName: 'todo_write', rawInput: { todos } }), null);
    assert.equal(cards.discarded('t', 'todo_write'), null);
    assert.equal(cards.finished('t', 'todo_write', { status: 'completed' }), null);
    const plan = cards.plan({ todos });
    assertFrame(plan, {
      sessionUpdate: 'plan',
      entries: [{ content: 'write tests', priority: 'medium', status: 'in_progress' }],
    });
    assertFrame(cards.plan({ todos }, { type: 'todo_list', todos: [] }), { sessionUpdate: 'plan', entries: [] });
    assert.equal(cards.plan(undefined, 'Todos updated'), null);
    assert.equal(cards.plan({}), null);
  });

  it('builds a plan from TodoWrite values nested deeper than any native parser goes, as JSON.parse reads them', () => {
    const cards = new ToolCallCards();
    let deep = 'leaf';
    for (let i = 0; i < 1000; i++) deep = i % 2 ? { deep } : [deep];
    const todos = [
      { content: 'a', status: 'pending', extra: deep },
      { content: deep, status: 'pending' },
      { content: 'b', status: 'completed', id: [deep] },
    ];
    const plan = {
      sessionUpdate: 'plan',
      entries: [
        { content: 'a', priority: 'medium', status: 'pending' },
        { content: 'b', priority: 'medium', status: 'completed' },
      ],
    };
    assertFrame(cards.plan({ todos, meta: deep }), plan);
    const list = { type: 'todo_list', todos, more: deep };
    assertFrame(cards.plan({ todos: [] }, list), plan);
    assertFrame(cards.plan({ todos: [] }, JSON.stringify(list)), plan);
    assertFrame(cards.plan({ todos: [] }, JSON.stringify(JSON.stringify(list))), {
      sessionUpdate: 'plan',
      entries: [],
    });
    assert.equal(cards.plan(deep, deep), null);
    assert.equal(cards.plan(undefined, JSON.stringify(deep)), null);
  });

  it('skips TodoWrite fields of another type, however deep, as the plan reads only strings', () => {
    const cards = new ToolCallCards();
    // Deeper than the native parser goes (512 levels); deeper still is the
    // core's own test (core/src/acp/plan.rs), where no JS engine's stack
    // limit is in the way (Node 20 on Windows has the smallest).
    let deep = 'leaf';
    for (let i = 0; i < 600; i++) deep = { deep };
    const todos = [
      { content: 7, status: 'pending' },
      { content: 'c', status: ['pending'] },
      { content: 'd', status: deep },
      deep,
      [deep],
      null,
      'todo',
      { content: 'e', status: 'completed' },
    ];
    const plan = { sessionUpdate: 'plan', entries: [{ content: 'e', priority: 'medium', status: 'completed' }] };
    assertFrame(cards.plan({ todos }), plan);
    // A display whose type is not the string todo_list is no todo list: the arguments count.
    assertFrame(cards.plan({ todos }, { type: ['todo_list'], todos: [] }), plan);
    assertFrame(cards.plan({ todos }, { type: deep, todos: [] }), plan);
    assertFrame(cards.plan({ todos }, { type: 'todo_list', todos: deep }), plan);
    // As JSON.parse reads display text: the last of duplicate keys counts.
    assertFrame(cards.plan({ todos }, '{"type":"todo_list","todos":[],"todos":[{"content":"f","status":"pending"}]}'), {
      sessionUpdate: 'plan',
      entries: [{ content: 'f', priority: 'medium', status: 'pending' }],
    });
    assert.equal(cards.plan({ todos: deep }), null);
  });

  it('honours custom suppressedTools', () => {
    const cards = new ToolCallCards({ suppressedTools: ['secret'] });
    assert.equal(cards.preparing('a', 'secret'), null);
    assert.notEqual(cards.preparing('b', 'todo_write'), null);
  });

  it('closeAll ends every open card: discarded if preparing, failed if started', () => {
    const cards = new ToolCallCards();
    cards.preparing('p', 'read_file');
    cards.started({ callId: 's', toolName: 'shell', rawInput: { cmd: 'ls' }, status: 'pending' });
    assert.deepEqual(cards.openIds(), ['p', 's']);
    const frames = cards.closeAll('Turn cancelled');
    frames.forEach(assertValidUpdate);
    assert.deepEqual(
      frames.map((f) => [f.toolCallId, f.status, f._meta.preparationDiscarded ?? false]),
      [
        ['p', 'failed', true],
        ['s', 'failed', false],
      ],
    );
    assert.equal(frames[1].content[0].content.text, 'Turn cancelled');
    assert.deepEqual(cards.closeAll(), []);
  });

  it('a permission request is the same card as the preparation, and a request for an unprepared call opens one that still ends', () => {
    const cards = new ToolCallCards({ describe: () => ({ title: 'WriteFile', kind: 'edit' }) });
    const args = { path: 'a.txt', content: 'hi' };
    const client = new CardClient(() => args);
    client.receive(cards.preparing('call-1', 'write_file'));
    const diff = { type: 'diff', path: '/w/a.txt', oldText: '', newText: 'hi' };
    const toolCall = cards.permission(
      {
        callId: 'call-1',
        toolName: 'write_file',
        rawInput: args,
        title: 'WriteFile: a.txt',
        locations: [{ path: '/w/a.txt' }],
      },
      [diff],
    );
    assert.equal(
      JSON.stringify(toolCall),
      JSON.stringify({
        toolCallId: 'call-1',
        status: 'pending',
        title: 'WriteFile: a.txt',
        content: [diff],
        locations: [{ path: '/w/a.txt', line: null }],
        kind: 'edit',
        rawInput: args,
        _meta: { toolName: 'write_file', tool_name: 'write_file' },
      }),
    );
    client.permission(toolCall);
    client.receive(cards.failed('call-1', 'write_file', 'Tool "write_file" was rejected by the user.'));
    // No preparing card: the request opens it; unanswered, closeAll ends it once.
    client.permission(cards.permission({ callId: 'call-2', toolName: 'write_file', rawInput: args }));
    assert.deepEqual(cards.openIds(), ['call-2']);
    const closed = cards.closeAll();
    assert.deepEqual(
      closed.map((f) => [f.toolCallId, f.sessionUpdate, f.status]),
      [['call-2', 'tool_call_update', 'failed']],
    );
    for (const f of closed) client.receive(f);
    client.assertOneTerminalPerOpen();
    assert.equal(cards.permission({ callId: 'call-3', toolName: 'todo_write', rawInput: {} }), null);
    assert.throws(() => cards.permission({ callId: 'call-4', toolName: 'write_file', rawInput: {} }, [1]), {
      code: 'INVALID_ARGUMENT',
    });
    assert.deepEqual(cards.openIds(), []);
  });

  it('throws INVALID_ARGUMENT errors for bad input, from JS and from native', () => {
    const cards = new ToolCallCards();
    const bad = [
      () => new ToolCallCards({ suppressedTools: 'todo_write' }),
      () => new ToolCallCards({ describe: 'no' }),
      () => cards.preparing('', 'x'),
      () => cards.preparing('a', 7),
      () => cards.started({ callId: 'a', toolName: 'x', rawInput: [1] }),
      () => cards.started({ callId: 'a', toolName: 'x', rawInput: {}, locations: [{ line: 1 }] }),
      () => cards.started({ callId: 'a', toolName: 'x', rawInput: {}, status: 'completed' }),
      () => cards.started({ callId: 'a', toolName: 'x', rawInput: { n: 1n } }),
      () => cards.finished('a', 'x', { status: 'done' }),
      () => cards.finished('a', 'x', { status: 'failed', content: 'text' }),
      () => cards.plan({ cyclic: globalThis }),
      () => new PreparationTracker({}),
      () => new ToolCallIds([1]),
      () => new ToolCallIds(null),
    ];
    for (const f of bad) {
      assert.throws(f, (err) => err instanceof Error && err.code === 'INVALID_ARGUMENT', f.toString());
    }
  });

  it('propagates a throwing describe() and keeps the ledger usable', () => {
    const cards = new ToolCallCards({
      describe: () => {
        throw new Error('registry down');
      },
    });
    assert.throws(() => cards.preparing('a', 'x'), /registry down/);
    assert.equal(cards.isOpen('a'), false);
  });
});

describe('PreparationTracker (docs/behaviour.md §8.2)', () => {
  it('emits a preparation once and does not discard it after resolution', () => {
    const cards = new ToolCallCards();
    const tracker = new PreparationTracker(cards);
    const r = response([], [{ callId: 'call-1', toolName: 'read_file' }]);
    const frames = tracker.observe(r);
    assert.equal(frames.length, 1);
    frames.forEach(assertValidUpdate);
    assert.deepEqual(tracker.observe(r), []);
    tracker.resolve([{ id: 'call-1', name: 'read_file', args: {} }]);
    assert.deepEqual(tracker.discard(), []);
  });

  it('discards every unresolved preparation exactly once', () => {
    const tracker = new PreparationTracker(new ToolCallCards());
    tracker.observe(
      response(
        [],
        [
          { callId: 'call-1', toolName: 'read_file' },
          { callId: 'call-2', toolName: 'shell' },
        ],
      ),
    );
    const frames = tracker.discard();
    frames.forEach(assertValidUpdate);
    assert.deepEqual(
      frames.map((f) => [f.toolCallId, f._meta.toolName]),
      [
        ['call-1', 'read_file'],
        ['call-2', 'shell'],
      ],
    );
    assert.deepEqual(tracker.discard(), []);
  });

  it('discards a resolved preparation when the stream attempt is abandoned', () => {
    const tracker = new PreparationTracker(new ToolCallCards());
    tracker.observe(response([], [{ callId: 'call-1', toolName: 'read_file' }]));
    tracker.resolve([{ id: 'call-1' }]);
    assert.deepEqual(
      tracker.discard(true).map((f) => f.toolCallId),
      ['call-1'],
    );
  });

  it('keeps preparations unresolved for missing or empty function call IDs', () => {
    const tracker = new PreparationTracker(new ToolCallCards());
    tracker.observe(response([], [{ callId: 'call-1', toolName: 'read_file' }]));
    tracker.resolve([{ id: undefined }, { id: '' }, null]);
    assert.deepEqual(
      tracker.discard().map((f) => f.toolCallId),
      ['call-1'],
    );
  });

  it('does not retry a preparation when the emitter suppresses its start', () => {
    const tracker = new PreparationTracker(new ToolCallCards());
    const r = response([], [{ callId: 'call-1', toolName: 'todo_write' }]);
    assert.deepEqual(tracker.observe(r), []);
    assert.deepEqual(tracker.observe(r), []);
    assert.deepEqual(tracker.discard(), []);
  });

  it('passes describe() titles into preparing frames and ignores responses without preparations', () => {
    const seen = [];
    const cards = new ToolCallCards({ describe: (n) => (seen.push(n), { title: n.toUpperCase(), kind: 'agent' }) });
    const tracker = new PreparationTracker(cards);
    assert.deepEqual(tracker.observe({}), []);
    assert.deepEqual(tracker.observe(null), []);
    const [frame] = tracker.observe(response([], [{ callId: 'a', toolName: 'task' }]));
    assert.equal(frame.title, 'TASK');
    assert.equal(frame.kind, 'other', 'Agent maps to other (docs/behaviour.md §6.2)');
    assert.deepEqual(seen, ['task']);
  });
});

describe('ToolCallIds (docs/behaviour.md §4.1)', () => {
  it('a chunk with neither a preparation nor a call does not cross to native, and still gets its functionCalls', () => {
    const { native } = require('../lib/native.js');
    const proto = Object.getPrototypeOf(new native.NativeToolCallIds([]));
    const apply = proto.apply;
    let crossings = 0;
    proto.apply = function (...args) {
      crossings++;
      return apply.apply(this, args);
    };
    try {
      const ids = new ToolCallIds(['toolu_1']);
      const text = response([{ text: 'hi' }, { text: 'there', thought: true }]);
      ids.apply(text);
      assert.equal(crossings, 0);
      assert.equal(text.functionCalls, undefined);
      ids.apply(response([{ functionCall: { id: 'toolu_1', name: 'read_file', args: {} } }]));
      assert.equal(crossings, 1, 'a chunk with a call crosses once');
    } finally {
      proto.apply = apply;
    }
  });

  it('normalises preparations and calls alike, keeping the provider id', () => {
    const ids = new ToolCallIds(['toolu_1', 'toolu_1__qwen_dup_2']);
    const r = response(
      [{ text: 'hi' }, { functionCall: { id: 'toolu_1', name: 'read_file', args: { p: 1 } } }],
      [{ callId: 'toolu_1', toolName: 'read_file' }],
    );
    ids.apply(r);
    assert.deepEqual(getToolCallPreparations(r), [{ callId: 'toolu_1__qwen_dup_3', toolName: 'read_file' }]);
    const fc = r.candidates[0].content.parts[1].functionCall;
    assert.deepEqual(fc, { id: 'toolu_1__qwen_dup_3', name: 'read_file', args: { p: 1 } });
    assert.equal(getProviderToolCallId(fc), 'toolu_1');
    assert.ok(!Object.keys(fc).some((k) => k !== 'id' && k !== 'name' && k !== 'args'), 'the raw id is not enumerable');
    assert.deepEqual(r.functionCalls, [fc]);
    assert.ok(Object.getOwnPropertyDescriptor(r, 'functionCalls'));
  });

  it('drops same-attempt duplicates and generates ids for absent ones', () => {
    const ids = new ToolCallIds();
    const r1 = response([
      { functionCall: { id: 'a', name: 'x', args: {} } },
      { functionCall: { name: 'y', args: {} } },
    ]);
    ids.apply(r1);
    assert.deepEqual(
      r1.functionCalls.map((c) => c.id),
      ['a', 'call_qwen_1'],
    );
    assert.equal(getProviderToolCallId(r1.functionCalls[1]), undefined);
    const r2 = response([{ text: 't' }, { functionCall: { id: 'a', name: 'x', args: {} } }]);
    ids.apply(r2);
    assert.deepEqual(r2.candidates[0].content.parts, [{ text: 't' }]);
    assert.equal(r2.functionCalls, undefined);
  });

  it('overrides the @google/genai functionCalls getter with the normalised calls', () => {
    const { GenerateContentResponse } = require('@google/genai');
    const r = new GenerateContentResponse();
    r.candidates = [{ content: { role: 'model', parts: [{ functionCall: { id: 'h', name: 'x', args: {} } }] } }];
    new ToolCallIds(['h']).apply(r);
    assert.deepEqual(
      r.functionCalls.map((c) => c.id),
      ['h__qwen_dup_2'],
    );
  });

  it('leaves a response without parts or preparations alone', () => {
    const r = { usageMetadata: { totalTokenCount: 1 } };
    new ToolCallIds().apply(r);
    assert.deepEqual(Object.keys(r), ['usageMetadata']);
    assert.throws(() => new ToolCallIds().apply(null), { code: 'INVALID_ARGUMENT' });
  });
});

describe('strings from JS keep lone UTF-16 surrogates (one JSON stack)', () => {
  // A lone high and a lone low surrogate, a pair split over the end of one
  // string and the start of another, a reversed pair, two highs, a real pair.
  const odd = ['a\ud800b', '\udc00', 'x\ud83d', '\ude00y', '\ude00\ud83d', '\ud800\ud800', 'pair 😀'];
  /** What a JSON round trip (the ACP wire) gives: the string itself. */
  const wire = (x) => JSON.parse(JSON.stringify(x));
  /** A title is printable text: a lone surrogate in it is U+FFFD. */
  const titled = (s) => s.toWellFormed();

  it('comes back in every field of every card frame as JSON.parse(JSON.stringify(x)) gives it, titles well-formed', () => {
    for (const s of odd) {
      const tool = `mcp__${s}__t`;
      const cards = new ToolCallCards({ describe: () => ({ title: `T${s}`, kind: 'read' }) });
      const meta = { toolName: tool, tool_name: tool, provenance: 'mcp', serverId: s };
      const prep = cards.preparing(s, tool);
      assertValidUpdate(prep);
      assert.deepStrictEqual(
        prep,
        wire({
          sessionUpdate: 'tool_call',
          toolCallId: s,
          status: 'pending',
          title: titled(`T${s}`),
          name: tool,
          content: [],
          locations: [],
          kind: 'read',
          rawInput: {},
          _meta: { toolName: tool, tool_name: tool, phase: 'preparing', provenance: 'mcp', serverId: s },
        }),
      );
      const started = cards.started({
        callId: s,
        toolName: tool,
        rawInput: { [s]: s },
        title: s,
        kind: 'edit',
        locations: [{ path: s, line: 2 }],
      });
      assert.deepStrictEqual(
        started,
        wire({
          sessionUpdate: 'tool_call_update',
          toolCallId: s,
          status: 'in_progress',
          title: titled(s),
          content: [],
          locations: [{ path: s, line: 2 }],
          kind: 'edit',
          rawInput: { [s]: s },
          _meta: meta,
        }),
      );
      assert.equal(cards.isOpen(s), true);
      assert.deepStrictEqual(cards.openIds(), [s]);
      assert.deepStrictEqual(
        cards.finished(s, tool, { status: 'completed', content: [], rawOutput: s }),
        wire({
          sessionUpdate: 'tool_call_update',
          toolCallId: s,
          status: 'completed',
          content: [],
          _meta: meta,
          rawOutput: s,
        }),
      );
      const asked = cards.permission({ callId: `${s}p`, toolName: tool, rawInput: {}, locations: [{ path: s }] });
      assert.deepStrictEqual(
        asked,
        wire({
          toolCallId: `${s}p`,
          status: 'pending',
          title: titled(`T${s}`),
          name: tool,
          content: [],
          locations: [{ path: s, line: null }],
          kind: 'read',
          rawInput: {},
          _meta: { toolName: tool, tool_name: tool },
        }),
      );
      cards.preparing(`${s}d`, tool);
      assert.deepStrictEqual(
        cards.discarded(`${s}d`, tool),
        wire({
          sessionUpdate: 'tool_call_update',
          toolCallId: `${s}d`,
          status: 'failed',
          title: `${titled(`T${s}`)} · not run`,
          content: [],
          _meta: {
            toolName: tool,
            tool_name: tool,
            phase: 'preparing',
            preparationDiscarded: true,
            provenance: 'mcp',
            serverId: s,
          },
        }),
      );
      assert.deepStrictEqual(
        cards.closeAll(s),
        wire([
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: `${s}p`,
            status: 'failed',
            content: [{ type: 'content', content: { type: 'text', text: s } }],
            _meta: meta,
          },
        ]),
      );
      const entry = { content: s, priority: 'medium', status: 'pending' };
      const plan = wire({ sessionUpdate: 'plan', entries: [entry] });
      assert.deepStrictEqual(cards.plan({ todos: [{ content: s, status: 'pending' }] }), plan);
      const list = { type: 'todo_list', todos: [{ content: s, status: 'pending' }] };
      // A JSON text display, with the surrogate escaped (JSON.stringify) or raw.
      assert.deepStrictEqual(cards.plan(undefined, JSON.stringify(list)), plan);
      const raw = `{"type":"todo_list","todos":[{"content":"${s}","status":"pending"}]}`;
      assert.deepStrictEqual(JSON.parse(raw), list);
      assert.deepStrictEqual(cards.plan(undefined, raw), plan);
    }
  });

  it('keeps ids, tool names and suppressed tools that differ only in a lone surrogate apart', () => {
    const cards = new ToolCallCards({ suppressedTools: ['t\ud800'] });
    assert.equal(cards.preparing('a', 't\ud800'), null);
    for (const name of ['t\ud801', 't\ufffd', 't']) assert.notEqual(cards.preparing(`id ${name}`, name), null);
    const ids = ['\ud800', '\ud801', '\ufffd', '\udc00\ud800'];
    for (const id of ids) assert.notEqual(cards.preparing(id, 'read_file'), null, JSON.stringify(id));
    assert.deepStrictEqual(cards.openIds().slice(3), ids);
    assert.equal(cards.isOpen('\udbff'), false);
    assert.equal(cards.discarded('\ud801', 'read_file').toolCallId, '\ud801');
    assert.equal(cards.isOpen('\ud800'), true);
  });

  it('through PreparationTracker and ToolCallIds', () => {
    const cards = new ToolCallCards({ describe: (name) => ({ title: `T${name}` }) });
    const tracker = new PreparationTracker(cards);
    const frames = tracker.observe(
      response(
        [],
        odd.map((s) => ({ callId: s, toolName: s })),
      ),
    );
    assert.deepStrictEqual(
      frames.map((f) => [f.toolCallId, f.title, f.name, f._meta.toolName]),
      wire(odd.map((s) => [s, titled(`T${s}`), s, s])),
    );
    // Resolving the first id resolves it alone.
    tracker.resolve([{ id: odd[0] }, { id: 'a\ud801b' }]);
    assert.deepStrictEqual(
      tracker.discard(false).map((f) => f.toolCallId),
      odd.slice(1),
    );

    for (const s of odd) {
      const r = response([{ functionCall: { id: s, name: 't', args: {} } }], [{ callId: s, toolName: 't' }]);
      // `${s}__qwen_dup_2`: the suffix follows a lone high surrogate as is.
      new ToolCallIds([s, 'a\ud801b']).apply(r);
      const id = `${s}__qwen_dup_2`;
      assert.equal(getToolCallPreparations(r)[0].callId, id);
      assert.equal(r.candidates[0].content.parts[0].functionCall.id, id);
      assert.equal(getProviderToolCallId(r.candidates[0].content.parts[0].functionCall), s);
      // A history id that differs in a lone surrogate is another id.
      const other = response([{ functionCall: { id: `${s}\ud801`, name: 't', args: {} } }]);
      new ToolCallIds([`${s}\ud800`]).apply(other);
      assert.equal(other.candidates[0].content.parts[0].functionCall.id, `${s}\ud801`);
    }
  });
});

describe('native state lifetime', () => {
  const gcSkip = typeof globalThis.gc === 'function' ? false : 'needs node --expose-gc (npm test passes it)';
  it('frees cards, trackers and id tables after GC', { skip: gcSkip }, async () => {
    const before = liveHandles();
    (() => {
      for (let i = 0; i < 50; i++) {
        const cards = new ToolCallCards();
        new PreparationTracker(cards).observe(response([], [{ callId: `c${i}`, toolName: 'x' }]));
        new ToolCallIds(['a']);
      }
    })();
    assert.ok(liveHandles() >= before + 150);
    for (let i = 0; i < 20 && liveHandles() > before; i++) {
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(liveHandles() <= before, `live handles ${liveHandles()} > ${before}`);
  });
});
