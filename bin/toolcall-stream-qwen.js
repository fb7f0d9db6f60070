#!/usr/bin/env node
'use strict';
// Runs the installed Qwen Code CLI on this package's native converters, from
// any working directory (the preload is given to Qwen by its absolute URL).
//
//   toolcall-stream-qwen [--qwen <folder>] <qwen arguments…>   e.g. toolcall-stream-qwen --acp
//   toolcall-stream-qwen --check        (or: doctor) what a start would do, without starting
//
// Qwen Code is found through --qwen, TOOLCALL_STREAM_QWEN_CLI, the `qwen` on
// PATH, then `npm root -g`. Every other argument, stdin, stdout, stderr,
// signals and the exit code are Qwen's own. TOOLCALL_STREAM_QWEN=off runs
// Qwen stock. The work is in lib/qwen/launcher.mjs.
import('../lib/qwen/launcher.mjs').then(({ main }) => main());
