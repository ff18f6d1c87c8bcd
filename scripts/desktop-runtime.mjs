// What the desktop app needs beside `npm install`, found and fetched for `npm start` and `npm run doctor`:
// the Electron binary (Electron 45 downloads it lazily, so a fresh install may not have it) and the Electron-ABI
// build of better-sqlite3, kept in .native/electron/ beside the Node build that `npm test` uses (which is never
// rebuilt or replaced). Paths can be redirected for tests and unusual set-ups: CATI_ELECTRON_DIR (the electron
// package), CATI_NATIVE_DIR (where the Electron build lives), CATI_FETCH_ELECTRON_SQLITE (the fetch script).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export const BINDING_FILE = 'better_sqlite3.node';

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
 * The installed Electron: version, the Node ABI its binary loads addons for, and the binary's path when it is
 * there. Deliberately not `require('electron')`: electron 45's index.js starts a download when the binary is missing.
 */
export function electronInfo(dir, env = process.env) {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const abiFile = join(dir, 'abi_version');
  const abi = existsSync(abiFile) ? readFileSync(abiFile, 'utf8').trim() : abiFromNodeAbi(version);
  const pathFile = join(dir, 'path.txt');
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, name ?? 'electron') : name ? join(dir, 'dist', name) : null;
  return { dir, version, abi, binary: binary && existsSync(binary) ? binary : null };
}

function abiFromNodeAbi(version) {
  try {
    return String(require('node-abi').getAbi(version, 'electron'));
  } catch {
    return null;
  }
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

/** Where the Node build of better-sqlite3 is (installed by npm; tests load it). */
export function nodeBindingFile() {
  try {
    return join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', BINDING_FILE);
  } catch {
    return null;
  }
}

/** Where the Electron build of better-sqlite3 is kept. */
export function electronBindingFile(env = process.env) {
  return join(env.CATI_NATIVE_DIR ?? join(root, '.native', 'electron'), BINDING_FILE);
}

/** The last non-empty line of a child's output that is not a stack frame, for a one-line reason. */
function lastLine(text) {
  const lines = String(text ?? '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !/^at\s/.test(l));
  return lines.at(-1) ?? '';
}

/** Where the launcher keeps the full output of its downloads and builds (the terminal gets one line). */
export function launcherLog(env = process.env) {
  return join(dirname(electronBindingFile(env)), 'launcher.log');
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

/** Fetches the Electron build of better-sqlite3 into `out` (scripts/fetch-electron-sqlite.mjs, or CATI_FETCH_ELECTRON_SQLITE). */
export function fetchElectronBinding(electron, out, env = process.env, timeoutMs = 10 * 60_000) {
  const script = env.CATI_FETCH_ELECTRON_SQLITE ?? join(root, 'scripts', 'fetch-electron-sqlite.mjs');
  return runNode(script, ['--electron', electron.version, '--abi', String(electron.abi), '--out', out], env, timeoutMs);
}

/**
 * Makes sure the desktop app can run: a display to open a window on (Linux), the Electron binary (downloaded when missing, unless
 * ELECTRON_SKIP_BINARY_DOWNLOAD is set) and an Electron-ABI better-sqlite3 (fetched when missing or of the wrong
 * ABI). Answers { ok: true, electron, binding } or { ok: false, missing } where `missing` says in a few words
 * which part could not be had and why. `log` receives progress lines (downloads and builds).
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
  if (!electron.abi) return { ok: false, missing: `the Node ABI of Electron ${electron.version} is unknown (no abi_version file)` };

  const binding = electronBindingFile(env);
  const found = bindingAbi(binding);
  if (found !== electron.abi) {
    log(
      found === null
        ? `fetching better-sqlite3 for Electron ${electron.version} (ABI ${electron.abi}) into ${binding}…`
        : `${binding} is built for ABI ${found}, Electron ${electron.version} needs ${electron.abi}: fetching the right build…`,
    );
    const fetched = fetchElectronBinding(electron, binding, env);
    const now = bindingAbi(binding);
    if (!fetched.ok || now === null) {
      return { ok: false, missing: `the Electron build of better-sqlite3 could not be had (${fetched.reason || 'no file after fetching'})` };
    }
    if (now !== electron.abi) {
      return { ok: false, missing: `the Electron build of better-sqlite3 at ${binding} is for ABI ${now}, Electron ${electron.version} needs ${electron.abi}` };
    }
  }
  return { ok: true, electron, binding };
}
