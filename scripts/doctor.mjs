// `npm run doctor [-- --data-dir D] [--port P]`: what the app needs and what is there — Node, the Electron binary,
// which better-sqlite3 each runtime loads (Node 20: 12 with its build's ABI; Node-API 10 runtimes and Electron: 13's
// prebuilt Node-API binary for this platform), the data dirs (headless and desktop) and whether a server runs on
// them, and whether the port is free. Read-only: it downloads and changes nothing.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bindingAbi, electronInfo, electronPackageDir, launcherLog, napiPrebuildFile, nodeBindingFile, packageVersion, root } from './desktop-runtime.mjs';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, port: { type: 'string' } } });
const port = Number(values.port ?? 4100);
const rows = [];
const row = (what, state) => rows.push([what, state]);
const MB = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

row('Node', `${process.version} (ABI ${process.versions.modules}, Node-API ${process.versions.napi})`);
if (platform() === 'linux') {
  const display = process.env.WAYLAND_DISPLAY ? `Wayland ${process.env.WAYLAND_DISPLAY}` : process.env.DISPLAY ? `X11 ${process.env.DISPLAY}` : null;
  row('Display', display ?? 'none (neither DISPLAY nor WAYLAND_DISPLAY is set): npm start runs the headless server');
}

const dir = electronPackageDir();
const electron = dir ? electronInfo(dir) : null;
if (!electron) row('Electron', 'package not installed (npm install)');
else {
  const skip = process.env.ELECTRON_SKIP_BINARY_DOWNLOAD ? '; ELECTRON_SKIP_BINARY_DOWNLOAD is set, so npm start will not download it' : '; npm start downloads it';
  row('Electron', `${electron.version}: ${electron.binary ? `binary at ${electron.binary}` : `binary missing${skip}`}`);
}

/** better-sqlite3 12 (Node-API 9 runtimes, so Node 20): its build for Node, with the ABI it was built for. */
function describeNodeBuild() {
  const file = nodeBindingFile();
  const version = packageVersion('better-sqlite3');
  if (!version) return 'not installed (npm install)';
  if (!file || !existsSync(file)) return `${version}: build missing (npm rebuild better-sqlite3)`;
  const abi = bindingAbi(file);
  const verdict = abi === process.versions.modules ? 'matches this Node' : `does NOT match this Node (ABI ${process.versions.modules})`;
  return `${version}, ${file}: ABI ${abi ?? 'unknown'}, ${verdict}`;
}

/** better-sqlite3 13 (Node-API 10 runtimes: Node ≥ 22.14, 24, Electron 45): its prebuilt binary for this platform. */
function describeNapiBuild() {
  const version = packageVersion('better-sqlite3-napi');
  const file = napiPrebuildFile();
  if (!version || !file) return 'not installed (npm install)';
  const target = file.split(/[\\/]/).at(-1);
  return existsSync(file) ? `${version}, Node-API, prebuilt ${file}` : `${version}: no prebuilt binary for this platform (${target} missing)`;
}
// The same rule as server/db/native-binding.ts's sqliteDriverName (Electron 45 has Node-API 10).
row('better-sqlite3 for Node', Number(process.versions.napi) >= 10 ? describeNapiBuild() : describeNodeBuild());
row('better-sqlite3 for Electron', describeNapiBuild());

if (existsSync(launcherLog())) row('  launcher log', `${launcherLog()} (output of the last Electron download)`);

/** Electron's userData for this app (productName) on this platform. */
function desktopDataDir() {
  const name = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).productName ?? 'cati-supervisor';
  if (platform() === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), name);
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', name);
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), name);
}

function describeDataDir(dataDir) {
  const db = join(dataDir, 'cati.sqlite');
  const parts = [existsSync(db) ? `cati.sqlite ${MB(statSync(db).size)}` : 'no database yet'];
  try {
    const lock = JSON.parse(readFileSync(join(dataDir, 'server.lock'), 'utf8'));
    let alive = false;
    try {
      process.kill(lock.pid, 0);
      alive = true;
    } catch (err) {
      alive = err.code === 'EPERM';
    }
    parts.push(alive ? `a server runs on it (pid ${lock.pid}, ${lock.url})` : `stale server.lock of pid ${lock.pid} (not running)`);
  } catch {
    parts.push('no server running on it');
  }
  return `${dataDir}: ${parts.join('; ')}`;
}
row('Data dir (headless)', describeDataDir(resolve(values['data-dir'] ?? './data')));
row('Data dir (desktop)', describeDataDir(desktopDataDir()));

/** Whether `p` is free on 127.0.0.1. */
const portState = (p) =>
  new Promise((done) => {
    const probe = createServer();
    probe.once('error', (err) => done(err.code === 'EADDRINUSE' ? 'in use' : err.code));
    probe.listen(p, '127.0.0.1', () => probe.close(() => done('free')));
  });
row(`Port ${port} on 127.0.0.1`, `${await portState(port)} (headless server${values.port ? '' : ', default'})`);
let desktopPort = 4100;
try {
  desktopPort = JSON.parse(readFileSync(join(desktopDataDir(), 'settings.json'), 'utf8')).port ?? 4100;
} catch {
  // no desktop settings yet: the default port
}
if (desktopPort !== port && desktopPort !== 0) row(`Port ${desktopPort} on 127.0.0.1`, `${await portState(desktopPort)} (desktop app's setting)`);
const width = Math.max(...rows.map(([w]) => w.length));
for (const [what, state] of rows) console.log(`${what.padEnd(width)}  ${state}`);
