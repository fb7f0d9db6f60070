// The machine a benchmark ran on, as its report states it: the CPU model,
// cores, memory, Node and the OS, and the load average (the cores here are
// shared, and the load is part of what a figure means).
import fs from 'node:fs';
import os from 'node:os';

export function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch {
    // Not Linux: the model os.cpus() gives.
  }
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return `${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}, load average ${load}`;
}
