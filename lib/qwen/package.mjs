// Which Qwen Code a process runs: the package whose cli.js is its entry.
import fs from 'node:fs';
import path from 'node:path';

/** `{dir, version}` of the Qwen Code package whose cli.js is `entry`, or undefined. */
export function qwenPackageOf(entry) {
  if (!entry || path.basename(entry) !== 'cli.js') return undefined;
  try {
    return qwenPackageAt(path.dirname(fs.realpathSync(entry)));
  } catch {
    return undefined;
  }
}

/** `{dir, version}` when `dir` holds the Qwen Code package, or undefined. */
export function qwenPackageAt(dir) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    if (pkg.name !== '@qwen-code/qwen-code' || !fs.existsSync(path.join(dir, 'cli.js'))) return undefined;
    return { dir: fs.realpathSync(dir), version: String(pkg.version) };
  } catch {
    return undefined;
  }
}
