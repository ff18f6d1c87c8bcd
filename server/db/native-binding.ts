import type BetterSqlite3 from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which better-sqlite3 this runtime loads (docs/deployment.md#lan), as a package and never a path: nothing here builds,
 * fetches or picks a native file.
 * - Node 20 (Node-API 9) loads better-sqlite3 12 with its own build (node_modules/better-sqlite3/build, made by
 *   `npm install` for the Node that installed it; `npm test` uses it and nothing here rebuilds it).
 * - A runtime with Node-API 10 (Node ≥ 22.14, Node 24, and Electron 45 whose Node is 24) loads better-sqlite3 13,
 *   installed as `better-sqlite3-napi`: a Node-API addon whose package carries a prebuilt binary per platform
 *   (prebuilds/<platform>-<arch>.node), one binary for Node and Electron alike, loaded by its own lib/.
 * In the packaged desktop app that package is unpacked beside app.asar (electron-builder.yml), so the main process
 * and its worker threads load the same file.
 */

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

/**
 * The better-sqlite3 major this runtime runs. A runtime with Node-API 10 (Node ≥ 22.14, so Node 24 and Electron 45,
 * whose Node is 24) runs better-sqlite3 13 (installed as `better-sqlite3-napi`): a Node-API addon, prebuilt in the
 * package for every platform, one binary for Node and Electron alike. better-sqlite3 12 (a V8 addon) aborts on
 * Node 24 when a statement is collected after its worker thread's environment is gone. Node 20 has only Node-API 9,
 * which 13 cannot load, so it keeps better-sqlite3 12 and the build `npm install` made for it.
 */
export function sqliteDriverName(versions: NodeJS.ProcessVersions = process.versions): 'better-sqlite3' | 'better-sqlite3-napi' {
  return Number(versions.napi ?? 0) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3';
}

const requireDriver = createRequire(import.meta.url);
let driver: typeof BetterSqlite3 | undefined;

/** Opens a SQLite database file with this runtime's better-sqlite3 (13 on Node-API 10, else 12), required on first use. */
export function newSqliteDatabase(file: string, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  const name = sqliteDriverName();
  driver ??= requireDriver(name) as typeof BetterSqlite3;
  return new driver(file, options);
}
