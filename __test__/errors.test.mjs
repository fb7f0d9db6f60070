// One error channel: every export of the package, given bad input (wrong
// types, null, hostile objects), throws or rejects with a ToolCallStreamError
// carrying a stable code, never a TypeError or a raw native error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../index.js');
const { ToolCallStreamError } = pkg;

const CODES = new Set([
  'INVALID_ARGUMENT',
  'INVALID_JSON',
  'INVALID_UTF8',
  'INVALID_EVENT',
  'MALFORMED_TOOL_CALL',
  'PROTOCOL_TAG_LEAK',
  'STREAM_ERROR',
  'LIMIT_EXCEEDED',
  'FINISHED',
  'INVALID_RESPONSE',
  'INTERNAL',
]);

const hostileTrap = () => {
  throw new Error('hostile trap');
};
const hostile = () =>
  new Proxy(
    {},
    {
      get: hostileTrap,
      has: hostileTrap,
      ownKeys: hostileTrap,
      getOwnPropertyDescriptor: hostileTrap,
      getPrototypeOf: hostileTrap,
    },
  );
const throwingGetters = () => {
  const o = {};
  for (const key of ['type', 'choices', 'callId', 'toolName', 'rawInput', 'cards', 'send', 'model', 'limits', 'id']) {
    Object.defineProperty(o, key, { enumerable: true, get: hostileTrap });
  }
  return o;
};
/** Stream consumers rethrow a stream's own failure as it is: not bad input for them. */
const failingIterable = { [Symbol.iterator]: hostileTrap, [Symbol.asyncIterator]: hostileTrap };
const failingStream = (v) => v === failingIterable;
const badValues = () => [
  undefined,
  null,
  0,
  NaN,
  -1,
  '',
  '{not json',
  Symbol('s'),
  10n,
  [],
  [null],
  {},
  () => {},
  hostile(),
  throwingGetters(),
  { toJSON: hostileTrap, toString: hostileTrap, valueOf: hostileTrap },
  failingIterable,
];

/** Constructs a valid instance of each exported class; a new class needs an entry here. */
const validInstance = {
  AnthropicConverter: () => new pkg.AnthropicConverter(),
  OpenAIConverter: () => new pkg.OpenAIConverter(),
  OpenAIResponsesConverter: () => new pkg.OpenAIResponsesConverter(),
  ToolCallCards: () => new pkg.ToolCallCards(),
  PreparationTracker: () => new pkg.PreparationTracker(new pkg.ToolCallCards()),
  ToolCallIds: () => new pkg.ToolCallIds([]),
};
/** Exports that are not checked, and why. */
const exempt = {
  ToolCallStreamError: 'the error class itself',
};

/**
 * A class: its prototype, or one it inherits from, has methods (the ACP classes are exported
 * behind a Proxy, so their source text is not `class …`; a converter may take all its methods
 * from the shared base, lib/converters/native-converter.js).
 */
const isClass = (v) => {
  // A class's prototypes each have their own `constructor`; a generator function's have none.
  for (
    let p = v.prototype;
    p && p !== Object.prototype && Object.hasOwn(p, 'constructor');
    p = Object.getPrototypeOf(p)
  )
    if (Object.getOwnPropertyNames(p).some((k) => k !== 'constructor')) return true;
  return false;
};

/** Runs `fn`; when it throws, rejects or its iterator fails, checks the error. Returns the failures seen. */
async function check(what, fn) {
  let result;
  try {
    result = fn();
    if (result && typeof result.then === 'function') result = await result;
    else if (result && typeof result[Symbol.asyncIterator] === 'function') {
      for await (const _ of result) break;
    }
  } catch (err) {
    assert.ok(err instanceof ToolCallStreamError, `${what} threw ${err?.stack ?? String(err)}`);
    assert.ok(CODES.has(err.code), `${what} threw code ${err.code}`);
  }
}

const argLists = (v) => [[v], [v, v], [v, v, v], ['call_1', v], ['call_1', 'tool', v]];

test('the exports checked here are every export of the package', () => {
  for (const [name, value] of Object.entries(pkg)) {
    if (name in exempt) continue;
    assert.equal(typeof value, 'function', `${name} is not a function`);
    if (isClass(value)) assert.ok(name in validInstance, `${name}: add a valid-instance factory to this test`);
  }
});

test('the ESM entry exports the same objects (so the checks below cover it), and ./available never throws', async () => {
  const esm = await import('../index.mjs');
  for (const [name, value] of Object.entries(esm)) {
    if (name === 'default') assert.equal(value, pkg);
    else assert.equal(value, pkg[name], `index.mjs ${name} is not index.js's`);
  }
  assert.deepEqual(
    Object.keys(esm)
      .filter((k) => k !== 'default')
      .sort(),
    Object.keys(pkg).sort(),
  );
  const { checkAvailable } = require('../lib/available.js');
  for (const v of badValues()) {
    for (const args of argLists(v)) assert.deepEqual(checkAvailable(...args), checkAvailable());
  }
});

test('every exported function and constructor throws only ToolCallStreamError for bad input', async () => {
  for (const [name, value] of Object.entries(pkg)) {
    if (name in exempt || name === 'liveHandles') continue;
    for (const v of badValues()) {
      if (failingStream(v)) continue;
      for (const args of argLists(v)) {
        const label = `${name}(${args.map((a) => typeof a).join(', ')})`;
        if (name in validInstance) await check(`new ${label}`, () => new value(...args));
        else await check(label, () => value(...args));
      }
    }
  }
});

test('every public method of every exported class throws only ToolCallStreamError for bad input', async () => {
  for (const [name, make] of Object.entries(validInstance)) {
    // Its own methods and those it inherits (the converters share lib/converters/native-converter.js).
    const methods = new Set();
    for (
      let proto = pkg[name].prototype;
      proto && proto !== Object.prototype && Object.hasOwn(proto, 'constructor');
      proto = Object.getPrototypeOf(proto)
    )
      for (const k of Object.getOwnPropertyNames(proto))
        if (k !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, k).value === 'function')
          methods.add(k);
    assert.ok(methods.size > 0, name);
    for (const method of methods) {
      for (const v of badValues()) {
        for (const args of argLists(v)) {
          const instance = make();
          await check(`${name}.${method}(${args.map((a) => typeof a).join(', ')})`, () => instance[method](...args));
        }
      }
    }
  }
});

test('native errors arrive decoded: code, message and fatal, not a napi status string', () => {
  const cards = new pkg.ToolCallCards();
  const err = (() => {
    try {
      cards.finished('c1', 'read_file', { status: 'nope' });
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof ToolCallStreamError);
  assert.equal(err.code, 'INVALID_ARGUMENT');
  assert.equal(err.fatal, false);
  assert.doesNotMatch(err.message, /^\{|GenericFailure/);
});

test('bad-input errors of the ACP classes and setToolCallPreparations are ToolCallStreamError with INVALID_ARGUMENT', () => {
  const cases = [
    () => new pkg.ToolCallCards({ suppressedTools: 'x' }),
    () => new pkg.ToolCallCards().started({ callId: 1 }),
    () => new pkg.PreparationTracker({}),
    () => new pkg.ToolCallIds(null),
    () => pkg.setToolCallPreparations(null, []),
    () => pkg.setToolCallPreparations({}, 'x'),
    () => pkg.setToolCallPreparations({}, [null]),
  ];
  for (const fn of cases) {
    assert.throws(fn, (err) => err instanceof ToolCallStreamError && err.code === 'INVALID_ARGUMENT' && !err.fatal);
  }
});
