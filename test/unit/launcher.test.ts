import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The real launcher (scripts/start.mjs) and doctor, run as child processes against fakes: a fake electron package
// (install script that "downloads" or fails, a fake binary that records how it was started), fake better-sqlite3
// builds (files carrying the node_register_module_v<ABI> symbol the launcher reads) and a fake fetch script.
const ROOT = join(import.meta.dirname, '..', '..');
const NODE_BINDING = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
const ELECTRON_ABI = '150';

let dir: string;
let electronDir: string;
let nativeDir: string;
let record: string;

const fakeBinding = (abi: string) => Buffer.concat([Buffer.from('\x7fELF fake addon\0'), Buffer.from(`node_register_module_v${abi}\0`)]);
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A fake Electron binary: records its argv and the binding env, exits 0. */
function writeFakeBinary(file: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), binding: process.env.CATI_SQLITE_BINDING, abi: process.env.CATI_SQLITE_BINDING_ABI, runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null }));\n`,
  );
  chmodSync(file, 0o755);
}

/** The fake electron package; `install` = what its install.js does: 'download' the binary, or 'fail' offline. */
function fakeElectronPackage({ binary, install }: { binary: boolean; install: 'download' | 'fail' }) {
  mkdirSync(electronDir, { recursive: true });
  writeFileSync(join(electronDir, 'package.json'), JSON.stringify({ name: 'electron', version: '45.4.1' }));
  writeFileSync(join(electronDir, 'abi_version'), ELECTRON_ABI);
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

/** The fake fetch script: writes a build of `abi`, or fails as offline. */
function fakeFetch(result: { abi: string } | 'fail'): string {
  const script = join(dir, 'fake-fetch.mjs');
  writeFileSync(
    script,
    result === 'fail'
      ? `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(join(dir, 'fetch-ran'))}, ''); console.error('could not fetch better-sqlite3 for Electron 45.4.1: no prebuilt binary (getaddrinfo ENOTFOUND github.com)'); process.exit(1);`
      : `import fs from 'node:fs'; const out = process.argv[process.argv.indexOf('--out') + 1]; fs.writeFileSync(${JSON.stringify(join(dir, 'fetch-ran'))}, process.argv.slice(2).join(' ')); fs.mkdirSync(${JSON.stringify(nativeDir)}, { recursive: true }); fs.writeFileSync(out, Buffer.from(${JSON.stringify(fakeBinding(result.abi).toString('latin1'))}, 'latin1'));`,
  );
  return script;
}

function env(extra: Record<string, string> = {}) {
  const e: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete e.ELECTRON_SKIP_BINARY_DOWNLOAD;
  delete e.ELECTRON_OVERRIDE_DIST_PATH;
  delete e.WAYLAND_DISPLAY;
  return { ...e, DISPLAY: ':0', CATI_ELECTRON_DIR: electronDir, CATI_NATIVE_DIR: nativeDir, CATI_SKIP_BUILD: '1', ...extra };
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
  it('launches Electron on the project with the Electron build of better-sqlite3 when both are present', async () => {
    fakeElectronPackage({ binary: true, install: 'fail' });
    mkdirSync(nativeDir, { recursive: true });
    writeFileSync(join(nativeDir, 'better_sqlite3.node'), fakeBinding(ELECTRON_ABI));
    const nodeBefore = sha(NODE_BINDING);

    const r = await start({ ELECTRON_RUN_AS_NODE: '1' });

    expect(r.outcome).toBe('electron');
    expect(r.launched).toEqual({ argv: [ROOT, '--port', '0', '--data-dir', join(dir, 'data')], binding: join(nativeDir, 'better_sqlite3.node'), abi: ELECTRON_ABI, runAsNode: null });
    expect(existsSync(join(dir, 'install-ran'))).toBe(false);
    expect(existsSync(join(dir, 'fetch-ran'))).toBe(false);
    expect(sha(NODE_BINDING)).toBe(nodeBefore); // npm test's build is untouched
  });

  it('downloads a missing Electron binary through the package install script, and fetches a missing binding', async () => {
    fakeElectronPackage({ binary: false, install: 'download' });
    const nodeBefore = sha(NODE_BINDING);
    const r = await start({ CATI_FETCH_ELECTRON_SQLITE: fakeFetch({ abi: ELECTRON_ABI }) });
    expect(existsSync(join(dir, 'install-ran'))).toBe(true);
    expect(r.outcome).toBe('electron');
    expect(r.lines).toEqual([]); // progress only on a terminal; the app is the outcome
    expect(sha(NODE_BINDING)).toBe(nodeBefore);
    expect(readFileSync(join(dir, 'fetch-ran'), 'utf8')).toBe(`--electron 45.4.1 --abi ${ELECTRON_ABI} --out ${join(nativeDir, 'better_sqlite3.node')}`);
    expect(r.launched.binding).toBe(join(nativeDir, 'better_sqlite3.node'));
  });

  it('replaces a binding of the wrong ABI (a Node build copied there) before launching', async () => {
    fakeElectronPackage({ binary: true, install: 'fail' });
    mkdirSync(nativeDir, { recursive: true });
    writeFileSync(join(nativeDir, 'better_sqlite3.node'), readFileSync(NODE_BINDING)); // the real Node build: ABI 115
    const r = await start({ CATI_FETCH_ELECTRON_SQLITE: fakeFetch({ abi: ELECTRON_ABI }) });
    expect(r.outcome).toBe('electron');
    expect(existsSync(join(dir, 'fetch-ran'))).toBe(true);
    expect(readFileSync(join(nativeDir, 'better_sqlite3.node'))).toEqual(fakeBinding(ELECTRON_ABI));
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

  it('falls back when the Electron build of better-sqlite3 cannot be fetched, or comes with the wrong ABI', async () => {
    fakeElectronPackage({ binary: true, install: 'fail' });
    const offline = await start({ CATI_FETCH_ELECTRON_SQLITE: fakeFetch('fail') });
    expect(offline.outcome).toBe('headless');
    expect(offline.notice).toMatch(/^Desktop app not available: the Electron build of better-sqlite3 could not be had \(could not fetch .*ENOTFOUND github\.com\)\)\./);
    expect(offline.lines.slice(0, offline.lines.findIndex((l) => l.startsWith('listening on ')))).toEqual([offline.notice]);
    expect(offline.stderr).toBe('');

    const wrong = await start({ CATI_FETCH_ELECTRON_SQLITE: fakeFetch({ abi: '115' }) });
    expect(wrong.outcome).toBe('headless');
    expect(wrong.notice).toMatch(/better-sqlite3 at .* is for ABI 115, Electron 45\.4\.1 needs 150/);
    expect(wrong.launched).toBeNull();
  });

  it('leaves npm test working after npm start: the Node build is untouched and Node ignores the Electron build it inherits', async () => {
    fakeElectronPackage({ binary: true, install: 'fail' });
    const nodeBefore = sha(NODE_BINDING);
    const r = await start({ CATI_FETCH_ELECTRON_SQLITE: fakeFetch({ abi: ELECTRON_ABI }) });
    expect(r.outcome).toBe('electron');
    expect(sha(NODE_BINDING)).toBe(nodeBefore);
    // A Node process started from the app's environment (a test run from its terminal, the import worker's Node…)
    // opens the database with the Node build although CATI_SQLITE_BINDING points at the Electron one.
    const opened = spawnSync(
      process.execPath,
      ['--import', 'tsx', '-e', `import('./server/db/open.ts').then((m) => { const db = m.openDatabase(${JSON.stringify(join(dir, 'n.sqlite'))}); console.log(db.pragma('journal_mode', { simple: true })); db.close(); })`],
      { cwd: ROOT, env: { ...env(), CATI_SQLITE_BINDING: r.launched.binding, CATI_SQLITE_BINDING_ABI: r.launched.abi }, encoding: 'utf8' },
    );
    expect(opened.stderr).toBe('');
    expect(opened.stdout.trim()).toBe('wal');
    // And the reverse: the Electron build stays where npm start put it whatever Node does.
    expect(readFileSync(join(nativeDir, 'better_sqlite3.node'))).toEqual(fakeBinding(ELECTRON_ABI));
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
  it('prints the Electron binary, both bindings with their ABI, the data dirs and the port', () => {
    fakeElectronPackage({ binary: false, install: 'fail' });
    mkdirSync(nativeDir, { recursive: true });
    writeFileSync(join(nativeDir, 'better_sqlite3.node'), fakeBinding('115'));
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'doctor.mjs'), '--data-dir', join(dir, 'data'), '--port', '0'], { cwd: ROOT, env: env(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Electron\s+45\.4\.1 \(ABI 150\): binary missing; npm start downloads it$/m);
    if (process.platform === 'linux') expect(r.stdout).toMatch(/^Display\s+X11 :0$/m);
    expect(r.stdout).toMatch(new RegExp(`^better-sqlite3 for Node\\s+.*better_sqlite3\\.node: ABI ${process.versions.modules}, matches this Node$`, 'm'));
    expect(r.stdout).toMatch(/^better-sqlite3 for Electron\s+.*native\/better_sqlite3\.node: ABI 115, does NOT match Electron \(ABI 150\)$/m);
    expect(r.stdout).toMatch(/^Data dir \(headless\)\s+.*data: no database yet; no server running on it$/m);
    expect(r.stdout).toMatch(/^Data dir \(desktop\)\s+/m);
    expect(r.stdout).toMatch(/^Port 0 on 127\.0\.0\.1\s+free \(headless server\)$/m);
  });
});
