// A test server on 127.0.0.1 that can be closed at once: its open sockets
// (a Qwen process keeps its connection alive) are destroyed before it closes.

/** Listens on a free loopback port; `close()` ends every open connection, then the server. */
export async function listenOnLoopback(server) {
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
