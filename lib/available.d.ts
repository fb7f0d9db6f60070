/**
 * Whether the binding loads on this machine, without throwing (`toolcall-stream/available`), and
 * which: the native addon for `platform` (`linux-x64-gnu`, …), or the WebAssembly build
 * (`wasm32-wasi`), which loads where no native one does.
 */
export declare function checkAvailable():
  { available: true; kind: 'native' | 'wasi'; platform: string } | { available: false; code: string; reason: string };
