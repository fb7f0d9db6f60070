// Bounded resources through the package: `limits` in the constructors end
// the stream with LIMIT_EXCEEDED (fatal), and consumeModelStream then
// discards every open card. 10,000 requests leave no native state behind
// (liveHandles() back to its baseline after GC) and RSS flat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { CardClient } from './acp-helpers.mjs';
import { streams, anthropicSse, openaiSse } from './helpers/corpus.mjs';

const require = createRequire(import.meta.url);
const m = require('../index.js');
const { AnthropicConverter, OpenAIConverter, ToolCallCards, consumeModelStream, liveHandles } = m;

const start = {
  type: 'message_start',
  message: {
    id: 'msg_l',
    model: 'm',
    usage: { input_tokens: 1, output_tokens: 1 },
  },
};
const tool = (index, id) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name: 'write_file', input: {} },
});
const args = (index, partial_json) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});
const call = (index, id, a) => ({
  id: 'c',
  created: 1,
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index,
            id,
            type: 'function',
            function: { name: 'write_file', arguments: a },
          },
        ],
      },
      finish_reason: null,
    },
  ],
});

function expectLimit(fn) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof m.ToolCallStreamError);
    assert.equal(err.code, 'LIMIT_EXCEEDED');
    assert.equal(err.fatal, true);
    return true;
  });
}

test('maxCallBytes ends an Anthropic stream, by bytes and by events', () => {
  const b = new AnthropicConverter({ limits: { maxCallBytes: 64 } });
  const body = anthropicSse([start, tool(0, 'toolu_1'), args(0, '{"c":"' + 'x'.repeat(100) + '"}')]);
  assert.throws(
    () => b.pushBytes(body),
    (err) => err.code === 'LIMIT_EXCEEDED' && m.getToolCallPreparations(err.responses[0])[0]?.callId === 'toolu_1',
    'the preparation converted before the limit is in err.responses',
  );
  assert.equal(b.finished, true);
  assert.throws(() => b.pushBytes('data: {}\n\n'), { code: 'FINISHED' });

  const c = new AnthropicConverter({ limits: { maxCallBytes: 64 } });
  c.pushEvent(start);
  c.pushEvent(tool(0, 'toolu_1'));
  let crossed = false;
  try {
    c.pushEvent(args(0, '{"c":"' + 'x'.repeat(100)));
    c.pushEvent({ type: 'content_block_stop', index: 0 });
  } catch (err) {
    assert.equal(err.code, 'LIMIT_EXCEEDED');
    assert.equal(err.fatal, true);
    crossed = true;
  }
  assert.ok(crossed, 'the limit fails the stream by the end of the block at the latest');
  assert.equal(c.finished, true);
});

// The object path gathers input_json_delta fragments and hands them to
// native later (at the next other event, or as soon as they could cross the
// block's budget): the stream must still fail at the event that crosses a
// limit.
test('maxCallBytes fails at the pushEvent that crosses it', () => {
  const c = new AnthropicConverter({ limits: { maxCallBytes: 64 } });
  c.pushEvent(start);
  assert.equal(m.getToolCallPreparations(c.pushEvent(tool(0, 'toolu_1'))[0])[0].callId, 'toolu_1');
  c.pushEvent(args(0, '{"c":"' + 'x'.repeat(40)));
  expectLimit(() => c.pushEvent(args(0, 'y'.repeat(40))));
  assert.equal(c.finished, true);
});

test('maxBufferedBytes bounds open calls together and an unterminated SSE line', () => {
  const c = new AnthropicConverter({
    limits: { maxCallBytes: 100, maxBufferedBytes: 150 },
  });
  c.pushEvent(start);
  c.pushEvent(tool(0, 'a'));
  c.pushEvent(tool(1, 'b'));
  c.pushEvent(args(0, 'x'.repeat(80)));
  expectLimit(() => {
    c.pushEvent(args(1, 'y'.repeat(80)));
    c.pushEvent({ type: 'content_block_stop', index: 1 });
  });

  const o = new OpenAIConverter({ limits: { maxBufferedBytes: 256 } });
  expectLimit(() => {
    for (let i = 0; i < 100; i++) o.pushBytes('data: ' + 'x'.repeat(10));
  });
});

test('OpenAI maxCallBytes and maxRepairDepth', () => {
  const c = new OpenAIConverter({ limits: { maxCallBytes: 64 } });
  assert.equal(m.getToolCallPreparations(c.pushChunk(call(0, 'call_1', '{"c":"')))[0].callId, 'call_1');
  expectLimit(() => c.pushChunk(call(0, undefined, 'x'.repeat(100))));
  const d = new OpenAIConverter({ limits: { maxRepairDepth: 4 } });
  d.pushChunk(call(0, 'call_1', '{"a":' + '['.repeat(10) + '1,'));
  expectLimit(() =>
    d.pushChunk({
      id: 'c',
      created: 1,
      choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
    }),
  );
});

test('a limit of Infinity is no limit, not the default', () => {
  // One argument chunk past the 64 MiB default of maxCallBytes.
  const big = 'x'.repeat(64 * 1024 * 1024 + 16);
  const run = (limits) => {
    const c = new AnthropicConverter({ limits });
    c.pushEvent(start);
    c.pushEvent(tool(0, 'toolu_1'));
    c.pushEvent(args(0, '"'));
    c.pushEvent(args(0, big));
    return c;
  };
  expectLimit(() => run(undefined));
  const c = run({ maxCallBytes: Infinity, maxBufferedBytes: Infinity });
  assert.equal(c.finished, false);
  c.free();
});

test('maxRepairDepth: no limit by default (the repair does not recurse); one that is set refuses deeper', () => {
  // Unbalanced arguments nested past the old default depth (512) and cap (2048).
  const deep = (limits) => {
    const c = new OpenAIConverter({ limits });
    c.pushChunk(call(0, 'call_1', '{"a":' + '['.repeat(3000) + '1,'));
    return () => c.pushChunk({ id: 'c', created: 1, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  };
  for (const limits of [undefined, { maxRepairDepth: Infinity }]) {
    let v = deep(limits)().candidates[0].content.parts[0].functionCall.args.a;
    let levels = 0;
    for (; Array.isArray(v); v = v[0]) levels++;
    assert.equal(levels, 3000);
  }
  expectLimit(deep({ maxRepairDepth: 512 }));
});

test('the non-streaming conversions take maxRepairDepth too', () => {
  const body = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'write_file', arguments: '{"a":' + '['.repeat(600) + '1,' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
  };
  expectLimit(() => m.convertOpenAIResponse(body, { limits: { maxRepairDepth: 512 } }));
  for (const limits of [undefined, { maxRepairDepth: Infinity }]) {
    const response = m.convertOpenAIResponse(body, { limits });
    assert.equal(response.candidates[0].content.parts[0].functionCall.name, 'write_file');
  }
});

test('bad limits are INVALID_ARGUMENT', () => {
  for (const limits of [
    { maxCallBytes: 0 },
    { maxBufferedBytes: -1 },
    { maxRepairDepth: 'deep' },
    { maxCallBytes: NaN },
    { maxBufferedBytes: -Infinity },
    5,
  ]) {
    assert.throws(() => new AnthropicConverter({ limits }), {
      code: 'INVALID_ARGUMENT',
    });
    assert.throws(() => new OpenAIConverter({ limits }), {
      code: 'INVALID_ARGUMENT',
    });
  }
});

test('past a limit, consumeModelStream discards every open card and rethrows', async () => {
  const cards = new ToolCallCards();
  const client = new CardClient();
  const converter = new AnthropicConverter({ limits: { maxCallBytes: 64 } });
  async function* events() {
    const events = [
      start,
      tool(0, 'toolu_1'),
      tool(1, 'toolu_2'),
      args(0, '{"c":"' + 'x'.repeat(100)),
      { type: 'ping' },
    ];
    for (const e of events) {
      for (const r of converter.pushEvent(e)) yield { type: 'chunk', value: r };
    }
  }
  await assert.rejects(consumeModelStream(events(), { cards, send: (u) => client.receive(u) }), {
    code: 'LIMIT_EXCEEDED',
  });
  assert.deepEqual([...client.open], []);
  assert.deepEqual(Object.fromEntries(client.terminals), {
    toolu_1: 1,
    toolu_2: 1,
  });
  assert.ok(client.frames.filter((f) => f._meta?.preparationDiscarded).length === 2);
  assert.deepEqual(cards.openIds(), []);
});

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

async function collect() {
  for (let i = 0; i < 6; i++) {
    global.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test(
  '10,000 requests: liveHandles() returns to its baseline after GC and RSS stays flat',
  { skip: typeof global.gc !== 'function' && 'needs --expose-gc' },
  async (t) => {
    await collect();
    const baseline = liveHandles();
    const rss = await requests(10_000);
    await collect();
    assert.equal(liveHandles(), baseline, 'every native state freed');
    const growth = rss.at(-1) - rss[1];
    t.diagnostic(`RSS after each thousand (MB): ${rss.map((r) => r.toFixed(1)).join(', ')}`);
    assert.ok(
      growth < 30,
      `RSS grew ${growth.toFixed(1)} MB between the 2nd and the last thousand (${rss.map((r) => r.toFixed(0)).join(', ')})`,
    );
  },
);

/** n requests through converters and consumeModelStream; RSS (MB) after each thousand. */
async function requests(n) {
  const anthropic = streams('anthropic-').map((s) => s.items.filter((e) => !e?.__throw__));
  const openai = streams('openai-').map((s) => s.items);
  const rss = [];
  for (let i = 0; i < n; i++) {
    const cards = new ToolCallCards();
    const which = i % 4;
    let events;
    if (which === 0) {
      const c = new AnthropicConverter({
        limits: i % 8 === 0 ? { maxCallBytes: 16 } : undefined,
      });
      const items = anthropic[i % anthropic.length];
      events = (function* () {
        for (const e of items) for (const r of c.pushEvent(e)) yield { type: 'chunk', value: r };
        for (const r of c.end()) yield { type: 'chunk', value: r };
      })();
    } else if (which === 1) {
      const c = new OpenAIConverter();
      const body = Buffer.from(openaiSse(openai[i % openai.length]));
      events = (function* () {
        for (let at = 0; at < body.length; at += 97)
          for (const r of c.pushBytes(body.subarray(at, at + 97))) yield { type: 'chunk', value: r };
        for (const r of c.end()) yield { type: 'chunk', value: r };
      })();
    } else if (which === 2) {
      const c = new AnthropicConverter();
      const body = anthropicSse(anthropic[i % anthropic.length]);
      events = (function* () {
        for (const r of c.pushBytes(body)) yield { type: 'chunk', value: r };
        for (const r of c.end()) yield { type: 'chunk', value: r };
        yield { type: 'retry' };
      })();
    } else {
      // An abandoned converter (never ended) must be freed too.
      const c = new OpenAIConverter();
      const items = openai[i % openai.length];
      events = (function* () {
        for (const chunk of items.slice(0, 2)) yield { type: 'chunk', value: c.pushChunk(chunk) };
      })();
    }
    try {
      await consumeModelStream(events, {
        cards,
        send: () => {},
        historyIds: ['h1'],
      });
    } catch (err) {
      assert.ok(err instanceof m.ToolCallStreamError, String(err));
    }
    cards.closeAll();
    if ((i + 1) % 1000 === 0) {
      await collect();
      rss.push(rssMb());
    }
  }
  return rss;
}
