'use strict';
// The ACP side: initialize, session/new, session/set_mode, session/prompt and
// session/cancel over newline-delimited JSON-RPC (@agentclientprotocol/sdk 2.x
// app API). What the client offered at initialize is honoured: with
// `fs.writeTextFile`, write_file writes through the client.
const fs = require('node:fs/promises');
const path = require('node:path');
const { randomUUID } = require('node:crypto');

const { version } = require('../package.json');
const { log } = require('./log.js');
const { describeError, isRateLimit } = require('./retry.js');
const { createSession, runPrompt } = require('./session.js');
const permission = require('./permission.js');

/**
 * Serves ACP on the given web streams until the connection closes.
 * `options`: retryDelayMs (base delay between attempts), approve (`ask` or
 * `always`: the mode new sessions start in), fallbackModel, stallTimeoutMs.
 */
async function serve({ provider, options, output, input }) {
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
      if (session.running) throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
      const controller = new AbortController();
      const signal = AbortSignal.any([controller.signal, requestSignal]);
      session.running = controller;
      // Updates go out strictly in order, and all of them before the response.
      let outbox = Promise.resolve();
      const send = (update) => {
        if (!update) return outbox;
        for (const u of Array.isArray(update) ? update : [update]) {
          outbox = outbox.then(() =>
            client.notify(methods.client.session.update, { sessionId: params.sessionId, update: u }),
          );
        }
        return outbox;
      };
      const sessionId = params.sessionId;
      const toolClient = {
        requestPermission: (p) => client.request(methods.client.session.requestPermission, p),
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
        // No card is ever left open at the end of a turn.
        send(session.cards.closeAll());
        await outbox.catch((err) => log(`session/update failed: ${err.message}`));
        session.running = null;
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort(new Error('cancelled by the client (session/cancel)'));
    });

  const connection = app.connect(acp.ndJsonStream(output, input));
  await connection.closed;
}

module.exports = { serve };
