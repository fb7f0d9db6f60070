// A scripted ACP client (the SDK's client() app API) driving bin/agent.js as a
// child process over real stdio pipes. Besides the SDK connection it taps the
// agent's stdout and keeps every raw JSON-RPC message with its arrival time,
// so callers see exactly what was on the wire (before any SDK parsing).
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

export const AGENT_PATH = fileURLToPath(new URL('../bin/agent.js', import.meta.url));

/**
 * @param {{provider: 'anthropic'|'openai', providerUrl: string, model?: string, retryDelayMs?: number, extraArgs?: string[]}} options
 *   providerUrl is the loopback provider's origin; the OpenAI client gets `${providerUrl}/v1`.
 *   extraArgs are appended to the agent's command line.
 */
export async function launchAgent({ provider, providerUrl, model, retryDelayMs = 200, extraArgs = [] }) {
  const args = [
    AGENT_PATH,
    '--provider',
    provider,
    '--base-url',
    provider === 'openai' ? `${providerUrl}/v1` : providerUrl,
    '--retry-delay-ms',
    String(retryDelayMs),
  ];
  if (model) args.push('--model', model);
  args.push(...extraArgs);
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-replay', OPENAI_API_KEY: 'sk-replay' },
  });
  const events = new EventEmitter();
  const wire = [];
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr += d;
    events.emit('stderr', d);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

  // Tap: split the agent's stdout into lines as they arrive, record, and pass the bytes on unchanged.
  let pending = '';
  const decoder = new TextDecoder();
  const tap = new TransformStream({
    transform(chunk, controller) {
      const at = performance.now();
      pending += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (!line) continue;
        const entry = { at, msg: JSON.parse(line) };
        wire.push(entry);
        events.emit('message', entry);
        if (entry.msg.method === 'session/update') events.emit('update', { at, ...entry.msg.params });
      }
      controller.enqueue(chunk);
    },
  });

  const app = acp
    .client({ name: 'toolcall-stream-scripted-client' })
    .onNotification(acp.methods.client.session.update, () => {})
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' } }));
  const connection = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout).pipeThrough(tap)),
  );
  const agent = connection.agent;

  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'toolcall-stream-scripted-client', version: '0.1.0' },
  });

  return {
    child,
    exited,
    events,
    wire,
    init,
    get stderr() {
      return stderr;
    },
    /** Every session/update params ({sessionId, update}) received so far, in order, with arrival times. */
    updates(sessionId) {
      return wire
        .filter((e) => e.msg.method === 'session/update' && (!sessionId || e.msg.params.sessionId === sessionId))
        .map((e) => ({ at: e.at, ...e.msg.params }));
    },
    async newSession(cwd) {
      const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      return sessionId;
    },
    prompt(sessionId, text) {
      return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    },
    closeSession(sessionId) {
      return agent.request(acp.methods.agent.session.close, { sessionId });
    },
    cancel(sessionId) {
      return agent.notify(acp.methods.agent.session.cancel, { sessionId });
    },
    async close() {
      connection.close();
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}
