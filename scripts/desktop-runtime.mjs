// What the desktop app needs beside `npm install`, found and fetched for `npm start` and `npm run doctor`: a display
// and the Electron binary (Electron 45 downloads it lazily, so a fresh install may not have it). Nothing native is
// built or fetched for Electron: it runs better-sqlite3 13 (the `better-sqlite3-napi` package), a Node-API addon
// whose package carries a prebuilt binary per platform (server/db/native-binding.ts). Paths can be redirected for
// tests and unusual set-ups: CATI_ELECTRON_DIR (the electron package), CATI_NATIVE_DIR (the launcher log's folder,
// .native/ by default).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const BINDING_FILE = 'better_sqlite3.node';

/** The electron npm package's directory, or null when it is not installed. */
export function electronPackageDir(env = process.env) {
  if (env.CATI_ELECTRON_DIR) return existsSync(join(env.CATI_ELECTRON_DIR, 'package.json')) ? env.CATI_ELECTRON_DIR : null;
  try {
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/**
 * The installed Electron: its version and the binary's path when it is there. Deliberately not `require('electron')`:
 * electron 45's index.js starts a download when the binary is missing.
 */
export function electronInfo(dir, env = process.env) {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const pathFile = join(dir, 'path.txt');
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, name ?? 'electron') : name ? join(dir, 'dist', name) : null;
  return { dir, version, binary: binary && existsSync(binary) ? binary : null };
}

/**
 * The Node ABI a native addon was built for, read from the `node_register_module_v<ABI>` symbol every
 * non-N-API addon exports (ELF, Mach-O and PE alike) — without loading it. null when absent or unreadable.
 */
export function bindingAbi(file) {
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  const match = /node_register_module_v(\d+)/.exec(bytes.toString('latin1'));
  return match ? match[1] : null;
}

/** Where better-sqlite3 12's build for Node is (made by npm install; Node 20 and the tests load it). */
export function nodeBindingFile() {
  try {
    return join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', BINDING_FILE);
  } catch {
    return null;
  }
}

/** Whether this Linux runs on musl libc (better-sqlite3 13 then loads its linuxmusl-<arch> prebuild). */
function isMusl(platform) {
  return platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime;
}

/**
 * The better-sqlite3 13 binary that Electron (and Node with Node-API 10) loads on this platform: `better-sqlite3-napi`'s
 * own prebuilds/<platform>-<arch>.node, whether or not it exists; null when the package is not installed.
 */
export function napiPrebuildFile(platform = process.platform, arch = process.arch, musl = isMusl(platform)) {
  try {
    const dir = dirname(require.resolve('better-sqlite3-napi/package.json'));
    return join(dir, 'prebuilds', `${musl ? 'linuxmusl' : platform}-${arch}.node`);
  } catch {
    return null;
  }
}

/** The version of an installed package (by its name in node_modules), or null. */
export function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  } catch {
    return null;
  }
}

/** The last non-empty line of a child's output that is not a stack frame, for a one-line reason. */
function lastLine(text) {
  const lines = String(text ?? '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !/^at\s/.test(l));
  return lines.at(-1) ?? '';
}

/** Where the launcher keeps the full output of the Electron download (the terminal gets one line). */
export function launcherLog(env = process.env) {
  return join(env.CATI_NATIVE_DIR ?? join(root, '.native'), 'launcher.log');
}

/**
 * Runs `node script args` with the given environment, its output appended to launcherLog() rather than shown;
 * answers { ok, reason } (reason: the last line of its stderr that is not a stack frame).
 */
function runNode(script, args, env, timeoutMs, cwd = root) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd, env, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    mkdirSync(dirname(launcherLog(env)), { recursive: true });
    appendFileSync(launcherLog(env), `\n[${new Date().toISOString()}] node ${script} ${args.join(' ')}\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  } catch {
    // the log is a convenience; the reason below is what counts
  }
  if (result.error) return { ok: false, reason: result.error.code === 'ETIMEDOUT' ? `timed out after ${timeoutMs / 1000} s` : result.error.message };
  if (result.status !== 0) return { ok: false, reason: lastLine(result.stderr) || `exit status ${result.status}` };
  return { ok: true, reason: '' };
}

/** Downloads the Electron binary with the electron package's own install script (what `require('electron')` would do). */
export function installElectron(dir, env = process.env, timeoutMs = 10 * 60_000) {
  return runNode(join(dir, 'install.js'), [], env, timeoutMs, dir);
}

/**
 * Makes sure the desktop app can run: a display to open a window on (Linux) and the Electron binary (downloaded
 * when missing, unless ELECTRON_SKIP_BINARY_DOWNLOAD is set). Answers { ok: true, electron } or { ok: false, missing }
 * where `missing` says in a few words which part could not be had and why. `log` receives progress lines.
 */
export function prepareDesktop(env = process.env, log = () => {}, platform = process.platform) {
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, missing: 'there is no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  }
  const dir = electronPackageDir(env);
  if (!dir) return { ok: false, missing: 'the electron package is not installed (run npm install)' };
  let electron = electronInfo(dir, env);
  if (!electron.binary) {
    if (env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
      return { ok: false, missing: `the Electron ${electron.version} binary is not installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set` };
    }
    log(`downloading Electron ${electron.version} (first start only)…`);
    const installed = installElectron(dir, env);
    electron = electronInfo(dir, env);
    if (!electron.binary) {
      return { ok: false, missing: `the Electron ${electron.version} binary could not be downloaded (${installed.reason || 'no binary after install'})` };
    }
  }
  return { ok: true, electron };
}
