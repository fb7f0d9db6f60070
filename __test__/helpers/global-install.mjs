// This package installed the way a user installs it for their editor:
// `npm install -g` into a scratch prefix, from `npm pack` tarballs of the work
// tree and of this platform's binary package (npm/<platform>/ with the
// binary that `npm run build` left beside index.js, as `napi artifacts` fills
// it for a release), and each Qwen Code release from its published tarball
// into a prefix of its own.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureQwenBuild, qwenPackageDir } from '../../devtools/qwen-builds.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const windows = process.platform === 'win32';

const env = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

function npm(args, cwd) {
  // npm is a .cmd on Windows, which Node runs only through a shell.
  return execFileSync(windows ? 'npm.cmd' : 'npm', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: windows,
  });
}

function pack(dir, destination) {
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', destination], dir));
  return path.join(destination, packed.filename);
}

/** `npm install -g --prefix <prefix> <specs…>`, without Qwen's optional native extras (pty, clipboard, sharp). */
function installGlobal(prefix, specs) {
  npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--omit=optional', '--prefer-offline', ...specs], root);
}

/** Where a prefix keeps its bins (npm: `<prefix>/bin`, on Windows the prefix itself). */
export const binDir = (prefix) => (windows ? prefix : path.join(prefix, 'bin'));

/** The installed `toolcall-stream-qwen` command in `prefix`. */
export const launcherCommand = (prefix) => path.join(binDir(prefix), `toolcall-stream-qwen${windows ? '.cmd' : ''}`);

/** The published tarball of Qwen Code `version` (fetched with the release if missing). */
export function qwenTarball(version) {
  ensureQwenBuild(version);
  const dir = path.dirname(qwenPackageDir(version));
  const file = fs.readdirSync(dir).find((f) => f.endsWith(`-${version}.tgz`));
  if (!file) throw new Error(`no tarball of Qwen Code ${version} in ${dir}`);
  return path.join(dir, file);
}

/**
 * Installs this package (with its binary) and Qwen Code `versions[0]` in one
 * `npm install -g` into `<tmp>/global`, as a user would, and each other
 * release into `<tmp>/qwen-<version>`.
 * @returns {{prefix: string, qwenPrefix: Record<string, string>}}
 */
export function installForEditor(tmp, versions) {
  const host = fs.readdirSync(root).find((f) => /^toolcall-stream\.[\w-]+\.node$/.test(f));
  if (!host) throw new Error('no host binary beside index.js: `npm run build` first');
  const platform = host.slice('toolcall-stream.'.length, -'.node'.length);
  const tarballs = path.join(tmp, 'tarballs');
  fs.mkdirSync(tarballs);
  const rootTarball = pack(root, tarballs);
  const platformDir = path.join(tmp, `platform-${platform}`);
  fs.cpSync(path.join(root, 'npm', platform), platformDir, { recursive: true });
  fs.copyFileSync(path.join(root, host), path.join(platformDir, host));
  const platformTarball = pack(platformDir, tarballs);

  const prefix = path.join(tmp, 'global');
  const qwenPrefix = {};
  const [first, ...rest] = versions;
  installGlobal(prefix, [rootTarball, platformTarball, ...(first ? [qwenTarball(first)] : [])]);
  if (first) qwenPrefix[first] = prefix;
  for (const version of rest) {
    qwenPrefix[version] = path.join(tmp, `qwen-${version}`);
    installGlobal(qwenPrefix[version], [qwenTarball(version)]);
  }
  return { prefix, qwenPrefix };
}
