// The loopback provider for generated cases (stream-generator.mjs): serves
// the current case to every request (its status, content type and body in
// its write pieces, ended or dropped) and counts the requests made for it,
// so the SDK's retries show.
import http from 'node:http';
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import { casePieces } from './stream-generator.mjs';

export async function startCaseServer() {
  let current;
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const kase = current;
    req.resume();
    req.on('end', async () => {
      const headers = { 'content-type': kase.contentType };
      // An error status is retried by the SDK; this keeps its backoff short.
      if (kase.status !== 200) headers['retry-after-ms'] = '1';
      res.writeHead(kase.status, headers);
      res.flushHeaders();
      for (const piece of casePieces(kase)) {
        // Each piece its own write, read before the next when the client
        // shares this event loop.
        await turn();
        if (res.destroyed) return;
        res.write(piece);
      }
      if (kase.end === 'drop') {
        // Queued chunks are discarded when the body errors: let them be read first.
        await sleep(25);
        res.socket?.destroy();
      } else res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    /** Serves `kase` from now on and starts its request count. */
    serve(kase) {
      current = kase;
      requests = 0;
    },
    get requests() {
      return requests;
    },
    close() {
      server.close();
      server.closeAllConnections();
    },
  };
}
