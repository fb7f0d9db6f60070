// The OpenAI Responses corpus (__test__/fixtures/providers/openai-responses, the
// outputs of Qwen Code's own Responses generator) through the public
// OpenAIResponsesConverter, under each profile against its release's
// outputs: event objects one at a time (each response read as it is
// returned), the kept view of the message metadata, preparations on and
// off, and the argument progress counts. The raw bytes, whole and split at
// random, are every provider's test (providers.test.mjs): there a message's
// `phase`, which a later event of the same push adds to the object its
// parts share (it shows on them already then, as it does on Qwen's once
// that event was read), is compared on the event runs here only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { OpenAIResponsesConverter, getToolCallPreparations, ToolCallStreamError } = require('../index.js');

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'providers', 'openai-responses');
const RELEASES = [
  ['qwen-0.23.3', 'expected-0.23.3'],
  ['qwen-0.24', 'expected-0.24.4'],
];
const MODEL = 'oracle-model';

const streams = fs
  .readdirSync(path.join(DIR, 'streams'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => [f.slice(0, -5), JSON.parse(fs.readFileSync(path.join(DIR, 'streams', f), 'utf8'))]);

/** The body the oracle served, up to a `__cut__`, and whether it is cut. */
function body(items) {
  let text = '';
  for (const e of items) {
    if (e.__cut__) return { bytes: Buffer.from(text), cut: true };
    text += '__raw__' in e ? e.__raw__ : `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  }
  return { bytes: Buffer.from(text), cut: false };
}

/** The oracle's lines; a cut stream's last line is the transport's error, not the converter's. */
function expected(dir, name, cut) {
  const lines = fs
    .readFileSync(path.join(DIR, dir, `${name}.expected.ndjson`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  if (cut) assert.equal(lines.pop().error.message, 'fetch failed');
  return lines.map(masked);
}

/** A line with `createTime` masked (the clock). */
function masked(line) {
  if (line.response) line.response.createTime = '<now>';
  return line;
}

/** A response as the oracle writes its line, read now. */
function line(r) {
  const out = { response: JSON.parse(JSON.stringify(r)) };
  const preps = getToolCallPreparations(r);
  if (preps?.length) out.toolCallPreparations = preps;
  return masked(out);
}

/** Qwen's error as the oracle serialises it: a TypeError of its code, or the stream error with its type and code. */
function errorLine(err) {
  assert.ok(err instanceof ToolCallStreamError, String(err));
  if (err.hostError) return { error: { name: err.hostError.name, message: err.hostError.message } };
  assert.equal(err.code, 'STREAM_ERROR', err.message);
  const o = { name: 'Error', message: err.message };
  const fields = typeof err.providerError === 'string' ? JSON.parse(err.providerError) : err.providerError;
  if (fields.type !== undefined) o.type = fields.type;
  if (fields.code !== undefined) o.code = fields.code;
  return { error: o };
}

function run(profile, feed, options = {}) {
  const c = new OpenAIResponsesConverter({ model: MODEL, profile, ...options });
  const lines = [];
  try {
    feed(c, (rs) => {
      for (const r of rs) lines.push(line(r));
    });
  } catch (err) {
    for (const r of err.responses ?? []) lines.push(line(r));
    lines.push(errorLine(err));
  }
  return lines;
}

const plainEvents = (items) => items.every((e) => !('__raw__' in e) && !e.__cut__);

test('pushEvent: each event on its own gives exactly what Qwen yields, each response read as it is returned', () => {
  let runs = 0;
  for (const [name, items] of streams) {
    if (!plainEvents(items)) continue;
    for (const [profile, dir] of RELEASES) {
      const got = run(profile, (c, push) => {
        for (const e of items) push(c.pushEvent(e));
        push(c.end());
      });
      assert.deepEqual(got, expected(dir, name, false), `${name} under ${profile}`);
      // The event's JSON text is the same event.
      const asText = run(profile, (c, push) => {
        for (const e of items) push(c.pushEvent(JSON.stringify(e)));
        push(c.end());
      });
      assert.deepEqual(asText, got, `${name} under ${profile}, as text`);
      runs++;
    }
  }
  assert.ok(runs >= 60, `${runs} runs`);
});

test('message metadata: the parts of one message share one object, which a later phase updates, as a consumer that keeps Qwen 0.24.4 responses sees it', () => {
  const items = streams.find(([n]) => n === 'message-phase')[1];
  for (const feed of [(c) => items.flatMap((e) => c.pushEvent(e)), (c) => c.pushBytes(body(items).bytes)]) {
    const c = new OpenAIResponsesConverter({ model: MODEL });
    const kept = [...feed(c), ...c.end()];
    const parts = kept.map((r) => r.candidates[0].content.parts[0]);
    assert.equal(parts[1].responsesMessage, parts[2].responsesMessage, 'one object per message');
    // Qwen 0.24.4, its responses kept to the end (read with its own generator):
    assert.deepEqual(
      parts.map((p) => p?.responsesMessage),
      [
        { id: 'msg_c', phase: 'commentary' },
        { id: 'msg_f', phase: 'final_answer' },
        { id: 'msg_f', phase: 'final_answer' },
        { id: 'msg_late', phase: 'final_answer' },
        undefined,
        undefined,
        { id: 'msg_other' },
        undefined,
      ],
    );
  }
  const old = new OpenAIResponsesConverter({ model: MODEL, profile: 'qwen-0.23.3' });
  const parts = [...items.flatMap((e) => old.pushEvent(e)), ...old.end()].map((r) => r.candidates[0].content.parts[0]);
  assert.ok(
    parts.every((p) => p === undefined || !('responsesMessage' in p)),
    '0.23.3 has none',
  );
});

test('responseId and modelVersion are keys of every response, undefined where Qwen sets them so', () => {
  const c = new OpenAIResponsesConverter();
  const [r] = c.pushEvent({ type: 'response.output_text.delta', delta: 'x' });
  assert.deepEqual(Object.keys(r), ['candidates', 'responseId', 'modelVersion', 'createTime', 'promptFeedback']);
  assert.equal(r.responseId, undefined);
  assert.equal(r.modelVersion, undefined);
});

test('preparations: off, none (the oracle comparisons above); on, one preparation-only chunk right after each call opens, once per call id, nothing else changed', () => {
  let calls = 0;
  for (const [name, items] of streams) {
    if (!plainEvents(items)) continue;
    for (const [profile] of RELEASES) {
      const off = new OpenAIResponsesConverter({ model: MODEL, profile });
      const on = new OpenAIResponsesConverter({ model: MODEL, profile, preparations: true });
      const seen = new Set();
      for (const e of items) {
        let a, b;
        try {
          a = off.pushEvent(e).map(line);
        } catch (err) {
          assert.throws(() => on.pushEvent(e), { message: err.message });
          break;
        }
        b = on.pushEvent(e).map(line);
        const id = e.item?.call_id;
        const opens =
          e.type === 'response.output_item.added' &&
          e.item?.type === 'function_call' &&
          typeof id === 'string' &&
          id !== '' &&
          typeof e.item.name === 'string' &&
          e.item.name !== '' &&
          !seen.has(id);
        if (opens) {
          seen.add(id);
          calls++;
          const [prep, ...rest] = b;
          assert.deepEqual(prep.toolCallPreparations, [{ callId: id, toolName: e.item.name }], name);
          assert.deepEqual(prep.response.candidates[0].content.parts, [], name);
          b = rest;
        }
        assert.deepEqual(b, a, `${name} under ${profile}`);
      }
    }
  }
  assert.ok(calls >= 20, `${calls} preparations`);
});

test('argumentProgress: each prepared open call counts its argument bytes and line breaks; a call leaves at its output_item.done', () => {
  const c = new OpenAIResponsesConverter({ model: MODEL, preparations: true });
  const added = (i, id) => ({
    type: 'response.output_item.added',
    output_index: i,
    item: { type: 'function_call', call_id: id, name: 'write_file', arguments: '' },
  });
  const delta = (i, d) => ({ type: 'response.function_call_arguments.delta', output_index: i, delta: d });
  c.pushEvent(added(0, 'call_a'));
  c.pushEvent(added(1, 'call_b'));
  c.pushEvent(delta(0, '{"content":"a\\nb'));
  c.pushEvent(delta(1, '{"x":"é'));
  c.pushEvent(delta(0, '\\nc"}'));
  const counts = () => c.argumentProgress().calls.map((p) => [p.callId, p.argumentBytes, p.argumentLines]);
  assert.deepEqual(counts(), [
    ['call_a', 21, 2],
    ['call_b', 8, 0],
  ]);
  c.pushEvent({
    type: 'response.output_item.done',
    output_index: 0,
    item: { type: 'function_call', call_id: 'call_a', name: 'write_file', arguments: '' },
  });
  assert.deepEqual(counts(), [['call_b', 8, 0]]);
  // Raw bytes count the same, a frame split anywhere once it is whole.
  const held = new OpenAIResponsesConverter({ model: MODEL, preparations: true });
  held.pushBytes(`event: response.output_item.added\ndata: ${JSON.stringify(added(0, 'call_h'))}\n\n`);
  const frame = `event: response.function_call_arguments.delta\ndata: ${JSON.stringify(delta(0, '{"a":1}'))}\n\n`;
  held.pushBytes(frame.slice(0, 30));
  assert.deepEqual(
    held.argumentProgress().calls.map((p) => p.argumentBytes),
    [0],
  );
  held.pushBytes(frame.slice(30));
  assert.deepEqual(
    held.argumentProgress().calls.map((p) => p.argumentBytes),
    [7],
  );
  held.end();
  assert.deepEqual(held.argumentProgress().calls, []);
});

test('options: an unknown profile, a non-string model or response parsing is INVALID_ARGUMENT; a non-streaming body has no conversion', () => {
  for (const options of [{ profile: 'qwen-0.21' }, { model: 5 }, { preparations: 'yes' }, { responseParsing: {} }])
    assert.throws(() => new OpenAIResponsesConverter(options), { code: 'INVALID_ARGUMENT' });
  const c = new OpenAIResponsesConverter();
  c.upstreamFailed(new Error('reset'));
  assert.equal(c.finished, true);
  assert.throws(() => c.pushEvent({ type: 'response.created' }), { code: 'FINISHED' });
});

test("errors: Qwen's stream error keeps its message with its type, code and status; text that is not JSON is INVALID_JSON and the stream goes on; a TypeError in the body ends it", () => {
  const c = new OpenAIResponsesConverter({ model: MODEL });
  assert.throws(() => c.pushEvent('{not json'), { code: 'INVALID_JSON' });
  assert.equal(c.finished, false);
  assert.throws(
    () =>
      c.pushEvent({
        type: 'response.failed',
        response: { error: { code: 'rate_limit_exceeded', message: 'Slow down' } },
      }),
    (err) => {
      assert.equal(err.code, 'STREAM_ERROR');
      assert.equal(err.message, 'Responses API failed: rate_limit_exceeded: Slow down');
      assert.deepEqual(err.providerError, { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded', status: 429 });
      return true;
    },
  );
  assert.equal(c.finished, true);
  const bytes = new OpenAIResponsesConverter({ model: MODEL });
  assert.throws(
    () => bytes.pushBytes('event: response.output_item.added\ndata: {}\n\nevent: response.created\n'),
    (err) => {
      assert.deepEqual(err.hostError, {
        name: 'TypeError',
        message: "Cannot read properties of undefined (reading 'type')",
      });
      assert.equal(err.fatal, true, 'an error that ends the stream says so');
      return true;
    },
  );
  assert.equal(bytes.finished, true);
  // A stream error in the body ends it too, and says so.
  const failed = new OpenAIResponsesConverter({ model: MODEL });
  assert.throws(
    () => failed.pushBytes('event: error\ndata: {"message":"boom"}\n\n'),
    (err) => {
      assert.equal(err.code, 'STREAM_ERROR');
      assert.equal(err.message, 'Responses API error: boom');
      assert.equal(err.fatal, true);
      return true;
    },
  );
  assert.equal(failed.finished, true);
  assert.throws(() => failed.pushBytes('data: {}\n\n'), { code: 'FINISHED' });
});
