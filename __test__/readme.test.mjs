// Runs every ```js example of README.md and checks its printed output against
// the `// ...` comments the README shows for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

/** What an example says it prints: `console.log(...); // out` and trailing `// out` lines. */
function promised(code) {
  const lines = [];
  for (const line of code.split('\n')) {
    const inline = /console\.log\(.*\);\s*\/\/ (.*)$/.exec(line);
    if (inline) lines.push(inline[1]);
    else if (/^\/\/ /.test(line)) lines.push(line.slice(3));
  }
  return lines;
}

/** Node prints objects across lines; compare with whitespace collapsed. */
const squash = (s) => s.replace(/\s+/g, ' ').trim();

test('README has examples for every public class', () => {
  for (const name of [
    'AnthropicConverter',
    'OpenAIConverter',
    'convertAnthropicStream',
    'convertOpenAIStream',
    'convertAnthropicResponse',
    'convertOpenAIResponse',
    'ToolCallCards',
    'ToolCallIds',
    'consumeModelStream',
    'getToolCallPreparations',
  ]) {
    assert.ok(
      examples.some((e) => e.includes(name)),
      `an example uses ${name}`,
    );
  }
});

examples.forEach((code, i) => {
  test(`README example ${i + 1} runs and prints what it says`, () => {
    const run = spawnSync(process.execPath, ['-e', code], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    const want = promised(code);
    assert.ok(want.length > 0, 'the example states its output');
    assert.equal(squash(run.stdout), squash(want.join('\n')));
  });
});
