// A scripted ACP client (the SDK's client() app API) driving bin/agent.js as a
// child process over real stdio pipes. Besides the SDK connection it taps both
// directions and keeps every raw JSON-RPC message the agent wrote with its
// arrival time, so callers see exactly what crossed the pipes (before any SDK
// parsing), and can tell which client request each response answers.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

export const AGENT_PATH = fileURLToPath(new URL('../bin/agent.js', import.meta.url));

/** The answer to a permission request: the first offered option of that kind, or `cancelled`. */
function answerPermission(answer, params) {
  if (typeof answer === 'function') return answer(params);
  if (answer === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const option = params.options.find((o) => o.kind === answer);
  if (!option) throw new Error(`the agent offered no ${answer} option`);
  return { outcome: { outcome: 'selected', optionId: option.optionId } };
}

/**
 * @param {{provider: 'anthropic'|'openai', providerUrl: string, model?: string, retryDelayMs?: number,
 *   extraArgs?: string[], permission?: 'allow_once'|'allow_always'|'reject_once'|'reject_always'|'cancelled'|((params: object) => object),
 *   fs?: {readTextFile?: boolean, writeTextFile?: boolean}, onWriteTextFile?: (params: object) => unknown,
 *   onReadTextFile?: (params: object) => unknown}} options
 *   providerUrl is the loopback provider's origin; the OpenAI client gets `${providerUrl}/v1`.
 *   `extraArgs` are appended to the agent's command line (e.g. `--approve=always`). `permission` is how the scripted user
 *   answers every `session/request_permission` (an option kind, or a function of the request).
 *   `fs` is the client capability offered at initialize, served by `onReadTextFile` / `onWriteTextFile`.
 */
/** The agent's command-line arguments (after `node`) for a provider replay server at `providerUrl`. */
export function agentArgs({ provider, providerUrl, retryDelayMs = 200, model, extraArgs = [] }) {
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
  return [...args, ...extraArgs];
}

export async function launchAgent({
  provider,
  providerUrl,
  model,
  retryDelayMs = 200,
  extraArgs = [],
  permission = 'cancelled',
  fs = { readTextFile: false, writeTextFile: false },
  onWriteTextFile,
  onReadTextFile,
}) {
  const args = agentArgs({ provider, providerUrl, retryDelayMs, model, extraArgs });
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

  // The other direction: which method each of the client's request ids named.
  const requestMethods = new Map();
  let outgoing = '';
  const sent = new TransformStream({
    transform(chunk, controller) {
      outgoing += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = outgoing.indexOf('\n')) >= 0) {
        const line = outgoing.slice(0, nl).trim();
        outgoing = outgoing.slice(nl + 1);
        if (!line) continue;
        const msg = JSON.parse(line);
        if (msg.method !== undefined && msg.id !== undefined) requestMethods.set(msg.id, msg.method);
      }
      controller.enqueue(chunk);
    },
  });
  sent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});

  let app = acp
    .client({ name: 'toolcall-stream-scripted-client' })
    .onNotification(acp.methods.client.session.update, () => {})
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => answerPermission(permission, params));
  if (onWriteTextFile)
    app = app.onRequest(
      acp.methods.client.fs.writeTextFile,
      async ({ params }) => (await onWriteTextFile(params)) ?? {},
    );
  if (onReadTextFile) app = app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => onReadTextFile(params));
  const connection = app.connect(acp.ndJsonStream(sent.writable, Readable.toWeb(child.stdout).pipeThrough(tap)));
  const agent = connection.agent;

  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false, ...fs }, terminal: false },
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
    /** The method of the client request a response answers. */
    requestMethod(id) {
      return requestMethods.get(id);
    },
    /** Every `session/request_permission` params the agent sent, in order. */
    permissionRequests(sessionId) {
      return wire
        .filter(
          (e) => e.msg.method === 'session/request_permission' && (!sessionId || e.msg.params.sessionId === sessionId),
        )
        .map((e) => ({ at: e.at, ...e.msg.params }));
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
    /** The whole `session/new` response (sessionId, modes). */
    newSessionResponse(cwd) {
      return agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    },
    setMode(sessionId, modeId) {
      return agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });
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
