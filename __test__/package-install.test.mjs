// A clean install works: `npm pack` the package and this platform's binary
// package (npm/<platform>/ with the binary that `npm run build` left beside
// index.js, as `napi artifacts` fills it for a release), install both tarballs
// into a fresh project that has nothing but Node, and convert a stream through
// `require` and through `import`. The root tarball ships no binary at all
// (they ship in the platform packages, which `napi prepublish` makes
// optionalDependencies of the root); package-contents.test.mjs pins the rest
// of what each tarball ships.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcall-stream-install-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const env = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

function npmRun(args, cwd) {
  // npm is a .cmd on Windows, which Node spawns only through a shell.
  return execFileSync(npm, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  });
}

test(
  'the packed tarball installs into an empty project and converts through require and import',
  { timeout: 60_000 },
  () => {
    const host = fs.readdirSync(root).find((f) => /^toolcall-stream\.[\w-]+\.node$/.test(f));
    assert.ok(host, 'no host binary beside index.js: `npm run build` first');

    const platform = host.slice('toolcall-stream.'.length, -'.node'.length);

    const pack = (dir) => {
      const [packed] = JSON.parse(npmRun(['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], dir));
      return { file: path.join(tmp, packed.filename), files: packed.files.map((f) => f.path) };
    };
    const rootTarball = pack(root);
    assert.ok(!rootTarball.files.some((f) => f.endsWith('.node')), 'the root package ships no binary');

    // The platform package as a release fills it, in a scratch copy.
    const platformDir = path.join(tmp, `platform-${platform}`);
    fs.cpSync(path.join(root, 'npm', platform), platformDir, { recursive: true });
    fs.copyFileSync(path.join(root, host), path.join(platformDir, host));
    const platformTarball = pack(platformDir);
    assert.deepEqual(platformTarball.files.filter((f) => f !== 'README.md').sort(), ['package.json', host].sort());

    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    // --offline: the tarball's runtime dependencies are in npm's cache (npm ci put them there),
    // and its one peer is optional.
    npmRun(
      ['install', rootTarball.file, platformTarball.file, '--offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      app,
    );
    const installed = fs
      .readdirSync(path.join(app, 'node_modules'))
      .filter((d) => !d.startsWith('.'))
      .sort();
    const { dependencies = {} } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.deepEqual(
      installed,
      ['toolcall-stream', `toolcall-stream-${platform}`, ...Object.keys(dependencies)].sort(),
      'nothing but the package, its binary and its declared dependencies is installed',
    );

    const sample = `
const ev = (o) => 'event: ' + o.type + '\\ndata: ' + JSON.stringify(o) + '\\n\\n';
const sse = [
  { type: 'message_start', message: { id: 'msg_1', model: 'claude-test', usage: { input_tokens: 5, output_tokens: 0 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"/tmp/a' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '.txt"}' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
  { type: 'message_stop' },
].map(ev).join('');
function convert({ AnthropicConverter, OpenAIConverter, getToolCallPreparations }) {
  const c = new AnthropicConverter();
  const out = [...c.pushBytes(Buffer.from(sse)), ...c.end()];
  const o = new OpenAIConverter();
  const openai = o.pushChunk({ id: 'c1', model: 'gpt-test', created: 1, choices: [{ index: 0, delta: { content: 'hi' } }] });
  return {
    preparations: out.flatMap((r) => getToolCallPreparations(r)),
    calls: out.flatMap((r) => r.candidates[0].content.parts.filter((p) => p.functionCall).map((p) => p.functionCall)),
    finish: out.at(-1).candidates[0].finishReason,
    openaiText: openai.candidates[0].content.parts[0].text,
    resolved: require.resolve('toolcall-stream'),
    binding: Object.keys(require.cache).find((f) => f.endsWith('.node')),
  };
}
`;
    fs.writeFileSync(
      path.join(app, 'use.cjs'),
      `${sample}\nconst api = require('toolcall-stream');\nconsole.log(JSON.stringify(convert(api)));\n`,
    );
    fs.writeFileSync(
      path.join(app, 'use.mjs'),
      `import { createRequire } from 'node:module';\nimport * as api from 'toolcall-stream';\nconst require = createRequire(import.meta.url);\n${sample}\n` +
        `const same = api.AnthropicConverter === require('toolcall-stream').AnthropicConverter;\n` +
        `console.log(JSON.stringify({ ...convert(api), same, resolvedImport: import.meta.resolve('toolcall-stream') }));\n`,
    );

    const expected = {
      preparations: [{ callId: 'toolu_1', toolName: 'read_file' }],
      calls: [{ id: 'toolu_1', name: 'read_file', args: { path: '/tmp/a.txt' } }],
      finish: 'STOP',
      openaiText: 'hi',
    };
    for (const file of ['use.cjs', 'use.mjs']) {
      const r = spawnSync(process.execPath, [file], {
        cwd: app,
        encoding: 'utf8',
        env: { ...process.env, NODE_PATH: '' },
      });
      assert.equal(r.status, 0, `${file}: ${r.stderr}`);
      const got = JSON.parse(r.stdout);
      assert.deepEqual(
        { preparations: got.preparations, calls: got.calls, finish: got.finish, openaiText: got.openaiText },
        expected,
        file,
      );
      // The installed copy and its platform package, not the work tree.
      const modules = fs.realpathSync(path.join(app, 'node_modules'));
      assert.ok(got.resolved.startsWith(path.join(modules, 'toolcall-stream', '')), got.resolved);
      assert.equal(got.binding, path.join(modules, `toolcall-stream-${platform}`, host));
      if (file === 'use.mjs') {
        assert.equal(got.same, true, 'import and require give the same class');
        assert.match(got.resolvedImport, /node_modules\/toolcall-stream\/index\.mjs$/);
      }
    }

    // Without the optional peer @google/genai, the types resolve the responses
    // as documented in index.d.ts: `any` under skipLibCheck, else an error that
    // names the missing package.
    const require = createRequire(import.meta.url);
    const tscPkg = require.resolve('typescript/package.json');
    const tsc = path.join(path.dirname(tscPkg), require(tscPkg).bin.tsc);
    fs.writeFileSync(
      path.join(app, 'use.mts'),
      "import { AnthropicConverter } from 'toolcall-stream';\nconst n: number = new AnthropicConverter().end().length;\nvoid n;\n",
    );
    const typecheck = (skipLibCheck) =>
      spawnSync(
        process.execPath,
        [
          tsc,
          '--strict',
          '--noEmit',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--types',
          '',
          '--skipLibCheck',
          String(skipLibCheck),
          'use.mts',
        ],
        { cwd: app, encoding: 'utf8' },
      );
    const lenient = typecheck(true);
    assert.equal(lenient.status, 0, lenient.stdout + lenient.stderr);
    const strict = typecheck(false);
    assert.notEqual(strict.status, 0);
    assert.match(strict.stdout + strict.stderr, /Cannot find module '@google\/genai'/);
  },
);
