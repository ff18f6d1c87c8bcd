import { Ajv } from 'ajv';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { appRoot, electronBindingPath, nodeBindingDir, sqliteNativeBinding, unpackedPath } from '../../server/db/native-binding.ts';
import { moduleClosure } from '../helpers/module-closure.ts';

// electron-builder cannot run here (it downloads Electron), so its configuration is checked the way it reads it:
// against its own JSON schema, and with its glob semantics (minimatch, dot: true) over the files the packaged app
// needs — computed from the sources as tsc and vite lay them out in dist/, and for the import worker by following
// its imports, packages included.
const ROOT = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const posix = (p: string) => p.split(sep).join('/');
const match = (file: string, pattern: string) => minimatch(file, pattern, { dot: true });

/** Whether electron-builder packs `file` (app files need a positive pattern; node_modules come as dependencies). */
function packed(file: string): boolean {
  const patterns: string[] = config.files;
  const excluded = patterns.filter((p) => p.startsWith('!')).some((p) => match(file, p.slice(1)));
  if (excluded) return false;
  return file.startsWith('node_modules/') || patterns.filter((p) => !p.startsWith('!')).some((p) => match(file, p));
}
const unpacked = (file: string) => (config.asarUnpack as string[]).some((p) => match(file, p));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Where tsc puts a source file of main/ or server/ (build-main.mjs: .ts → .js, .cts → .cjs, other files copied). */
function compiled(source: string): string {
  const rel = posix(relative(ROOT, source));
  return `dist/${rel.replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js')}`;
}

/** The files the import workers and the scrub parse worker load: their compiled modules and every file of the packages they import (transitively). */
function workerClosure(): { modules: string[]; packages: string[] } {
  const optout = join(ROOT, 'server', 'optout');
  const scrub = join(ROOT, 'server', 'scrub', 'scrub-parse-worker.ts');
  const { files, packages } = moduleClosure(join(optout, 'import-worker.ts'), join(optout, 'import-parse-worker.ts'), scrub);
  return { modules: files.map(compiled), packages };
}

let scratch: string | undefined;
afterAll(() => scratch && rmSync(scratch, { recursive: true, force: true }));

describe('electron-builder.yml', () => {
  it('is valid for electron-builder (its own schema), with the installer targets as before', () => {
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: true });
    const valid = ajv.validate(schema, config);
    expect(ajv.errorsText(ajv.errors), 'schema').toBe('No errors');
    expect(valid).toBe(true);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.productName).toBe(pkg.productName); // the same userData dir in development and packaged
  });

  it('packs into asar with the fuses flipped, and never rebuilds the Node build of better-sqlite3', () => {
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(false);
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(pkg.scripts.dist).toMatch(/npm run build && npm run native:electron && electron-builder/);
  });

  it('includes compiled main and server, the preload, migrations and the renderer', () => {
    expect(pkg.main).toBe('dist/main/main.js');
    const needed = [
      'package.json',
      'dist/main/main.js',
      'dist/main/preload.cjs',
      'dist/renderer/index.html',
      'dist/renderer/assets/index-abc123.js',
      ...walk(join(ROOT, 'main')).filter((f) => /\.c?ts$/.test(f)).map(compiled),
      ...walk(join(ROOT, 'server')).map(compiled),
    ];
    expect(needed).toContain('dist/server/db/migrations/001-core.sql');
    expect(needed).toContain('dist/server/optout/import-worker.js');
    for (const file of needed) expect(packed(file), file).toBe(true);
    for (const file of ['dist/main/main.js.map', 'node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'node_modules/better-sqlite3/deps/sqlite3/sqlite3.c']) {
      expect(packed(file), file).toBe(false);
    }
  });

  it('includes the Electron build of better-sqlite3 and unpacks it where the runtime looks for it', () => {
    expect(packed('.native/electron/better_sqlite3.node')).toBe(true);
    expect(unpacked('.native/electron/better_sqlite3.node')).toBe(true);
    expect(packed('node_modules/better-sqlite3/lib/index.js')).toBe(true);

    // The runtime's path in a packaged app: <resources>/app.asar.unpacked/.native/electron/better_sqlite3.node.
    scratch = mkdtempSync(join(tmpdir(), 'cati-asar-'));
    const asar = join(scratch, 'resources', 'app.asar');
    mkdirSync(join(asar, 'dist', 'server', 'db'), { recursive: true });
    writeFileSync(join(asar, 'package.json'), '{}');
    expect(appRoot(join(asar, 'dist', 'server', 'db'))).toBe(asar);
    expect(electronBindingPath(asar)).toBe(join(scratch, 'resources', 'app.asar.unpacked', '.native', 'electron', 'better_sqlite3.node'));
    expect(posix(relative(join(scratch, 'resources', 'app.asar.unpacked'), electronBindingPath(asar)))).toBe('.native/electron/better_sqlite3.node');
  });

  it('unpacks the import workers with every module and package it loads', () => {
    const { modules, packages } = workerClosure();
    expect(modules).toEqual(expect.arrayContaining(['dist/server/optout/import-worker.js', 'dist/server/optout/import-parse-worker.js', 'dist/server/db/open.js', 'dist/server/db/native-binding.js']));
    expect(packages).toEqual(expect.arrayContaining(['better-sqlite3', 'xlsx', 'validator', 'bindings', 'file-uri-to-path']));
    for (const file of modules) {
      expect(packed(file), file).toBe(true);
      expect(unpacked(file), file).toBe(true);
    }
    for (const name of packages) {
      // npm installs flat: the package's files are under node_modules/<name> (xlsx is @e965/xlsx under that name).
      const dir = realpathSync(join(ROOT, 'node_modules', name));
      const entry = posix(relative(dir, require.resolve(name)));
      for (const file of [`node_modules/${name}/package.json`, `node_modules/${name}/${entry}`]) {
        expect(existsSync(join(ROOT, file)), file).toBe(true);
        expect(packed(file), file).toBe(true);
        expect(unpacked(file), file).toBe(true);
      }
    }
    expect(unpackedPath(join('/opt', 'app', 'resources', 'app.asar', 'dist', 'server', 'optout', 'import-worker.js'))).toBe(
      join('/opt', 'app', 'resources', 'app.asar.unpacked', 'dist', 'server', 'optout', 'import-worker.js'),
    );
  });
});

describe('the better-sqlite3 binding chosen at runtime', () => {
  it('is the package’s own build under Node, the Electron build under Electron, and what main published for its workers', () => {
    // A Node major without a build in .native/node<major> (scripts/node-runtime.sh) loads the package's own build.
    const unbuilt = { ...process.versions, node: '7.0.0', modules: '51' };
    expect(sqliteNativeBinding(unbuilt, {})).toBeUndefined();
    const electron = { ...process.versions, electron: '45.4.1', modules: '150' };
    expect(sqliteNativeBinding(electron, {})).toBe(join(ROOT, '.native', 'electron', 'better_sqlite3.node'));
    const published = { CATI_SQLITE_BINDING: '/x/better_sqlite3.node', CATI_SQLITE_BINDING_ABI: '150' };
    expect(sqliteNativeBinding(electron, published)).toBe('/x/better_sqlite3.node');
    // A worker thread of the Electron main process has Electron's ABI even if it lacked versions.electron.
    expect(sqliteNativeBinding({ ...process.versions, modules: '150' }, published)).toBe('/x/better_sqlite3.node');
    // A plain Node process with a stale variable keeps its own build.
    expect(sqliteNativeBinding(unbuilt, published)).toBeUndefined();
  });

  it('is the .native/node<major> build on a Node whose ABI it was built for, and only then', () => {
    expect(nodeBindingDir('/app', '24.21.0')).toBe(join('/app', '.native', 'node24'));
    const here = nodeBindingDir(ROOT, process.versions.node);
    const built = existsSync(join(here, 'better_sqlite3.node')) && readFileSync(join(here, 'abi'), 'utf8').trim() === process.versions.modules;
    expect(sqliteNativeBinding({ ...process.versions }, {})).toBe(built ? join(here, 'better_sqlite3.node') : undefined);
    expect(sqliteNativeBinding({ ...process.versions, modules: '1' }, {})).toBeUndefined();
  });
});
