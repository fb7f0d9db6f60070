// A worker thread for __test__/workers.test.mjs: converts a write_file
// stream with the package, on command, and reports what it saw.
import { parentPort, workerData } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { anthropicWriteFile, expectedArguments } from './worker-stream.mjs';

const require = createRequire(import.meta.url);
const m = require('../../index.js');
const { native } = require('../../lib/native.js');
const { NativeState, decode } = require('../../lib/wire.js');

/** One batch's responses (lib/wire.js decodes it into a throwaway state). */
const decodeBatch = (batch) => [...decode(new NativeState(0, 0), batch)];

const { reads } = anthropicWriteFile(workerData?.bytes ?? 4096);
const expected = expectedArguments(workerData?.bytes ?? 4096);

/** One whole stream through a fresh converter: its arguments text, as JSON. */
function convertOnce() {
  const c = new m.AnthropicConverter();
  let args;
  const take = (out) => {
    for (const r of out) {
      for (const p of r.candidates?.[0]?.content?.parts ?? []) if (p.functionCall) args = p.functionCall.args;
    }
  };
  for (const read of reads) take(c.pushBytes(read));
  take(c.end());
  return JSON.stringify(args);
}

// Kept alive until the worker exits, fed half a stream each.
const open = [];
const handles = new Map();

const commands = {
  /** `rounds` whole streams; counts the conversions whose arguments differ. */
  convert({ rounds }) {
    let wrong = 0;
    for (let i = 0; i < rounds; i++) if (convertOnce() !== expected) wrong += 1;
    return { wrong };
  },
  /** Converts forever, leaving converters half-fed, until terminated. */
  forever() {
    parentPort.postMessage({ running: true });
    for (let i = 0; ; i++) {
      if (convertOnce() !== expected) throw new Error('a conversion differs');
      const c = new m.AnthropicConverter();
      c.pushBytes(reads[0]);
      open.push(c);
      if (open.length > 64) open.shift();
    }
  },
  /** Opens native states of every kind and keeps them; the process-wide live count. */
  open({ count }) {
    for (let i = 0; i < count; i++) {
      const c = new m.AnthropicConverter();
      c.pushBytes(reads[0]);
      open.push(c, new m.OpenAIConverter(), new m.ToolCallCards(), new m.ToolCallIds([]));
    }
    return { live: m.liveHandles() };
  },
  /** Ends the worker as its own code would, with every state still referenced. */
  exit() {
    process.exit(0);
  },
  /** A raw converter handle, fed half a stream: its slot number. */
  handle({ name }) {
    const h = new native.ConverterHandle('anthropic');
    handles.set(name, h);
    native.converterPushBytes(h.slot, reads[0]);
    return { slot: h.slot };
  },
  /** Calls the native converter entry points with a slot number from elsewhere. */
  poke({ slot }) {
    const codeOf = (batch) => {
      try {
        decodeBatch(batch);
        return 'none';
      } catch (err) {
        return err.code;
      }
    };
    return {
      push: codeOf(native.converterPushBytes(slot, reads[1])),
      end: codeOf(native.converterEnd(slot)),
    };
  },
  /** Finishes the named handle's stream: its arguments text, as JSON. */
  finish({ name }) {
    const h = handles.get(name);
    const out = reads.slice(1).flatMap((read) => decodeBatch(native.converterPushBytes(h.slot, read)));
    out.push(...decodeBatch(native.converterEnd(h.slot)));
    let args;
    for (const r of out) {
      for (const p of r.candidates?.[0]?.content?.parts ?? []) if (p.functionCall) args = p.functionCall.args;
    }
    return { args: JSON.stringify(args) };
  },
};

parentPort.on('message', ({ id, cmd, ...args }) => {
  try {
    parentPort.postMessage({ id, ok: commands[cmd](args) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.stack ?? err) });
  }
});
