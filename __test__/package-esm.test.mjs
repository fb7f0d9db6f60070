// One implementation for both module systems: `import` and `require` give the
// same classes and functions, so instanceof, WeakMap-held preparations and
// native handles are shared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as esm from 'toolcall-stream';
import esmDefault, { AnthropicConverter, OpenAIConverter, getToolCallPreparations } from 'toolcall-stream';

const require = createRequire(import.meta.url);
const cjs = require('toolcall-stream');

test('import and require resolve to index.mjs and index.js', () => {
  assert.match(import.meta.resolve('toolcall-stream'), /\/index\.mjs$/);
  assert.match(require.resolve('toolcall-stream'), /[/\\]index\.js$/);
});

test('the ESM named exports are exactly the CommonJS exports, identical values', () => {
  const named = Object.keys(esm)
    .filter((k) => k !== 'default')
    .sort();
  assert.deepEqual(named, Object.keys(cjs).sort());
  for (const name of named) assert.equal(esm[name], cjs[name], name);
  assert.equal(esmDefault, cjs);
  assert.equal(AnthropicConverter, cjs.AnthropicConverter);
  assert.equal(OpenAIConverter, cjs.OpenAIConverter);
});

test('a response converted through import carries preparations visible through require', () => {
  const converter = new AnthropicConverter({ model: 'm' });
  const out = [
    ...converter.pushEvent({ type: 'message_start', message: { id: 'msg_1', model: 'claude' } }),
    ...converter.pushEvent({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} },
    }),
  ];
  const prepared = out.find((r) => getToolCallPreparations(r).length);
  assert.ok(prepared, 'a preparation-only chunk');
  assert.deepEqual(cjs.getToolCallPreparations(prepared), [{ callId: 'toolu_1', toolName: 'read_file' }]);
  assert.ok(converter instanceof cjs.AnthropicConverter);
});
