// Counting crossings into the ACP layer's native code: every method of the
// native ACP classes (NativeToolCallCards, NativePreparationTracker,
// NativeToolCallIds) and the native plan builder, wrapped where
// lib/native.js reaches them (the classes' shared prototypes, and the
// guarded binding object), so that every call lib/acp/ makes is counted,
// whichever instance makes it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// The binding lib/native.js loaded (native, or the WebAssembly build).
const { native, binding } = require('../../lib/native.js');

const CLASSES = ['NativeToolCallCards', 'NativePreparationTracker', 'NativeToolCallIds'];
const FUNCTIONS = ['acpPlanUpdate'];

const calls = [];
let installed = false;

function counted(fn, name) {
  return function (...args) {
    calls.push(name);
    return fn.apply(this, args);
  };
}

/** Wraps the native ACP entries once; later calls do nothing. */
export function countNativeCrossings() {
  if (installed) return;
  installed = true;
  for (const name of CLASSES) {
    const proto = binding[name].prototype;
    for (const key of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (key !== 'constructor' && typeof d.value === 'function') {
        Object.defineProperty(proto, key, { ...d, value: counted(d.value, `${name}.${key}`) });
      }
    }
  }
  for (const name of FUNCTIONS) native[name] = counted(native[name], name);
}

/** How many native ACP calls have been made so far (each named in `crossingsSince`). */
export function crossingCount() {
  return calls.length;
}

/** The names of the native ACP calls made since `count` was read. */
export function crossingsSince(count) {
  return calls.slice(count);
}
