// The JSON stop search by instruction set (BENCHMARKS.md, "Stop search by
// instruction set"): the Rust benchmark (benchmark/rust) built on the
// target's own search, on SWAR and on the byte loop (`--cfg
// stop_search="swar"` or `"scalar"`, nothing else between them), so a row's
// times differ by the search alone.
//
//   node benchmark/stop-search.mjs [rounds=3]   times on this machine: the binaries run in turn,
//                                               `rounds` times each; the median of each row's
//                                               convert ms, and each over the target's own
//   node benchmark/stop-search.mjs insns        instructions per conversion under qemu-user with a
//                                               counting plugin (benchmark/qemu-insn.c): x86_64 SSE2
//                                               and SWAR, aarch64 NEON and SWAR, on the same streams
//
// `insns` installs what it needs as scripts/test-platforms.mjs does (Debian's
// qemu-user, gcc-aarch64-linux-gnu and arm64 glibc; the Rust target). Each
// count is a run converting the stream N times less a run converting it 0
// times (the stream's generation), over N.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebian, run } from '../devtools/commands.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const manifest = path.join(here, 'rust', 'Cargo.toml');
const ARM64 = 'aarch64-unknown-linux-gnu';
const arm64Sysroot = '/usr/aarch64-linux-gnu';

/**
 * The bench executable for `target` (host when absent), built on `search`
 * (`swar`, `scalar`; the target's own when absent), each in its own target
 * folder.
 */
function build({ target, search }) {
  const dir = path.join(root, 'target', 'stop-search', `${target ?? 'host'}-${search ?? 'native'}`);
  const env = { ...process.env, CARGO_TARGET_DIR: dir };
  env.RUSTFLAGS = [process.env.RUSTFLAGS, search && `--cfg stop_search="${search}"`].filter(Boolean).join(' ');
  if (target === ARM64) env.CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER = 'aarch64-linux-gnu-gcc';
  const args = ['bench', '--manifest-path', manifest, '--no-run', '--message-format=json'];
  if (target) args.push('--target', target);
  const out = execFileSync('nice', ['-n', '19', 'cargo', ...args], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  });
  const exe = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((m) => m.reason === 'compiler-artifact' && m.target?.name === 'core' && m.executable)?.executable;
  if (!exe) throw new Error('stop-search: no bench executable from cargo');
  return exe;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Each row's convert ms from one plain run of the bench. */
function convertTimes(exe) {
  const text = execFileSync(exe, ['--bench'], { encoding: 'utf8' });
  const rows = new Map();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 7 || !/^\d/.test(cells[5])) continue;
    rows.set(cells[1], Number(cells[5]));
  }
  return rows;
}

function times(rounds) {
  const native = process.arch === 'x64' ? 'SSE2' : process.arch === 'arm64' ? 'NEON' : 'native';
  const builds = [
    [native, build({})],
    ['SWAR', build({ search: 'swar' })],
    ['byte loop', build({ search: 'scalar' })],
  ];
  const runs = builds.map(() => []);
  for (let r = 0; r < rounds; r++) builds.forEach(([, exe], k) => runs[k].push(convertTimes(exe)));
  console.log(`convert ms, median of ${rounds} alternating runs (${os.cpus()[0]?.model ?? 'unknown CPU'})\n`);
  const others = builds.slice(1).map(([name]) => `${name} ÷ ${native}`);
  const head = [...builds.map(([name]) => name), ...others];
  console.log(`| stream | ${head.join(' | ')} |\n|---|${'---:|'.repeat(head.length)}`);
  for (const label of runs[0][0].keys()) {
    const ms = runs.map((r) => median(r.map((m) => m.get(label))));
    const ratios = ms.slice(1).map((m) => `${(m / ms[0]).toFixed(2)}×`);
    console.log(`| ${label} | ${ms.map((m) => m.toFixed(3)).join(' | ')} | ${ratios.join(' | ')} |`);
  }
}

/** The streams counted: the bench's `profile` provider, its content KB, its label. */
const STREAMS = [
  ['anthropic', 100, 'Anthropic 100 KB'],
  ['openai', 100, 'OpenAI 100 KB'],
  ['openai-drop', 100, 'OpenAI 100 KB, drop_empty'],
  ['anthropic-text', 33, 'Anthropic text 33 KB (P7)'],
  ['openai-text', 33, 'OpenAI text 33 KB (P7)'],
];

function insns() {
  ensureDebian({
    '/usr/bin/qemu-aarch64': 'qemu-user',
    '/usr/bin/aarch64-linux-gnu-gcc': 'gcc-aarch64-linux-gnu',
    [path.join(arm64Sysroot, 'lib', 'ld-linux-aarch64.so.1')]: 'libc6-arm64-cross',
    [path.join(arm64Sysroot, 'lib', 'libc.so')]: 'libc6-dev-arm64-cross',
  });
  const installed = execFileSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).split('\n');
  if (!installed.includes(ARM64)) run('rustup', ['target', 'add', ARM64]);
  const plugin = path.join(os.tmpdir(), `toolcall-stream-insn-${process.pid}.so`);
  run('cc', ['-shared', '-fPIC', '-O2', '-o', plugin, path.join(here, 'qemu-insn.c')]);
  const columns = [
    ['x86_64 SSE2', 'qemu-x86_64', build({})],
    ['x86_64 SWAR', 'qemu-x86_64', build({ search: 'swar' })],
    ['aarch64 NEON', 'qemu-aarch64', build({ target: ARM64 })],
    ['aarch64 SWAR', 'qemu-aarch64', build({ target: ARM64, search: 'swar' })],
  ];
  const count = (qemu, exe, args) => {
    const sysroot = qemu === 'qemu-aarch64' ? ['-L', arm64Sysroot] : [];
    const r = spawnSync(qemu, [...sysroot, '-plugin', plugin, exe, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const m = r.status === 0 && /insns: (\d+)/.exec(r.stderr);
    if (!m) throw new Error(`stop-search: no count from ${qemu} ${exe}`);
    return Number(m[1]);
  };
  const n = 5;
  console.log(
    `millions of instructions per conversion (qemu-user ${execFileSync('qemu-aarch64', ['--version'], {
      encoding: 'utf8',
    })
      .split('\n')[0]
      .replace(/^.*version /, '')}, counting plugin)\n`,
  );
  console.log(
    `| stream | ${columns.map(([c]) => c).join(' | ')} | NEON ÷ SSE2 |\n|---|${'---:|'.repeat(columns.length + 1)}`,
  );
  for (const [provider, kb, label] of STREAMS) {
    const per = columns.map(([, qemu, exe]) => {
      const base = count(qemu, exe, ['profile', String(kb), '0', provider]);
      return (count(qemu, exe, ['profile', String(kb), String(n), provider]) - base) / n;
    });
    const cells = per.map((x) => (x / 1e6).toFixed(2));
    console.log(`| ${label} | ${cells.join(' | ')} | ${(per[2] / per[0]).toFixed(2)} |`);
  }
  fs.rmSync(plugin, { force: true });
}

const [mode = '3'] = process.argv.slice(2);
if (mode === 'insns') insns();
else times(Number(mode));
