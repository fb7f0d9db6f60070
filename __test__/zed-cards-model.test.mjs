// The model of Zed's tool-card rules (helpers/zed-card-view.mjs) against the
// behaviour of the Zed functions it cites (crates/acp_thread/src/acp_thread.rs):
// the end-to-end tests that read cards through it are only as good as these
// rules, so each is checked here on frames written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ZedThread, zedLabel, markdownEscaped, brokenFrame } from './helpers/zed-card-view.mjs';

const open = (extra = {}) => ({
  sessionUpdate: 'tool_call',
  toolCallId: 'a',
  title: 'WriteFile',
  kind: 'edit',
  status: 'pending',
  ...extra,
});
const update = (extra) => ({ sessionUpdate: 'tool_call_update', toolCallId: 'a', ...extra });

test('ToolCall::from_acp / update_fields: the label per kind, the same rule on every title change', () => {
  assert.deepEqual(zedLabel('execute', 'npm test\n--watch'), {
    source: 'npm test\n--watch',
    shown: 'npm test\n--watch',
  });
  assert.deepEqual(zedLabel('edit', 'Write *a*\nb'), { source: 'Write \\*a\\*\nb', shown: 'Write *a*\nb' });
  assert.deepEqual(zedLabel('read', 'ReadFile: a\nmore'), { source: 'ReadFile: a…', shown: 'ReadFile: a…' });
  assert.equal(markdownEscaped('a<b>_[c]-#'), 'a&lt;b&gt;\\_\\[c]\\-\\#');
  const zed = new ZedThread();
  zed.sessionUpdate(open({ kind: 'read' }));
  zed.sessionUpdate(update({ title: 'one\ntwo', status: 'completed' }));
  assert.equal(zed.read('a'), 'one… [Completed]');
  // A title replaces the label at any status, by the card's kind at that moment.
  zed.sessionUpdate(update({ kind: 'execute', title: 'three\nfour' }));
  assert.equal(zed.read('a'), 'three\nfour [Completed]');
});

test('statuses: the four of ACP v1 one to one; anything else reads Pending', () => {
  const zed = new ZedThread();
  zed.sessionUpdate(open());
  assert.equal(zed.read('a'), 'WriteFile [Pending]');
  for (const [status, word] of [
    ['in_progress', 'In Progress'],
    ['failed', 'Failed'],
    ['cancelled', 'Pending'],
    ['completed', 'Completed'],
  ]) {
    zed.sessionUpdate(update({ status }));
    assert.equal(zed.read('a'), `WriteFile [${word}]`, status);
  }
  assert.deepEqual(zed.history('a'), [
    'WriteFile [Pending]',
    'WriteFile [In Progress]',
    'WriteFile [Failed]',
    'WriteFile [Pending]',
    'WriteFile [Completed]',
  ]);
});

test("the tool name: this Zed reads _meta.tool_name at creation only; the 'acp' rule reads name on any frame", () => {
  const meta = new ZedThread();
  const acp = new ZedThread({ nameFrom: 'acp' });
  for (const zed of [meta, acp]) {
    zed.sessionUpdate(open({ name: 'write_file', _meta: { tool_name: 'write_file', toolName: 'write_file' } }));
    zed.sessionUpdate(update({ name: 'edit', _meta: { tool_name: 'edit' } }));
    // A tool_call for an id on screen updates that card: the name is not read again either.
    zed.sessionUpdate(open({ name: 'edit2', _meta: { tool_name: 'edit2' } }));
  }
  assert.equal(meta.cardsOf('a')[0].toolName, 'write_file');
  assert.equal(acp.cardsOf('a')[0].toolName, 'edit2');
  const camel = new ZedThread();
  camel.sessionUpdate(open({ _meta: { toolName: 'write_file' } }));
  assert.equal(camel.cardsOf('a')[0].toolName, undefined, '_meta.toolName is not what Zed reads');
});

test('update_tool_call: an update for an id with no card is a new Failed card, "Tool call not found"', () => {
  const zed = new ZedThread();
  zed.sessionUpdate(update({ title: 'WriteFile · receiving 1 KB', status: 'failed' }));
  assert.equal(zed.read('a'), 'Tool call not found [Failed]');
  assert.equal(zed.entries.length, 1);
});

test('upsert_tool_call: a tool_call for an id on screen takes over that card (title, kind, status), no second card', () => {
  const zed = new ZedThread();
  zed.sessionUpdate(open());
  zed.sessionUpdate(update({ status: 'failed' }));
  zed.sessionUpdate(open({ title: 'ReadFile', kind: undefined }));
  assert.equal(zed.entries.length, 1);
  assert.equal(zed.entries[0].kind, 'other');
  assert.equal(zed.read('a'), 'ReadFile [Pending]');
});

test('a permission: Waiting for confirmation, then Rejected or In Progress, then what the agent sends', () => {
  for (const [kind, word] of [
    ['allow_once', 'In Progress'],
    ['reject_once', 'Rejected'],
  ]) {
    const zed = new ZedThread();
    zed.requestPermission({ toolCallId: 'a', title: 'WriteFile: x', kind: 'edit', status: 'pending' });
    zed.authorize('a', kind);
    zed.sessionUpdate(update({ status: kind === 'allow_once' ? 'completed' : 'failed' }));
    assert.deepEqual(zed.history('a'), [
      'WriteFile: x [Waiting for confirmation]',
      `WriteFile: x [${word}]`,
      `WriteFile: x [${kind === 'allow_once' ? 'Completed' : 'Failed'}]`,
    ]);
  }
});

test("the user's Stop: open cards read Canceled at once; the agent's later frame still replaces the status", () => {
  const zed = new ZedThread();
  zed.sessionUpdate(open());
  zed.sessionUpdate(open({ toolCallId: 'b', status: 'completed' }));
  zed.cancel();
  assert.equal(zed.read('a'), 'WriteFile [Canceled]');
  assert.equal(zed.read('b'), 'WriteFile [Completed]');
  zed.sessionUpdate(update({ status: 'failed', title: 'WriteFile · not run: cancelled' }));
  zed.stopped('cancelled');
  assert.equal(zed.read('a'), 'WriteFile · not run: cancelled [Failed]');
});

test('brokenFrame: each way of breaking removes what it names, and nothing without the switch', () => {
  const frame = update({ title: 't', status: 'failed', name: 'n', _meta: { tool_name: 'n', progress: {} } });
  assert.deepEqual(brokenFrame(frame, undefined), frame);
  assert.equal(brokenFrame(frame, 'progress'), null);
  assert.equal('title' in brokenFrame(frame, 'title'), false);
  assert.equal('status' in brokenFrame(frame, 'status'), false);
  assert.equal('content' in brokenFrame({ ...frame, content: [] }, 'content'), false);
  const nameless = brokenFrame(frame, 'name');
  assert.equal('name' in nameless || 'tool_name' in nameless._meta, false);
  assert.equal(frame.name, 'n', 'the original is untouched');
});
