#!/usr/bin/env node
// Runs every fuzz target in turn (never two at once: the cores are shared),
// niced, for SECONDS each (default 300), after seeding the corpus.
//   node fuzz/run.mjs [SECONDS] [TARGET...]
// Needs the nightly toolchain and `cargo install cargo-fuzz`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const TARGETS = [
  'sse_decoder',
  'provider_bytes',
  'anthropic_events',
  'openai_chunks',
  'acp_cards',
  'json_repair',
  'json_fields',
];
const [secondsArg, ...only] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 300);
if (!(seconds > 0)) throw new Error(`bad SECONDS: ${secondsArg}`);
const targets = only.length ? only : TARGETS;

const seed = spawnSync(process.execPath, [path.join(here, 'seed-corpus.mjs')], { stdio: 'inherit' });
if (seed.status !== 0) process.exit(seed.status ?? 1);

const summary = [];
for (const target of targets) {
  const args = [
    '-n', '19', 'cargo', '+nightly', 'fuzz', 'run', '--fuzz-dir', 'fuzz', target, `fuzz/corpus/${target}`, '--',
    `-max_total_time=${seconds}`, '-max_len=65536', '-rss_limit_mb=2048', '-print_final_stats=1',
  ];
  const started = Date.now();
  // libFuzzer logs to stderr, megabytes of it: to a file, not a pipe buffer.
  const logFile = path.join(os.tmpdir(), `toolcall-stream-fuzz-${target}.log`);
  const fd = fs.openSync(logFile, 'w');
  const run = spawnSync('nice', args, { cwd: root, stdio: ['ignore', 'inherit', fd] });
  fs.closeSync(fd);
  const log = fs.readFileSync(logFile, 'utf8');
  process.stderr.write(log.split('\n').slice(-25).join('\n'));
  const execs = /stat::number_of_executed_units:\s*(\d+)/.exec(log)?.[1];
  summary.push({ target, status: run.status ?? run.signal, seconds: Math.round((Date.now() - started) / 1000), execs: Number(execs ?? 0) });
  if (run.status !== 0) {
    console.table(summary);
    console.error(`fuzz target ${target} failed (log: ${logFile}; crash artifact under fuzz/artifacts/${target}/)`);
    process.exit(1);
  }
}
console.table(summary);
