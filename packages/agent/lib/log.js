'use strict';
// Diagnostics go to stderr: stdout carries only ACP messages.

const log = (...args) => process.stderr.write(`[toolcall-stream-agent] ${args.join(' ')}\n`);

module.exports = { log };
