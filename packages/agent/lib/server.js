'use strict';
// The ACP side: initialize, session/new, session/set_mode, session/prompt and
// session/cancel over newline-delimited JSON-RPC (@agentclientprotocol/sdk 2.x
// app API). What the client offered at initialize is honoured: with
// `fs.readTextFile` / `fs.writeTextFile`, the file tools read and write
// through the client (the editor's buffers).
const fs = require('node:fs/promises');
const path = require('node:path');
const { randomUUID } = require('node:crypto');

const { version } = require('../package.json');
const { log } = require('./log.js');
const { describeError, isRateLimit } = require('./retry.js');
const { createSession, runPrompt } = require('./session.js');
const permission = require('./permission.js');
const { updateLineBytes } = require('./frames.js');

/**
 * Serves ACP on the given web streams until the connection closes. `options`
 * (see session.js runPrompt): retryDelayMs, stallTimeoutMs, fallbackModel,
 * approve (`ask` or `always`: the mode new sessions start in), and
 * `maxFrameBytes`, the bound of every outgoing line. `onBroken(err)` is
 * called once when a message cannot be written (the client is gone); the
 * caller logs it and exits non-zero.
 */
async function serve({ provider, options, output, input, onBroken }) {
  const acp = await import('@agentclientprotocol/sdk');
  const { methods, RequestError } = acp;
  const sessions = new Map();
  let clientCapabilities = {};

  const app = acp
    .agent({ name: 'toolcall-stream-agent' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: false,
          sessionCapabilities: { close: {} },
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
        },
        agentInfo: { name: 'toolcall-stream-agent', title: 'toolcall-stream reference agent', version },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      if (!path.isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const cwd = await fs.realpath(params.cwd).catch(() => {
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd does not exist');
      });
      if (!(await fs.stat(cwd)).isDirectory())
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd is not a directory');
      // The whole filesystem is no workspace: the tools would reach every file.
      if (cwd === path.parse(cwd).root)
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must not be the filesystem root');
      const sessionId = randomUUID();
      const session = createSession(sessionId, cwd, permission.initialApproval(options.approve));
      sessions.set(sessionId, session);
      return { sessionId, modes: permission.modeState(session.approval) };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams({ sessionId: params.sessionId }, 'unknown session');
      // Qwen's Session.setMode: an unknown mode is invalidParams.
      if (!permission.setMode(session.approval, params.modeId))
        throw RequestError.invalidParams({ modeId: params.modeId }, `Unknown approval mode: ${params.modeId}`);
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params, signal: requestSignal, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams({ sessionId: params.sessionId }, 'unknown session');
      if (session.running)
        throw RequestError.invalidRequest(undefined, 'a prompt is already running in this ACP session');
      const controller = new AbortController();
      const signal = AbortSignal.any([controller.signal, requestSignal]);
      session.running = controller;
      // Updates go out strictly in order, and all of them before the response.
      let outbox = Promise.resolve();
      const send = (update) => {
        if (!update) return outbox;
        for (const u of Array.isArray(update) ? update : [update]) {
          // Tool frames are bounded where they are built (tool-call.js); this
          // is the last guard, so the client never sees a line it must refuse.
          const bytes = updateLineBytes(params.sessionId, u);
          if (bytes > options.maxFrameBytes) {
            log(`dropped a ${u.sessionUpdate} update of ${bytes} bytes (limit ${options.maxFrameBytes})`);
            continue;
          }
          outbox = outbox.then(() =>
            client.notify(methods.client.session.update, { sessionId: params.sessionId, update: u }),
          );
        }
        return outbox;
      };
      const sessionId = params.sessionId;
      const toolClient = {
        requestPermission: (p) => client.request(methods.client.session.requestPermission, p),
        readTextFile: clientCapabilities.fs?.readTextFile
          ? (filePath) => client.request(methods.client.fs.readTextFile, { sessionId, path: filePath })
          : undefined,
        writeTextFile: clientCapabilities.fs?.writeTextFile
          ? (filePath, content) =>
              client.request(methods.client.fs.writeTextFile, { sessionId, path: filePath, content })
          : undefined,
      };
      try {
        const stopReason = await runPrompt(session, provider, params, signal, send, options, toolClient);
        return { stopReason };
      } catch (err) {
        log(`prompt failed: ${describeError(err)}`);
        // Qwen's #executePromptInner: a 429 that outlived the retries.
        if (isRateLimit(err)) throw new RequestError(429, 'Rate limit exceeded. Try again later.');
        throw RequestError.internalError(
          { providerError: err?.providerError ?? null, status: err?.status ?? null },
          `Model request failed: ${describeError(err)}`,
        );
      } finally {
        // No card is ever left open at the end of a turn; one still preparing after a cancel says so.
        send(session.cards.closeAll(undefined, signal.aborted ? 'cancel' : undefined));
        await outbox.catch((err) => broken(err));
        session.running = null;
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort(new Error('cancelled by the client (session/cancel)'));
    })
    .onRequest(methods.agent.session.close, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams({ sessionId: params.sessionId }, 'unknown session');
      // As session/cancel would, then the session and its history are freed.
      session.running?.abort(new Error('session closed by the client (session/close)'));
      sessions.delete(params.sessionId);
      return {};
    });

  let brokenOnce = false;
  const broken = (err) => {
    if (brokenOnce) return;
    brokenOnce = true;
    for (const s of sessions.values()) s.running?.abort(new Error('the ACP connection is broken'));
    onBroken?.(err);
  };
  const connection = app.connect(acp.ndJsonStream(output, input));
  await connection.closed;
  const running = [...sessions.values()].filter((s) => s.running).length;
  if (running > 0) broken(new Error(`the client closed the connection with ${running} prompt(s) running`));
}

module.exports = { serve };
