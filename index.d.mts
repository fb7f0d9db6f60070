// Types of index.mjs: the same declarations as index.d.ts (one source of truth).
import * as toolcallStream from './index.js';

export * from './index.js';
export default toolcallStream;
