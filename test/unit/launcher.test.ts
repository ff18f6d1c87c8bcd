import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The real launcher (scripts/start.mjs) and doctor, run as child processes against fakes: a fake electron package
// (install script that "downloads" or fails, a fake binary that records how it was started). Nothing native is
// fetched or built for Electron any more (it loads better-sqlite3 13's prebuilt Node-API binary), which these tests
// also check: the Node build of better-sqlite3 12 stays byte-identical and no .native/ binding appears.
const ROOT = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const NODE_BINDING = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
const NAPI_PREBUILD = join(dirname(require.resolve('better-sqlite3-napi/package.json')), 'prebuilds', `${process.platform}-${process.arch}.node`);

let dir: string;
let electronDir: string;
let nativeDir: string;
let record: string;

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A fake Electron binary: records its argv and the environment the launcher gave it, exits 0. */
function writeFakeBinary(file: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), sqliteEnv: Object.keys(process.env).filter((k) => k.startsWith('CATI_SQLITE')), runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null }));\n`,
  );
  chmodSync(file, 0o755);
}

/** The fake electron package; `install` = what its install.js does: 'download' the binary, or 'fail' offline. */
function fakeElectronPackage({ binary, install }: { binary: boolean; install: 'download' | 'fail' }) {
  mkdirSync(electronDir, { recursive: true });
  writeFileSync(join(electronDir, 'package.json'), JSON.stringify({ name: 'electron', version: '45.4.1' }));
  const marker = join(dir, 'install-ran');
  const installJs =
    install === 'download'
      ? `const fs=require('fs');fs.writeFileSync(${JSON.stringify(marker)},'');fs.mkdirSync(${JSON.stringify(join(electronDir, 'dist'))},{recursive:true});` +
        `fs.copyFileSync(${JSON.stringify(join(dir, 'binary-template'))},${JSON.stringify(join(electronDir, 'dist', 'electron'))});fs.chmodSync(${JSON.stringify(join(electronDir, 'dist', 'electron'))},0o755);` +
        `fs.writeFileSync(${JSON.stringify(join(electronDir, 'path.txt'))},'electron');`
      : `require('fs').writeFileSync(${JSON.stringify(marker)},'');console.error('TypeError: fetch failed');console.error('    at downloadArtifact (index.js:1:1)');process.exit(1);`;
  writeFileSync(join(electronDir, 'install.js'), installJs);
  writeFakeBinary(join(dir, 'binary-template'));
  if (binary) {
    writeFakeBinary(join(electronDir, 'dist', 'electron'));
    writeFileSync(join(electronDir, 'path.txt'), 'electron');
  }
}

function env(extra: Record<string, string> = {}) {
  const e: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete e.ELECTRON_SKIP_BINARY_DOWNLOAD;
  delete e.ELECTRON_OVERRIDE_DIST_PATH;
  delete e.WAYLAND_DISPLAY;
  // CATI_SERVE_FROM: the headless server from the sources, as dist/ is main-build.test.ts's to rebuild meanwhile.
  return { ...e, DISPLAY: ':0', CATI_ELECTRON_DIR: electronDir, CATI_NATIVE_DIR: nativeDir, CATI_SKIP_BUILD: '1', CATI_SERVE_FROM: 'sources', ...extra };
}

/** Runs `node scripts/start.mjs --port 0 --data-dir D`; answers when Electron exited or the headless server printed its link. */
async function start(extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--port', '0', '--data-dir', join(dir, 'data')], { cwd: ROOT, env: env(extra) });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const outcome = await new Promise<'electron' | 'headless'>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('open the UI: ')) resolve('headless'); // the server's second line
    });
    child.once('exit', (code) => (code === 0 ? resolve('electron') : reject(new Error(`launcher exited ${code}: ${lines.join('\n')}\n${stderr}`))));
  });
  if (outcome === 'headless') {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  const launched = existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')) : null;
  return { outcome, lines, stderr, launched, notice: lines.find((l) => l.startsWith('Desktop app not available')) ?? null };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cati-launcher-'));
  electronDir = join(dir, 'electron');
  nativeDir = join(dir, 'native');
  record = join(dir, 'launched.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('npm start (scripts/start.mjs) decides with fakes', () => {
  it('launches Electron on the project when its binary is present, building and fetching nothing native', async () => {
    fakeElectronPackage({ binary: true, install: 'fail' });
    const nodeBefore = sha(NODE_BINDING);

    const r = await start({ ELECTRON_RUN_AS_NODE: '1' });

    expect(r.outcome).toBe('electron');
    expect(r.launched).toEqual({ argv: [ROOT, '--port', '0', '--data-dir', join(dir, 'data')], sqliteEnv: [], runAsNode: null });
    expect(existsSync(join(dir, 'install-ran'))).toBe(false);
    expect(existsSync(nativeDir)).toBe(false); // no Electron build of better-sqlite3, no download, so no log either
    expect(sha(NODE_BINDING)).toBe(nodeBefore); // npm test's build is untouched
  });

  it('downloads a missing Electron binary through the package install script, then launches it', async () => {
    fakeElectronPackage({ binary: false, install: 'download' });
    const nodeBefore = sha(NODE_BINDING);
    const r = await start();
    expect(existsSync(join(dir, 'install-ran'))).toBe(true);
    expect(r.outcome).toBe('electron');
    expect(r.lines).toEqual([]); // progress only on a terminal; the app is the outcome
    expect(r.launched.argv[0]).toBe(ROOT);
    expect(sha(NODE_BINDING)).toBe(nodeBefore);
    expect(readFileSync(join(nativeDir, 'launcher.log'), 'utf8')).toMatch(/install\.js/); // the download's output, logged
    expect(existsSync(join(nativeDir, 'better_sqlite3.node'))).toBe(false);
  });

  it('falls back to the headless server, naming the part, when the Electron download fails', async () => {
    fakeElectronPackage({ binary: false, install: 'fail' });
    const r = await start();
    expect(r.outcome).toBe('headless');
    expect(r.notice).toBe(
      'Desktop app not available: the Electron 45.4.1 binary could not be downloaded (TypeError: fetch failed). Starting the headless server instead — open the link below in a browser.',
    );
    expect(r.lines.some((l) => /^open the UI: http:\/\/127\.0\.0\.1:\d+\/#token=uit_/.test(l))).toBe(true);
    expect(r.launched).toBeNull();
    // One line says it all: before the server's own lines only the notice, and no stack trace on stderr;
    // the download's full output is kept in the launcher log.
    expect(r.lines.slice(0, r.lines.findIndex((l) => l.startsWith('listening on ')))).toEqual([r.notice]);
    expect(r.stderr).not.toMatch(/TypeError|downloadArtifact/);
    expect(readFileSync(join(nativeDir, 'launcher.log'), 'utf8')).toMatch(/TypeError: fetch failed\n\s+at downloadArtifact/);
  });

  it('does not try to download when ELECTRON_SKIP_BINARY_DOWNLOAD is set', async () => {
    fakeElectronPackage({ binary: false, install: 'download' });
    const r = await start({ ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(r.outcome).toBe('headless');
    expect(r.notice).toMatch(/the Electron 45\.4\.1 binary is not installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set/);
    expect(existsSync(join(dir, 'install-ran'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')('falls back without downloading anything on a Linux machine without a display', async () => {
    fakeElectronPackage({ binary: false, install: 'download' });
    const r = await start({ DISPLAY: '' });
    expect(r.outcome).toBe('headless');
    expect(r.notice).toBe(
      'Desktop app not available: there is no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set). Starting the headless server instead — open the link below in a browser.',
    );
    expect(existsSync(join(dir, 'install-ran'))).toBe(false);
  });

  it('goes straight to the headless server with --headless', async () => {
    fakeElectronPackage({ binary: true, install: 'fail' });
    const child = spawnSync(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--headless', '--port', '99999'], { cwd: ROOT, env: env(), encoding: 'utf8' });
    expect(child.stderr).toContain('--port must be a whole number'); // the server's own argument check: it ran, Electron did not
    expect(existsSync(record)).toBe(false);
  });
});

describe('npm run doctor', () => {
  it('prints the Electron binary, which better-sqlite3 Node and Electron load, the data dirs and the port', () => {
    fakeElectronPackage({ binary: false, install: 'fail' });
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'doctor.mjs'), '--data-dir', join(dir, 'data'), '--port', '0'], { cwd: ROOT, env: env(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Electron\s+45\.4\.1: binary missing; npm start downloads it$/m);
    if (process.platform === 'linux') expect(r.stdout).toMatch(/^Display\s+X11 :0$/m);
    const v12 = JSON.parse(readFileSync(require.resolve('better-sqlite3/package.json'), 'utf8')).version;
    const v13 = JSON.parse(readFileSync(require.resolve('better-sqlite3-napi/package.json'), 'utf8')).version;
    const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // Node 20 (Node-API 9) loads 12 with the build npm made for its ABI; Node-API 10 runtimes load 13.
    const forNode =
      Number(process.versions.napi) >= 10
        ? `${esc(v13)}, Node-API, prebuilt ${esc(NAPI_PREBUILD)}`
        : `${esc(v12)}, ${esc(NODE_BINDING)}: ABI ${process.versions.modules}, matches this Node`;
    expect(r.stdout).toMatch(new RegExp(`^better-sqlite3 for Node\\s+${forNode}$`, 'm'));
    expect(existsSync(NAPI_PREBUILD)).toBe(true);
    expect(r.stdout).toMatch(new RegExp(`^better-sqlite3 for Electron\\s+${esc(v13)}, Node-API, prebuilt ${esc(NAPI_PREBUILD)}$`, 'm'));
    expect(r.stdout).toMatch(/^Data dir \(headless\)\s+.*data: no database yet; no server running on it$/m);
    expect(r.stdout).toMatch(/^Data dir \(desktop\)\s+/m);
    expect(r.stdout).toMatch(/^Port 0 on 127\.0\.0\.1\s+free \(headless server\)$/m);
  });
});
