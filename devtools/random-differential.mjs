// The random differential: generated cases (stream-generator.mjs) through
// one Qwen Code release stock and with toolcall-stream/qwen, each mode in
// its own process (qwen-random-run.mjs), and what differs between the two.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const runner = fileURLToPath(new URL('./qwen-random-run.mjs', import.meta.url));

/** Every case through one mode in one process; the results in the cases' order. */
export async function runCases(packageDir, mode, cases) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qwen-random-'));
  const file = path.join(dir, 'cases.json');
  fs.writeFileSync(file, JSON.stringify(cases));
  try {
    const { stdout } = await run(process.execPath, [runner, packageDir, mode, file], {
      maxBuffer: 512 << 20,
      timeout: 30 * 60_000,
    });
    const results = stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    if (results.length !== cases.length)
      throw new Error(`${mode}: ${results.length} results for ${cases.length} cases`);
    return results;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A long-lived process of one mode that takes batch after batch (the
 * runner's stdin mode): `run(cases)` resolves to the results in order.
 */
export function startRunner(packageDir, mode) {
  const child = spawn(process.execPath, [runner, packageDir, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let queue = Promise.resolve();
  const runOnce = async (cases) => {
    child.stdin.write(JSON.stringify(cases) + '\n');
    const results = [];
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error(`${mode} runner ended after ${results.length} of ${cases.length} cases`);
      const r = JSON.parse(value);
      if (r.done) break;
      results.push(r);
    }
    if (results.length !== cases.length)
      throw new Error(`${mode}: ${results.length} results for ${cases.length} cases`);
    return results;
  };
  return {
    run(cases) {
      const next = queue.then(() => runOnce(cases));
      queue = next.catch(() => {});
      return next;
    },
    close() {
      child.stdin.end();
      return new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

/** Stock and preload runners of one release: `run(cases)` gives `[{kase, stock, native}]`. */
export function startPair(packageDir) {
  const stock = startRunner(packageDir, 'stock');
  const native = startRunner(packageDir, 'native');
  return {
    async run(cases) {
      const [s, n] = await Promise.all([stock.run(cases), native.run(cases)]);
      return cases.map((kase, i) => ({ kase, stock: s[i], native: n[i] }));
    },
    close: () => Promise.all([stock.close(), native.close()]),
  };
}

/** Both modes on the same cases, in parallel, each in a fresh process: `[{kase, stock, native}]`. */
export async function runBoth(packageDir, cases) {
  const [stock, native] = await Promise.all([
    runCases(packageDir, 'stock', cases),
    runCases(packageDir, 'native', cases),
  ]);
  return cases.map((kase, i) => ({ kase, stock: stock[i], native: native[i] }));
}

/** What differs per run and is not the stream's: the clock's createTime, generated call ids, the preload's path. */
export function masked(result) {
  const ids = new Map();
  const text = JSON.stringify({ ...result, path: undefined }).replace(/call_\d+_[a-z0-9]{7}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `<generated ${ids.size}>`);
    return ids.get(id);
  });
  return JSON.parse(text, (key, value) =>
    key === 'createTime' && typeof value === 'string' && Number(value) >= 1e12 ? '<clock>' : value,
  );
}

/** The leaf paths where `a` and `b` differ (at most `limit`). */
export function diffPaths(a, b, at = '', out = [], limit = 20) {
  if (out.length >= limit) return out;
  if (a === b) return out;
  const objects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object';
  if (!objects || Array.isArray(a) !== Array.isArray(b)) {
    out.push(at || '.');
    return out;
  }
  if (Array.isArray(a) && a.length !== b.length) out.push(`${at}.length`);
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffPaths(a[k], b[k], `${at}.${k}`, out, limit);
  return out;
}

/**
 * What is wrong with one case, or undefined: the masked results differ, or
 * the preload did not take the raw-body path, or either mode hung or left an
 * unhandled rejection. `paths`: where the results differ.
 */
export function difference({ kase, stock, native }) {
  const s = masked(stock);
  const n = masked(native);
  const paths = diffPaths(s, n);
  const problems = [];
  if (stock.hang || native.hang) problems.push('hang');
  if (stock.unhandled.length || native.unhandled.length) problems.push('unhandled rejection');
  // A stream that reaches the conversion is the preload's, from its bytes:
  // never handed back to stock (SDK objects, or a fallback). Qwen may stop
  // before the conversion (an HTTP error, 0.21's content-type check): no path.
  const handedBack = native.path.filter((p) => p !== 'bytes');
  if (handedBack.length) problems.push(`path ${native.path.join('+')}`);
  if (!paths.length && !problems.length) return undefined;
  return { paths, problems, stock: s, native: n };
}

/** A short name for the kind of difference, to group cases (indexes become `*`). */
export function signature(diff) {
  if (diff.problems.length) return diff.problems.join(', ');
  const { stock: s, native: n } = diff;
  if (s.error?.origin !== n.error?.origin)
    return `error class: ${s.error?.origin ?? 'none'} -> ${n.error?.origin ?? 'none'}`;
  const first = diff.paths.map((p) => p.replace(/\.\d+(?=\.|$)/g, '.*'));
  return `differs at ${[...new Set(first)].slice(0, 3).join(' ')}`;
}
