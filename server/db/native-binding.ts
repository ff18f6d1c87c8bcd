import type BetterSqlite3 from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which better-sqlite3 native addon this runtime loads (CONTRACT §11). Node uses the package's own build
 * (node_modules/better-sqlite3/build, which `npm test` needs and nothing here ever rebuilds), unless a build for
 * this Node's major version sits in `.native/node<major>/` (scripts/node-runtime.sh: CI runs the suites on the Node
 * that Electron embeds, whose ABI differs from the project's own Node). Electron has another
 * ABI, so it loads the Electron build kept beside it in `.native/electron/better_sqlite3.node` (made by
 * `npm start` / `npm run native:electron`), passed to better-sqlite3 as its `nativeBinding` option.
 *
 * The Electron main process resolves the path once and publishes it with its ABI in the environment
 * (CATI_SQLITE_BINDING, CATI_SQLITE_BINDING_ABI), which its worker threads inherit; a process of another ABI
 * (plain Node with a stale variable) ignores it.
 */
export const ELECTRON_BINDING_DIR = join('.native', 'electron');
export const BINDING_FILE = 'better_sqlite3.node';

/** The directory holding package.json above `start` (the project, or the app inside app.asar). */
export function appRoot(start = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return join(start, '..', '..');
}

/** A path inside app.asar as the unpacked copy electron-builder leaves beside it (native addons cannot load from asar). */
export function unpackedPath(path: string): string {
  return path.replace(`${sep}app.asar${sep}`, `${sep}app.asar.unpacked${sep}`);
}

/** The Electron build's location for an app root. */
export const electronBindingPath = (root: string) => unpackedPath(join(root, ELECTRON_BINDING_DIR, BINDING_FILE));

/** The build for one Node major version, made by scripts/node-runtime.sh; its ABI is in the `abi` file beside it. */
export const nodeBindingDir = (root: string, nodeVersion: string) => join(root, '.native', `node${nodeVersion.split('.')[0]}`);

const nodeBuilds = new Map<string, string | undefined>();

/** The `.native/node<major>` build when it exists for this ABI, else undefined (the package's own build). */
function nodeBinding(versions: NodeJS.ProcessVersions): string | undefined {
  const dir = nodeBindingDir(appRoot(), versions.node);
  const key = `${dir}\u0000${versions.modules}`;
  if (!nodeBuilds.has(key)) {
    let found: string | undefined;
    try {
      if (readFileSync(join(dir, 'abi'), 'utf8').trim() === versions.modules && existsSync(join(dir, BINDING_FILE))) found = join(dir, BINDING_FILE);
    } catch {
      found = undefined; // no build for this Node
    }
    nodeBuilds.set(key, found);
  }
  return nodeBuilds.get(key);
}

/** The `nativeBinding` option for this runtime: under Node, undefined (the package's own build) unless `.native/node<major>` has one. */
export function sqliteNativeBinding(versions: NodeJS.ProcessVersions = process.versions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const published = env.CATI_SQLITE_BINDING;
  if (published && env.CATI_SQLITE_BINDING_ABI === versions.modules) return published;
  if (versions.electron) return electronBindingPath(appRoot());
  return nodeBinding(versions);
}

/**
 * The better-sqlite3 major this runtime runs. A runtime with Node-API 10 (Node ≥ 22.14, so Node 24 and Electron 45,
 * whose Node is 24) runs better-sqlite3 13 (installed as `better-sqlite3-napi`): a Node-API addon, prebuilt in the
 * package for every platform, one binary for Node and Electron alike. better-sqlite3 12 (a V8 addon) aborts on
 * Node 24 when a statement is collected after its worker thread's environment is gone. Node 20 has only Node-API 9,
 * which 13 cannot load, so it keeps better-sqlite3 12 and its ABI-specific build (`sqliteNativeBinding`).
 */
export function sqliteDriverName(versions: NodeJS.ProcessVersions = process.versions): 'better-sqlite3' | 'better-sqlite3-napi' {
  return Number(versions.napi ?? 0) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3';
}

const requireDriver = createRequire(import.meta.url);
let driver: typeof BetterSqlite3 | undefined;

/** Opens a SQLite database file with this runtime's better-sqlite3 (13 on Node-API 10, else 12 with its build). */
export function newSqliteDatabase(file: string, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  const name = sqliteDriverName();
  driver ??= requireDriver(name) as typeof BetterSqlite3;
  return new driver(file, name === 'better-sqlite3' ? { ...options, nativeBinding: sqliteNativeBinding() } : options);
}
