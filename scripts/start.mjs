// `npm start`: builds what is missing or stale, makes sure the desktop app can run (a display, and the Electron
// binary, downloaded on first start) and launches Electron on the project. Nothing native is built for Electron: the
// server inside it loads better-sqlite3 13's prebuilt Node-API binary (server/db/native-binding.ts). When Electron
// cannot be had (no display, offline, ELECTRON_SKIP_BINARY_DOWNLOAD), it says in one line which part is missing and
// runs the headless server with the same arguments (same data, same UI in a browser). The download's full output goes
// to .native/launcher.log. `npm start -- --headless` (or CATI_HEADLESS=1) goes straight to the headless server.
// CATI_SKIP_BUILD=1 skips the renderer and main builds (tests of the launcher's decisions).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildMain } from './build-main.mjs';
import { mainBuildIsFresh, newest } from './main-build-state.mjs';
import { prepareDesktop, root } from './desktop-runtime.mjs';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const headlessAsked = argv.includes('--headless') || process.env.CATI_HEADLESS === '1';
const args = argv.filter((a) => a !== '--headless');
const skipBuild = process.env.CATI_SKIP_BUILD === '1';

/** Builds dist/renderer with vite when it is missing or older than its sources. */
function buildRendererIfStale() {
  const built = join(root, 'dist', 'renderer', 'index.html');
  const sources = [join(root, 'renderer'), join(root, 'common'), join(root, 'vite.config.ts'), join(root, 'main', 'bridge-api.ts')];
  if (existsSync(built) && statSync(built).mtimeMs >= newest(sources)) return;
  console.log('building the renderer (vite build)…');
  const vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Compiles main/ and the server (dist/main, dist/server) when missing or older than their sources: Electron runs them, and so does the headless server (scripts/serve.mjs). */
function buildMainIfStale() {
  if (mainBuildIsFresh()) return;
  console.log('compiling the main process and the server (npm run build:main)…');
  if (buildMain() !== 0) process.exit(1);
}

/** Runs a child with inherited stdio, forwarding SIGINT/SIGTERM, and exits with its status. */
function run(command, commandArgs, env = process.env) {
  const child = spawn(command, commandArgs, { stdio: 'inherit', cwd: root, env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.on('error', (err) => {
    console.error(`cannot start ${command}: ${err.message}`);
    process.exit(1);
  });
}

/**
 * Progress of a download, shown only on a terminal and replaced by what follows, so that the outcome
 * (the app, or the one line saying which part is missing) is all that stays.
 */
function progress(line) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${line}`);
}
const clearProgress = () => process.stderr.isTTY && process.stderr.write('\r\x1b[K');

function runHeadless(reason) {
  if (reason) console.log(`Desktop app not available: ${reason}. Starting the headless server instead — open the link below in a browser.`);
  run(process.execPath, [join(root, 'scripts', 'serve.mjs'), ...args]);
}

if (!skipBuild) buildRendererIfStale();
const ready = headlessAsked ? { ok: false, missing: null } : prepareDesktop(process.env, progress);
clearProgress();
// Both ways run the compiled main process and server (the headless one through scripts/serve.mjs).
if (!skipBuild) buildMainIfStale();
if (ready.ok) {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would make the binary a plain Node
  run(ready.electron.binary, [root, ...args], env);
} else {
  runHeadless(ready.missing);
}
