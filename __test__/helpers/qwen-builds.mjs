// The published Qwen Code builds the host tests run, downloaded from the npm
// registry into a cache outside the repository (never committed):
// ${QWEN_ORACLE_HOME:-~/.cache/qwen-oracle}/<version>/package.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export const qwenHome = () => process.env.QWEN_ORACLE_HOME || path.join(os.homedir(), '.cache', 'qwen-oracle');

/** The unpacked package directory of `@qwen-code/qwen-code@version`, downloading it when missing. */
export async function qwenPackage(version) {
  const dir = path.join(qwenHome(), version);
  const pkg = path.join(dir, 'package');
  if (fs.existsSync(path.join(pkg, 'package.json'))) return pkg;
  fs.mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const tarball = execFileSync(npm, ['pack', '--silent', `@qwen-code/qwen-code@${version}`], {
    cwd: dir,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', tarball], { cwd: dir });
  return pkg;
}
