// Every input form gives the same output: the same stream
// fed as SDK objects (pushEvent / pushChunk), as their JSON text, as raw SSE
// bytes split at random points (Buffers, and JS strings), and through the
// async generators (convertAnthropicStream / convertOpenAIStream) over
// objects, JSON text and byte pieces, must give the same responses, the same
// preparations and the same errors (code, name, fatal). Streams: every
// corpus (conformance, extra, quirks, qwen-0.24, parsing, pipeline-errors),
// OpenAI ones under both profiles and the response parsing each release's
// provider asked for, and seeded generated streams (text, thinking,
// reasoning, tool calls with arguments split anywhere, multi-byte and astral
// characters, thinking tags, usage, `error_finish`, in-band provider errors)
// under random profiles and response-parsing options.
//
// The one difference the bytes make on purpose is the OpenAI SDK's own
// (`Stream.fromSSEResponse` in the openai 5.11.0 that Qwen Code 0.21.2 and
// 0.24.4 bundle): an event whose payload has a truthy `error` is thrown as
// `APIError` before it reaches the converter; here it is `STREAM_ERROR`
// (fatal), after the responses before it. An Anthropic `error` event is
// `STREAM_ERROR` in every form. RELIABILITY.md lists both.
// First: the library must load with the object path's predicates counted.
import { resetObjectPathCounts, assertTaken } from './helpers/object-path-counts.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from '../devtools/random.mjs';
import { mask, anthropicSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const {
  AnthropicConverter,
  OpenAIConverter,
  convertAnthropicStream,
  convertOpenAIStream,
  getToolCallPreparations,
  ToolCallStreamError,
} = require('../index.js');

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const PROFILES = ['qwen-0.21', 'qwen-0.24'];
const RELEASE_PROFILE = { '0.21.2': 'qwen-0.21', '0.24.4': 'qwen-0.24' };

const readJson = (...p) => JSON.parse(fs.readFileSync(path.join(fixtures, ...p), 'utf8'));
/** Items before a thrown source (`{"__throw__": …}`): what the bytes can carry. */
const beforeThrow = (items) => {
  const at = items.findIndex((e) => e && e.__throw__);
  return at < 0 ? items : items.slice(0, at);
};

function corpusStreams() {
  const out = [];
  for (const dir of ['conformance', 'extra', 'quirks', 'qwen-0.24', 'fidelity']) {
    for (const file of fs.readdirSync(path.join(fixtures, dir, 'streams')).sort()) {
      const items = beforeThrow(readJson(dir, 'streams', file));
      const anthropic = file.startsWith('anthropic-');
      for (const profile of PROFILES) {
        out.push({ name: `${dir}/${file} (${profile})`, anthropic, options: { profile }, items });
      }
    }
  }
  for (const dir of ['parsing', 'pipeline-errors']) {
    for (const [key, c] of Object.entries(readJson(dir, 'cases.json'))) {
      const items = beforeThrow(readJson(dir, 'streams', `${c.stream}.json`));
      for (const [release, responseParsing] of Object.entries(c.responseParsing)) {
        const options = { profile: RELEASE_PROFILE[release], responseParsing };
        out.push({ name: `${dir}/${key} (${release})`, anthropic: false, options, items });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------- generated

const pick = (random, list) => list[Math.floor(random() * list.length)];
const PIECES = [
  'a',
  'é',
  '日本',
  '😀',
  ' ',
  '\n',
  '\r\n',
  '"',
  '\\',
  '<think>',
  '</think>',
  '<th',
  'ink>',
  '{',
  '}',
  'x',
];
const words = (random, max = 6) =>
  Array.from({ length: Math.floor(random() * max) }, () => pick(random, PIECES)).join('');

/** Splits `text` into 1–4 fragments at code-point boundaries. */
function fragments(random, text) {
  const chars = [...text];
  const cuts = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * (chars.length + 1))).sort(
    (a, b) => a - b,
  );
  const out = [];
  let from = 0;
  for (const c of [...cuts, chars.length]) {
    out.push(chars.slice(from, c).join(''));
    from = c;
  }
  return out;
}

function generatedAnthropic(random) {
  const items = [];
  if (random() < 0.9) {
    items.push({
      type: 'message_start',
      message: {
        id: 'msg_g',
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'g-model',
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    });
  }
  const blocks = Math.floor(random() * 4);
  let callStop = false;
  for (let index = 0; index < blocks; index++) {
    const kind = pick(random, ['text', 'thinking', 'tool', 'tool']);
    if (kind === 'tool') {
      callStop = true;
      items.push({
        type: 'content_block_start',
        index,
        content_block: {
          type: 'tool_use',
          id: `toolu_${index}`,
          name: pick(random, ['read_file', 'write_file']),
          input: {},
        },
      });
      const args = random() < 0.8 ? JSON.stringify({ path: words(random), n: index }) : `{"path": "${words(random)}`;
      for (const f of fragments(random, args))
        items.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: f } });
    } else {
      items.push({
        type: 'content_block_start',
        index,
        content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' },
      });
      for (const f of fragments(random, words(random, 8))) {
        items.push({
          type: 'content_block_delta',
          index,
          delta: kind === 'text' ? { type: 'text_delta', text: f } : { type: 'thinking_delta', thinking: f },
        });
      }
    }
    if (random() < 0.9) items.push({ type: 'content_block_stop', index });
  }
  if (random() < 0.1) items.push({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  if (random() < 0.85) {
    const stop = callStop && random() < 0.7 ? 'tool_use' : pick(random, ['end_turn', 'max_tokens']);
    items.push({
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 9 },
    });
  }
  if (random() < 0.8) items.push({ type: 'message_stop' });
  return items;
}

function generatedOpenAI(random) {
  // One id, created and model for every chunk, as a provider streams them.
  const created = 1700000000;
  const chunk = (delta, finish = null) => ({
    id: 'chatcmpl-g',
    object: 'chat.completion.chunk',
    created,
    model: 'g-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const items = [];
  const steps = Math.floor(random() * 8);
  for (let i = 0; i < steps; i++) {
    const kind = pick(random, ['content', 'content', 'reasoning', 'call', 'call']);
    if (kind === 'content') items.push(chunk({ content: words(random) }));
    else if (kind === 'reasoning') items.push(chunk({ reasoning_content: words(random) }));
    else {
      const index = random() < 0.8 ? 0 : 1;
      const args = random() < 0.8 ? JSON.stringify({ path: words(random) }) : `{"path": "${words(random)}`;
      fragments(random, args).forEach((f, j) => {
        const call = { index, type: 'function', function: { arguments: f } };
        if (j === 0) {
          call.id = `call_${index}`;
          call.function.name = 'read_file';
        }
        items.push(chunk({ tool_calls: [call] }));
      });
    }
  }
  if (random() < 0.1) items.push({ error: { message: 'Provider overloaded', code: 502 } });
  if (random() < 0.1) items.push(chunk({ content: words(random) }, 'error_finish'));
  if (random() < 0.8) items.push(chunk({}, pick(random, ['stop', 'tool_calls', 'length'])));
  if (random() < 0.6) {
    items.push({
      id: 'chatcmpl-g',
      object: 'chat.completion.chunk',
      created,
      model: 'g-model',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  }
  return items;
}

function generatedStreams(count, seed) {
  const random = rng(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    const anthropic = random() < 0.5;
    const options = { profile: pick(random, PROFILES) };
    if (!anthropic && random() < 0.6) {
      options.responseParsing = {
        contentOnlyThinkingTagLeaks: random() < 0.5,
        taggedThinkingTags: random() < 0.3,
        taggedThinkingTagsAfterReasoning: random() < 0.3,
      };
    }
    const items = anthropic ? generatedAnthropic(random) : generatedOpenAI(random);
    out.push({ name: `generated #${i} (seed ${seed}) ${JSON.stringify(options)}`, anthropic, options, items });
  }
  return out;
}

// ---------------------------------------------------------------- the forms

const line = (r) => JSON.stringify(mask({ r, p: getToolCallPreparations(r).map((p) => ({ ...p })) }));

function errorLine(err) {
  assert.ok(err instanceof ToolCallStreamError, `a ToolCallStreamError: ${err?.stack}`);
  return `error ${err.code} ${err.name} fatal=${err.fatal}`;
}

const converterOf = (stream, extra) =>
  stream.anthropic
    ? new AnthropicConverter({ ...stream.options, ...extra })
    : new OpenAIConverter({ ...stream.options, ...extra });

/** A call's responses and error into `lines`; false after a fatal error. */
function step(lines, fn) {
  try {
    const out = fn();
    for (const r of Array.isArray(out) ? out : [out]) lines.push(line(r));
    return true;
  } catch (err) {
    for (const r of err.responses ?? []) lines.push(line(r));
    lines.push(errorLine(err));
    return !err.fatal;
  }
}

/** Events or chunks one by one (objects or JSON text), then end() unless `end` is false. */
function byItems(stream, asText, extra, end = true) {
  const c = converterOf(stream, extra);
  const lines = [];
  for (const item of stream.items) {
    const value = asText ? JSON.stringify(item) : item;
    if (!step(lines, () => (stream.anthropic ? c.pushEvent(value) : c.pushChunk(value)))) return lines;
  }
  if (end) step(lines, () => c.end());
  return lines;
}

/** Pieces through pushBytes (after a non-fatal error, an empty push goes on with the rest), then end(). */
function byBytes(stream, pieces, extra) {
  const c = converterOf(stream, extra);
  const lines = [];
  const empty = typeof pieces[0] === 'string' ? '' : new Uint8Array(0);
  const push = (p) => {
    for (;;) {
      const before = lines.length;
      if (!step(lines, () => c.pushBytes(p))) return false;
      if (!lines.slice(before).some((l) => l.startsWith('error '))) return true;
      p = empty;
    }
  };
  for (const p of pieces) if (!push(p)) return lines;
  step(lines, () => c.end());
  return lines;
}

const sse = (stream) =>
  stream.anthropic
    ? anthropicSse(stream.items)
    : stream.items.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';

function randomSplit(body, random, max = 24) {
  const cuts = Array.from({ length: Math.floor(random() * max) }, () => Math.floor(random() * (body.length + 1))).sort(
    (a, b) => a - b,
  );
  const pieces = [];
  let from = 0;
  for (const c of [...cuts, body.length]) {
    pieces.push(body.slice(from, c));
    from = c;
  }
  return pieces;
}

/** The SDK's in-band error: an OpenAI event whose payload has a truthy `error`. */
const sdkThrows = (stream, item) => !stream.anthropic && Boolean(item?.error);

/**
 * What the bytes must give: the items' output, except where the OpenAI SDK
 * throws on an in-band error (the items up to it, then STREAM_ERROR).
 */
function bytesExpected(stream, extra) {
  const at = stream.items.findIndex((item) => sdkThrows(stream, item));
  if (at < 0) return byItems(stream, false, extra);
  const head = byItems({ ...stream, items: stream.items.slice(0, at) }, false, extra, false);
  if (head.some((l) => / fatal=true$/.test(l))) return head;
  return [...head, 'error STREAM_ERROR ToolCallStreamError fatal=true'];
}

/**
 * Qwen's pipeline empty filter (pipeline.ts, `processStreamWithLogging`),
 * on an output line: what `dropEmptyResponses` must leave out.
 */
function keptByPipeline(l) {
  if (l.startsWith('error ')) return true;
  const { r, p } = JSON.parse(l);
  const candidate = r.candidates?.[0];
  return (
    (candidate?.content?.parts?.length ?? 0) > 0 ||
    Boolean(candidate?.finishReason) ||
    Boolean(r.usageMetadata) ||
    p.length > 0
  );
}

/** A generator over `source`; its responses and its error. */
async function drain(gen) {
  const lines = [];
  try {
    for await (const r of gen) lines.push(line(r));
  } catch (err) {
    lines.push(err instanceof ToolCallStreamError ? `error ${err.code} ${err.name}` : `thrown ${err?.name}`);
  }
  return lines;
}

const generator = (stream, source) =>
  stream.anthropic ? convertAnthropicStream(source, stream.options) : convertOpenAIStream(source, stream.options);

/** Disagreements found, as `name: form` → the first differing line of each side. */
function differs(failures, got, want, what) {
  try {
    assert.deepEqual(got, want);
  } catch {
    const i = got.findIndex((l, j) => l !== want[j]);
    const at = i < 0 ? Math.min(got.length, want.length) : i;
    failures.push(`${what}\n    got  [${at}] ${got[at]?.slice(0, 300)}\n    want [${at}] ${want[at]?.slice(0, 300)}`);
  }
}

async function checkStream(stream, random, failures) {
  const eq = (got, want, what) => differs(failures, got, want, what);
  const objects = byItems(stream, false);
  eq(byItems(stream, true), objects, `${stream.name}: JSON text = objects`);
  const body = sse(stream);
  const want = bytesExpected(stream);
  const bytes = Buffer.from(body);
  eq(byBytes(stream, [bytes]), want, `${stream.name}: whole body`);
  for (let run = 0; run < 4; run++) {
    const pieces = randomSplit(bytes, random);
    eq(byBytes(stream, pieces), want, `${stream.name}: bytes split ${pieces.map((p) => p.length).join('+')}`);
  }
  const chars = [...body];
  const strings = randomSplit(chars, random).map((p) => p.join(''));
  eq(byBytes(stream, strings), want, `${stream.name}: string pieces`);
  if (!stream.anthropic) {
    // The pipeline's error_finish check, in every form.
    const extra = { throwOnErrorFinish: true };
    const checked = byItems(stream, false, extra);
    eq(byItems(stream, true, extra), checked, `${stream.name}: throwOnErrorFinish, JSON text`);
    eq(
      byBytes(stream, randomSplit(bytes, random), extra),
      bytesExpected(stream, extra),
      `${stream.name}: throwOnErrorFinish, bytes`,
    );
    // dropEmptyResponses: the bytes leave out exactly what the pipeline
    // drops; a chunk on its own still gives its one response.
    const drop = { dropEmptyResponses: true };
    eq(byItems(stream, false, drop), objects, `${stream.name}: dropEmptyResponses, objects`);
    eq(
      byBytes(stream, randomSplit(bytes, random), drop),
      want.filter(keptByPipeline),
      `${stream.name}: dropEmptyResponses, bytes`,
    );
  }

  // The generators: objects, JSON text and byte pieces.
  const fromObjects = await drain(generator(stream, stream.items));
  eq(
    await drain(
      generator(
        stream,
        stream.items.map((i) => JSON.stringify(i)),
      ),
    ),
    fromObjects,
    `${stream.name}: generator over JSON text`,
  );
  // Bytes: where the SDK throws on an in-band error, the objects before it
  // and then that event's bytes.
  const at = stream.items.findIndex((item) => sdkThrows(stream, item));
  const wantBytes =
    at < 0
      ? fromObjects
      : await drain(
          generator(stream, [
            ...stream.items.slice(0, at),
            Buffer.from(`data: ${JSON.stringify(stream.items[at])}\n\n`),
          ]),
        );
  const gotBytes = await drain(generator(stream, randomSplit(bytes, random)));
  eq(gotBytes, wantBytes, `${stream.name}: generator over bytes`);
}

/**
 * How often each object-path predicate (lib/object-path.js) is taken, at
 * least, by the object forms of the streams below (about half of what they
 * take): agreeing with native proves nothing about a path never taken. Most
 * OpenAI corpus streams give each chunk its own `created`, so most of their
 * chunks take the native path (an OpenAI chunk takes the object path only
 * with the fields of the header native sent last).
 */
const TAKEN = {
  corpus: { anthropicGather: 150, anthropicText: 40, anthropicStopGathered: 30, openaiText: 50, openaiGather: 120 },
  generated: {
    anthropicGather: 600,
    anthropicText: 400,
    anthropicStopGathered: 80,
    openaiText: 400,
    openaiGather: 1000,
  },
};

const corpus = corpusStreams();
const generated = generatedStreams(400, 0x11f0);

test(`every corpus stream (${corpus.length} stream × profile runs) gives the same output in every input form`, async () => {
  const random = rng(0xf0e5);
  const failures = [];
  resetObjectPathCounts();
  for (const stream of corpus) await checkStream(stream, random, failures);
  assert.deepEqual(failures, []);
  assertTaken(TAKEN.corpus);
});

test(`${generated.length} generated streams give the same output in every input form`, async () => {
  const random = rng(0xbeef);
  const failures = [];
  resetObjectPathCounts();
  for (const stream of generated) await checkStream(stream, random, failures);
  assert.deepEqual(failures, []);
  assertTaken(TAKEN.generated);
});

test('the generated streams reach the cases that matter', () => {
  const has = (f) => generated.some(f);
  assert.ok(has((s) => !s.anthropic && s.items.some((i) => i.choices?.[0]?.finish_reason === 'error_finish')));
  assert.ok(has((s) => !s.anthropic && s.items.some((i) => i.error)));
  assert.ok(has((s) => s.anthropic && s.items.some((i) => i.type === 'error')));
  assert.ok(has((s) => s.options.responseParsing?.taggedThinkingTags));
  assert.ok(
    has((s) => byItems(s, false).some((l) => l.includes('PROTOCOL_TAG_LEAK'))),
    'a tag leak',
  );
  assert.ok(
    has((s) => byItems(s, false).some((l) => l.includes('MALFORMED_TOOL_CALL'))),
    'a malformed call',
  );
});
