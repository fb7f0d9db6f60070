'use strict';
// Test-only, never shipped: preloaded (NODE_OPTIONS=--require) into node.exe
// under Wine by scripts/test-platforms.mjs. Wine 8 fails the connect() of a
// socket on which SO_KEEPALIVE was set before connecting, which undici (fetch,
// hence the provider SDKs) always does; real Windows connects. TCP keep-alive
// probes change nothing on loopback, so dropping them lets the agent's HTTP
// path run under Wine as it does on Windows.
const net = require('node:net');
net.Socket.prototype.setKeepAlive = function setKeepAlive() {
  return this;
};
