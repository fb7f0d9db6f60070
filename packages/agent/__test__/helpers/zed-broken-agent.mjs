// The agent with a deliberately broken output, for showing that the
// assertions of e2e-toad-view.test.mjs can fail: runs bin/agent.js with the
// given arguments and passes its stdout on line by line, each tool frame of a
// session/update rewritten by brokenFrame (__test__/helpers/zed-card-view.mjs)
// as TOOLCALL_STREAM_ZED_VIEW_BREAK says; stdin and stderr pass through.
//
//     node zed-broken-agent.mjs <bin/agent.js arguments…>
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { brokenFrame } from '../../../../__test__/helpers/zed-card-view.mjs';

const child = spawn(process.execPath, process.argv.slice(2), { stdio: ['inherit', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stdout.write(`${line}\n`);
    continue;
  }
  if (msg.method === 'session/update') {
    const update = brokenFrame(msg.params.update);
    if (update === null) continue;
    msg.params.update = update;
  }
  process.stdout.write(`${JSON.stringify(msg)}\n`);
}
process.exitCode = await exited;
