import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * `<data-dir>/server.lock`: which process serves a data dir, and where. Written when a server starts listening
 * and removed when it closes, so that `npm run restore` can refuse a data dir in use, `npm run keys -- ui-link`
 * can print a link for the running server, and the key CLI and `backup` open the database that server uses. A lock left by a crashed process is recognised by its dead pid.
 */
export interface RunLock {
  pid: number;
  host: string;
  /** The URL the server listens on (`http://0.0.0.0:4100` when it binds every address). */
  url: string;
  startedAt: string;
  /** The database it uses: `sqlite:` (the data dir's file) or a PostgreSQL URL without its password (docs/cati-api.md#decisions). */
  database?: string;
  /** True when the server's URL had a password that the lock leaves out: a CLI then needs --database. */
  databasePasswordOmitted?: boolean;
}

export const runLockFile = (dataDir: string) => join(dataDir, 'server.lock');

/** Records that this process serves `dataDir` at `url`, on `database` (as `lockedDatabase` gives it: never a password). */
export function writeRunLock(dataDir: string, url: string, database: { database: string; passwordOmitted: boolean } = { database: 'sqlite:', passwordOmitted: false }): RunLock {
  const lock: RunLock = {
    pid: process.pid, host: hostname(), url, startedAt: new Date().toISOString(), database: database.database, databasePasswordOmitted: database.passwordOmitted,
  };
  writeFileSync(runLockFile(dataDir), `${JSON.stringify(lock)}\n`, { mode: 0o600 });
  return lock;
}

/** Removes the lock if it is still the one this process wrote for `url`. */
export function removeRunLock(dataDir: string, url: string): void {
  const lock = readLockFile(dataDir);
  if (lock && lock.pid === process.pid && lock.url === url) rmSync(runLockFile(dataDir), { force: true });
}

function readLockFile(dataDir: string): RunLock | null {
  try {
    const lock = JSON.parse(readFileSync(runLockFile(dataDir), 'utf8')) as RunLock;
    return Number.isInteger(lock.pid) && typeof lock.url === 'string' ? lock : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'; // exists, owned by someone else
  }
}

/** The server running on `dataDir` on this machine, or null (no lock, or its process is gone). */
export function runningServer(dataDir: string): RunLock | null {
  const lock = readLockFile(dataDir);
  if (!lock) return null;
  if (lock.host !== hostname()) return lock; // another machine on a shared folder: cannot check, assume it runs
  return alive(lock.pid) ? lock : null;
}

/** The URL a browser on this machine opens for a server listening on `url` (wildcard binds → loopback). */
export function localBrowserUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}
