// `npm start`: builds what is missing or stale, then launches Electron when its binary is installed;
// otherwise says so in one line and runs the headless server with the same arguments (same data, same UI).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMain } from './build-main.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

/** Newest modification time (ms) of the files under the given paths. */
function newest(paths) {
  let max = 0;
  for (const p of paths) {
    if (!existsSync(p)) continue;
    const st = statSync(p);
    if (st.isDirectory()) max = Math.max(max, newest(readdirSync(p).map((n) => join(p, n))));
    else max = Math.max(max, st.mtimeMs);
  }
  return max;
}

/** Builds dist/renderer with vite when it is missing or older than its sources. */
function buildRendererIfStale() {
  const built = join(root, 'dist', 'renderer', 'index.html');
  const sources = [join(root, 'renderer'), join(root, 'vite.config.ts'), join(root, 'main', 'bridge-api.ts')];
  if (existsSync(built) && statSync(built).mtimeMs >= newest(sources)) return;
  console.log('building the renderer (vite build)…');
  const vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * Path of the Electron binary when it is installed, else null. Deliberately not `require('electron')`:
 * electron 45's index.js starts a download when the binary is missing; we only look.
 */
function electronBinary() {
  try {
    const dir = dirname(require.resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
    const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
    const binary = override ? join(override, name ?? 'electron') : name ? join(dir, 'dist', name) : null;
    return binary && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** Runs a child with inherited stdio, forwarding SIGINT/SIGTERM, and exits with its status. */
function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { stdio: 'inherit', cwd: root });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

buildRendererIfStale();
const electron = electronBinary();
if (electron) {
  if (buildMain() !== 0) process.exit(1);
  run(electron, [root, ...args]);
} else {
  console.log('Electron binary not available; starting the headless server instead — open the link below in a browser');
  run(process.execPath, ['--import', 'tsx', join(root, 'server', 'cli.ts'), 'serve', ...args]);
}
