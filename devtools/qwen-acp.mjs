// Runs the published Qwen Code CLI (`node <package>/cli.js --acp`) as a child
// process over real stdio pipes, against a loopback provider, driven by the
// official ACP SDK client. Stock, or with extra Node options (a preload such as
// `--import toolcall-stream/qwen`), so the same tests run on both.
//
// Isolation: HOME is a fresh temporary directory holding only the settings
// written here (Qwen keeps settings, sessions and memory under `$HOME/.qwen`),
// and the environment is rebuilt from scratch, so neither the developer's Qwen
// configuration nor their API keys reach the child.
//
// How Qwen is pointed at the provider (read from the published bundles,
// 0.21.2 and 0.24.4 alike): `getAuthTypeFromEnv` accepts OPENAI_API_KEY +
// OPENAI_BASE_URL + OPENAI_MODEL, or ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL +
// ANTHROPIC_MODEL; ACP `session/new` requires `security.auth.selectedType` in
// settings (else it answers authRequired), which then resolves the model and
// base URL from those variables.
//
// Anything else that goes out through Qwen's HTTP stack (undici's
// EnvHttpProxyAgent, which honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY) meets
// a loopback proxy that refuses it and records it in `outbound`: telemetry,
// update checks and the like are off in the settings, and this shows they stay off.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { ensureQwenBuild } from './qwen-builds.mjs';
import { listenOnLoopback } from './loopback.mjs';

/** Both releases take `--acp`; older ones only `--experimental-acp`. */
export function acpFlag(packageDir) {
  const cli = fs.readFileSync(path.join(packageDir, 'cli.js'), 'utf8');
  return cli.includes('"--acp"') ? '--acp' : '--experimental-acp';
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function merge(base, extra) {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k], v) : v;
  return out;
}

/**
 * The user settings Qwen reads from `$HOME/.qwen/settings.json`.
 * `approvalMode: 'default'` makes edits ask for permission (the mode an editor
 * user starts in); Qwen's own default in ACP is `auto`, an LLM classifier that
 * would send its own model requests.
 */
export function qwenSettings({ provider, approvalMode = 'default', retryInitialDelayMs, settings } = {}) {
  const base = {
    security: { auth: { selectedType: provider } },
    tools: { approvalMode },
    general: { enableAutoUpdate: false, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false },
  };
  // Stream rate-limit retries wait 60 s × 2^n unless told otherwise.
  if (retryInitialDelayMs !== undefined) base.model = { generationConfig: { retryInitialDelayMs } };
  return merge(base, settings);
}

function providerEnv(provider, providerUrl, model) {
  // The Responses auth type reads the OpenAI variables too (its key
  // OPENAI_API_KEY, its model OPENAI_MODEL, the base URL OPENAI_BASE_URL:
  // packages/cli/src/config/auth.ts and packages/cli/src/utils/modelConfigUtils.ts
  // from 0.23.3 on); it is chosen only by `security.auth.selectedType:
  // 'openai-responses'`, which getAuthTypeFromEnv never returns. Its
  // pipeline posts to `<base URL without /v1>/v1/responses`.
  if (provider === 'openai' || provider === 'openai-responses')
    return { OPENAI_API_KEY: 'sk-replay', OPENAI_BASE_URL: `${providerUrl}/v1`, OPENAI_MODEL: model ?? 'replay-model' };
  if (provider === 'anthropic')
    return {
      ANTHROPIC_API_KEY: 'sk-ant-replay',
      ANTHROPIC_BASE_URL: providerUrl,
      ANTHROPIC_MODEL: model ?? 'claude-replay',
    };
  throw new TypeError(`provider must be 'anthropic', 'openai' or 'openai-responses', not ${provider}`);
}

/** What the client answers to `session/request_permission`: an option kind, 'cancelled', or a function of the params. */
function permissionOutcome(permission, params) {
  const choice = typeof permission === 'function' ? permission(params) : permission;
  if (choice === 'cancelled') return { outcome: 'cancelled' };
  if (isObject(choice)) return choice;
  const option = params.options.find((o) => o.kind === choice);
  if (!option) throw new Error(`no ${choice} option in ${JSON.stringify(params.options)}`);
  return { outcome: 'selected', optionId: option.optionId };
}

/** A loopback HTTP proxy that lets nothing through and records what was tried. */
async function startOutboundTrap() {
  const attempts = [];
  const server = http.createServer((req, res) => {
    attempts.push({ method: req.method, url: req.url });
    res.writeHead(403).end();
  });
  server.on('connect', (req, socket) => {
    attempts.push({ method: 'CONNECT', url: req.url });
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  return { ...(await listenOnLoopback(server)), attempts };
}

/**
 * @param {object} options
 * @param {string} options.version            Qwen Code release, e.g. '0.21.2' (fetched if missing)
 * @param {'anthropic'|'openai'|'openai-responses'} options.provider
 * @param {string} options.providerUrl        the loopback provider's origin (OpenAI gets `${providerUrl}/v1`)
 * @param {string} [options.cwd]              the child's working directory (default: its temporary HOME)
 * @param {string} [options.model]
 * @param {string} [options.nodeOptions]      NODE_OPTIONS for the child, e.g. '--import=toolcall-stream/qwen'
 * @param {string[]} [options.execArgv]       Node flags placed before cli.js
 * @param {string} [options.command]          start Qwen as an editor would: this executable with the
 *   ACP flag as its one argument (e.g. the installed `toolcall-stream-qwen`), instead of `node cli.js`
 * @param {Record<string, string>} [options.env]  extra environment (wins over everything set here)
 * @param {string} [options.approvalMode]     Qwen's tools.approvalMode (default 'default')
 * @param {number} [options.retryInitialDelayMs]
 * @param {object} [options.settings]         deep-merged into the settings file
 * @param {string|Function} [options.permission]  'allow_once' (default), 'allow_always', 'reject_once', 'cancelled', or (params) => one of those or an outcome
 */
export async function launchQwen({
  version,
  provider,
  providerUrl,
  cwd,
  model,
  nodeOptions,
  execArgv = [],
  command,
  env = {},
  approvalMode,
  retryInitialDelayMs,
  settings,
  permission = 'allow_once',
}) {
  const packageDir = ensureQwenBuild(version);
  const trap = await startOutboundTrap();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `qwen-home-${version}-`));
  fs.mkdirSync(path.join(home, '.qwen'));
  fs.writeFileSync(
    path.join(home, '.qwen', 'settings.json'),
    JSON.stringify(qwenSettings({ provider, approvalMode, retryInitialDelayMs, settings }), null, 2),
  );
  // What a process needs to run at all (Windows: Path, SystemRoot, ComSpec), nothing else inherited.
  const system = {};
  for (const name of ['PATH', 'Path', 'SystemRoot', 'SYSTEMROOT', 'ComSpec', 'windir', 'PATHEXT']) {
    if (process.env[name] !== undefined) system[name] = process.env[name];
  }
  const childEnv = {
    ...system,
    HOME: home,
    USERPROFILE: home, // os.homedir() on Windows
    TMPDIR: os.tmpdir(),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    QWEN_TELEMETRY_ENABLED: 'false',
    QWEN_USAGE_STATISTICS_ENABLED: 'false',
    HTTPS_PROXY: trap.url,
    HTTP_PROXY: trap.url,
    NO_PROXY: '127.0.0.1,localhost',
    ...providerEnv(provider, providerUrl, model),
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    ...env,
  };
  const [file, args] = command
    ? [command, [acpFlag(packageDir)]]
    : [process.execPath, [...execArgv, path.join(packageDir, 'cli.js'), acpFlag(packageDir)]];
  const child = spawn(file, args, {
    cwd: cwd ?? home,
    env: childEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    // An npm bin is a .cmd on Windows, which Node runs only through a shell.
    shell: process.platform === 'win32' && /\.cmd$/i.test(file),
  });
  const spawned = new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

  const events = new EventEmitter();
  const wire = [];
  const permissions = [];
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr += d;
    events.emit('stderr', d);
  });

  // Tap: every line the agent writes, with its arrival time, before the SDK parses it.
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
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          msg = { notJson: line };
        }
        const entry = { at, msg };
        wire.push(entry);
        events.emit('message', entry);
        if (msg.method === 'session/update') events.emit('update', { at, ...msg.params });
      }
      controller.enqueue(chunk);
    },
  });

  const app = acp
    .client({ name: 'toolcall-stream-qwen-host-test' })
    .onNotification(acp.methods.client.session.update, () => {})
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const outcome = permissionOutcome(permission, params);
      const entry = { at: performance.now(), params, outcome };
      permissions.push(entry);
      events.emit('permission', entry);
      return { outcome };
    });
  await spawned.catch(async (error) => {
    await trap.close();
    throw error;
  });
  const connection = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout).pipeThrough(tap)),
  );
  const agent = connection.agent;

  let closed;
  async function close() {
    closed ??= (async () => {
      // EOF on stdin is Qwen's signal to shut down. Keep reading its stdout
      // until it exits: closing the connection first makes its last writes
      // fail with EPIPE (0.24.4 then exits 1).
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const result = await exited;
      clearTimeout(timer);
      connection.close();
      await trap.close();
      fs.rmSync(home, { recursive: true, force: true });
      return result;
    })();
    return closed;
  }

  let init;
  try {
    init = await Promise.race([
      agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'toolcall-stream-qwen-host-test', version: '0.1.0' },
      }),
      exited.then(({ code, signal }) => {
        throw new Error(
          `qwen ${version} exited (${code ?? signal}) before initialize answered: ${stderr.slice(-2000)}`,
        );
      }),
    ]);
  } catch (error) {
    await close();
    throw error;
  }

  return {
    version,
    provider,
    packageDir,
    home,
    child,
    init,
    events,
    /** Every line from the agent's stdout: {at, msg}. */
    wire,
    /** Every session/request_permission received: {at, params, outcome}. */
    permissions,
    /** Requests Qwen tried to send anywhere but loopback (through its proxy-aware HTTP stack): {method, url}. */
    outbound: trap.attempts,
    get stderr() {
      return stderr;
    },
    /** The session/update params ({sessionId, update}) received so far, in order, each with its arrival time `at`. */
    updates(sessionId) {
      return wire
        .filter((e) => e.msg.method === 'session/update' && (!sessionId || e.msg.params.sessionId === sessionId))
        .map((e) => ({ at: e.at, ...e.msg.params }));
    },
    /** session/new in `cwd`; authenticates with the provider's method first if Qwen asks for it. */
    async newSession(sessionCwd) {
      const request = () => agent.request(acp.methods.agent.session.new, { cwd: sessionCwd, mcpServers: [] });
      try {
        return (await request()).sessionId;
      } catch (error) {
        if (error?.code !== -32000) throw error; // authRequired
        await agent.request(acp.methods.agent.authenticate, { methodId: provider });
        return (await request()).sessionId;
      }
    },
    prompt(sessionId, text) {
      return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    },
    cancel(sessionId) {
      return agent.notify(acp.methods.agent.session.cancel, { sessionId });
    },
    /** Ends stdin, waits for the exit (SIGKILL after 5 s), closes the connection, removes HOME. */
    close,
  };
}
