import { Ajv } from 'ajv';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { appRoot, sqliteDriverName, unpackedPath } from '../../server/db/native-binding.ts';
import { moduleClosure } from '../helpers/module-closure.ts';

// electron-builder cannot run here (it downloads Electron), so its configuration is checked the way it reads it:
// against its own JSON schema; the app's files with its glob semantics (minimatch, dot: true) over the files the
// packaged app needs — computed from the sources as tsc and vite lay them out in dist/, and for the import worker by
// following its imports, packages included; node_modules with electron-builder's own production-dependency collector
// and its own node_modules filter (the top-level `files` plus each platform's, `${arch}` expanded).
const ROOT = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const posix = (p: string) => p.split(sep).join('/');
const match = (file: string, pattern: string) => minimatch(file, pattern, { dot: true });

type Target = { platform: 'linux' | 'win' | 'mac'; arch: 'x64' | 'arm64' };
const TARGETS: Target[] = [
  { platform: 'linux', arch: 'x64' },
  { platform: 'linux', arch: 'arm64' },
  { platform: 'win', arch: 'x64' },
  { platform: 'win', arch: 'arm64' },
  { platform: 'mac', arch: 'x64' },
  { platform: 'mac', arch: 'arm64' },
];
const LINUX_X64: Target = { platform: 'linux', arch: 'x64' };

// electron-builder's own matcher for node_modules files (app-builder-lib/out/fileMatcher.js, as platformPackager uses it).
const { getNodeModuleFileMatcher } = require('app-builder-lib/out/fileMatcher') as {
  getNodeModuleFileMatcher: (
    appDir: string,
    to: string,
    expand: (p: string) => string,
    platformOptions: unknown,
    packager: unknown,
  ) => { createFilter(): (file: string, stat: { isDirectory(): boolean; moduleFullFilePath: string }) => boolean };
};
const moduleFilters = new Map<string, (file: string) => boolean>();
function moduleFilter({ platform, arch }: Target): (file: string) => boolean {
  const key = `${platform}-${arch}`;
  if (!moduleFilters.has(key)) {
    const expand = (p: string) => p.replace(/\$\{arch\}/g, arch);
    const matcher = getNodeModuleFileMatcher(ROOT, join(ROOT, 'app'), expand, config[platform] ?? {}, { config, debugLogger: { isEnabled: false } });
    const filter = matcher.createFilter();
    moduleFilters.set(key, (file) => filter(join(ROOT, file), { isDirectory: () => false, moduleFullFilePath: file }));
  }
  return moduleFilters.get(key)!;
}

/** Whether electron-builder packs `file` for `target` (app files need a positive pattern; node_modules come as dependencies, filtered). */
function packed(file: string, target: Target = LINUX_X64): boolean {
  if (file.startsWith('node_modules/')) return moduleFilter(target)(file);
  const patterns: string[] = [...config.files, ...(config[target.platform]?.files ?? [])].map((p: string) => p.replace(/\$\{arch\}/g, target.arch));
  const excluded = patterns.filter((p) => p.startsWith('!')).some((p) => match(file, p.slice(1)));
  if (excluded) return false;
  return patterns.filter((p) => !p.startsWith('!')).some((p) => match(file, p));
}

/** The production dependencies electron-builder collects (its npm collector: `npm ls`, hoisted), as name → directory. */
async function collectedModules(): Promise<Map<string, string>> {
  const { getCollectorByPackageManager } = require('app-builder-lib/out/node-module-collector');
  const { PM } = require('app-builder-lib/out/node-module-collector/packageManager');
  const { TmpDir } = createRequire(require.resolve('app-builder-lib/package.json'))('temp-file');
  const tmp = new TmpDir();
  try {
    const { nodeModules } = await getCollectorByPackageManager(PM.NPM, ROOT, tmp).getNodeModules({ packageName: pkg.name });
    const all = new Map<string, string>();
    const visit = (mods: { name: string; dir: string; dependencies?: unknown[] }[]) =>
      mods.forEach((m) => {
        all.set(m.name, m.dir);
        visit((m.dependencies ?? []) as typeof mods);
      });
    visit(nodeModules);
    return all;
  } finally {
    await tmp.cleanup();
  }
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

/** What Electron 45 reports in process.versions (its Node is 24: Node-API 10). */
const ELECTRON_VERSIONS = { ...process.versions, node: '24.11.1', napi: '10', modules: '150', electron: '45.4.1' } as NodeJS.ProcessVersions;

/**
 * The files the import workers and the scrub job process (with its parse worker) load: their compiled modules and every file of the packages
 * they import (transitively). native-binding.ts reaches SQLite through createRequire with a computed name, which the
 * import scan cannot see: under Electron that is sqliteDriverName's answer for Electron's versions.
 */
function workerClosure(): { modules: string[]; packages: string[] } {
  const optout = join(ROOT, 'server', 'optout');
  const scrub = join(ROOT, 'server', 'scrub');
  const { files, packages } = moduleClosure(join(optout, 'import-worker.ts'), join(optout, 'import-parse-worker.ts'), join(scrub, 'scrub-job-process.ts'), join(scrub, 'scrub-parse-worker.ts'));
  const modules = files.map(compiled);
  return { modules, packages: modules.includes('dist/server/db/native-binding.js') ? [...packages, sqliteDriverName(ELECTRON_VERSIONS)] : packages };
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

  it('packs into asar with the fuses flipped, and rebuilds or fetches nothing native', () => {
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
    // Type-checked first: the build itself emits without checking (scripts/build-main.mjs).
    expect(pkg.scripts.dist).toBe('npm run typecheck && npm run build && electron-builder');
    expect(pkg.scripts['native:electron']).toBeUndefined();
  });

  it('includes compiled main and server, the preload, migrations and the renderer', () => {
    const DEV_ONLY = 'dist/server/db/ts-worker-bootstrap.mjs';
    expect(pkg.main).toBe('dist/main/main.js');
    const needed = [
      'package.json',
      'dist/main/main.js',
      'dist/main/preload.cjs',
      'dist/renderer/index.html',
      'dist/renderer/assets/index-abc123.js',
      ...walk(join(ROOT, 'main')).filter((f) => /\.c?ts$/.test(f)).map(compiled),
      ...walk(join(ROOT, 'server')).map(compiled).filter((f) => f !== DEV_ONLY),
      ...walk(join(ROOT, 'common')).map(compiled),
    ];
    expect(needed).toContain('dist/server/db/migrations/001-core.sql');
    expect(needed).toContain('dist/server/optout/import-worker.js');
    expect(needed).toContain('dist/common/time-zones.js');
    for (const file of needed) expect(packed(file), file).toBe(true);
    expect(packed('dist/main/main.js.map'), 'dist/main/main.js.map').toBe(false);
    // tsx is a devDependency: the worker bootstrap that registers it is not packed (compiled entries need none).
    expect(packed(DEV_ONLY), DEV_ONLY).toBe(false);
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
  });

  it('packs better-sqlite3 13 unpacked with the prebuilt binary of each target, and leaves better-sqlite3 12 out', async () => {
    const napi = 'node_modules/better-sqlite3-napi';
    // electron-builder collects it under its alias, from its own folder (npm ls reports it as better-sqlite3@13).
    const modules = await collectedModules();
    expect(modules.get('better-sqlite3-napi')).toBe(join(ROOT, 'node_modules', 'better-sqlite3-napi'));
    expect(JSON.parse(readFileSync(join(ROOT, napi, 'package.json'), 'utf8')).version).toMatch(/^13\./);
    const prebuild = { linux: 'linux', win: 'win32', mac: 'darwin' } as const;
    for (const target of TARGETS) {
      const own = `${prebuild[target.platform]}-${target.arch}.node`;
      const label = `${target.platform}-${target.arch}`;
      expect(existsSync(join(ROOT, napi, 'prebuilds', own)), own).toBe(true);
      for (const file of [`${napi}/package.json`, `${napi}/lib/index.js`, `${napi}/lib/binding.js`, `${napi}/lib/database.js`, `${napi}/prebuilds/${own}`]) {
        expect(packed(file, target), `${label} ${file}`).toBe(true);
        expect(unpacked(file), file).toBe(true);
      }
      // Only the target's own binaries (Linux keeps its musl twin), no C sources, and nothing of better-sqlite3 12.
      for (const other of readdirSync(join(ROOT, napi, 'prebuilds'))) {
        const kept = other === own || (target.platform === 'linux' && other === `linuxmusl-${target.arch}.node`);
        expect(packed(`${napi}/prebuilds/${other}`, target), `${label} ${other}`).toBe(kept);
      }
      for (const file of [`${napi}/deps/sqlite3/sqlite3.c`, `${napi}/src/better_sqlite3.cpp`, 'node_modules/node-addon-api/package.json']) {
        expect(packed(file, target), `${label} ${file}`).toBe(false);
      }
      for (const name of ['better-sqlite3', 'bindings', 'file-uri-to-path', 'prebuild-install']) {
        expect(modules.has(name), name).toBe(true); // collected (a production dependency for Node 20)…
        for (const file of walk(realpathSync(join(ROOT, 'node_modules', name)))) {
          const rel = `node_modules/${name}/${posix(relative(realpathSync(join(ROOT, 'node_modules', name)), file))}`;
          expect(packed(rel, target), `${label} ${rel}`).toBe(false); // …but none of its files is packed
        }
      }
      expect(packed('node_modules/express/package.json', target)).toBe(true);
    }
    // better-sqlite3 13 loads nothing outside its own folder (node-addon-api is only its build's headers).
    for (const file of walk(join(ROOT, napi, 'lib'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/require\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        expect(m[1]!.startsWith('.') || builtinModules.includes(m[1]!), `${file}: ${m[1]}`).toBe(true);
      }
    }
  });

  it('finds the packaged app root inside app.asar and maps its files to the unpacked copy', () => {
    scratch = mkdtempSync(join(tmpdir(), 'cati-asar-'));
    const asar = join(scratch, 'resources', 'app.asar');
    mkdirSync(join(asar, 'dist', 'server', 'db'), { recursive: true });
    writeFileSync(join(asar, 'package.json'), '{}');
    expect(appRoot(join(asar, 'dist', 'server', 'db'))).toBe(asar);
    expect(unpackedPath(join(asar, 'node_modules', 'better-sqlite3-napi', 'prebuilds', 'linux-x64.node'))).toBe(
      join(scratch, 'resources', 'app.asar.unpacked', 'node_modules', 'better-sqlite3-napi', 'prebuilds', 'linux-x64.node'),
    );
  });

  it('unpacks the import workers with every module and package it loads', () => {
    const { modules, packages } = workerClosure();
    expect(modules).toEqual(expect.arrayContaining(['dist/server/optout/import-worker.js', 'dist/server/optout/import-parse-worker.js', 'dist/server/db/open.js', 'dist/server/db/native-binding.js']));
    expect(packages).toEqual(expect.arrayContaining(['better-sqlite3-napi', 'xlsx', 'validator', 'libphonenumber-js', 'pg']));
    expect(packages).not.toContain('better-sqlite3'); // 12 is never loaded under Electron
    for (const file of modules) {
      expect(packed(file), file).toBe(true);
      expect(unpacked(file), file).toBe(true);
    }
    for (const name of packages) {
      // npm installs flat: the package's files are under node_modules/<name> (xlsx is @e965/xlsx under that name).
      const dir = realpathSync(join(ROOT, 'node_modules', name));
      const entry = posix(relative(dir, require.resolve(name)));
      for (const file of [`node_modules/${name}/package.json`, `node_modules/${name}/${entry}`]) {
        for (const target of TARGETS) expect(packed(file, target), `${target.platform}-${target.arch} ${file}`).toBe(true);
        expect(existsSync(join(ROOT, file)), file).toBe(true);
        expect(unpacked(file), file).toBe(true);
      }
    }
    expect(unpackedPath(join('/opt', 'app', 'resources', 'app.asar', 'dist', 'server', 'optout', 'import-worker.js'))).toBe(
      join('/opt', 'app', 'resources', 'app.asar.unpacked', 'dist', 'server', 'optout', 'import-worker.js'),
    );
  });
});
