/**
 * The one place that picks the engine (docs/deployment.md#postgresql): `--database` absent, `sqlite:` or `sqlite:PATH` opens the
 * embedded SQLite file (default `<dataDir>/cati.sqlite`); `postgres://` or `postgresql://` opens PostgreSQL.
 * Both are migrated before they are returned.
 */
import { resolve } from 'node:path';
import { databaseEngine, databaseFile } from '../config.ts';
import { openDatabase } from './open.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/** A `--database` value that names no engine we have. */
export class UnsupportedDatabaseUrlError extends Error {
  override name = 'UnsupportedDatabaseUrlError';
}

/** The SQLite file a `sqlite:` value names (`sqlite:` alone, or nothing: `<dataDir>/cati.sqlite`). */
export function sqliteFile(url: string | undefined, dataDir: string): string {
  let path = url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : '';
  if (path.startsWith('//')) path = path.slice(2); // sqlite:///abs/path and sqlite://relative/path
  return path ? resolve(path) : databaseFile(dataDir);
}

/**
 * Opens and migrates the store `url` names. PostgreSQL unreachable → DatabaseUnavailableError with a one-line
 * message naming host:port (never the password).
 */
export async function openStore(url: string | undefined, dataDir: string): Promise<Store> {
  const engine = databaseEngine(url);
  if (engine === undefined) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url!)?.[1];
    throw new UnsupportedDatabaseUrlError(`Unsupported --database ${scheme ? `scheme '${scheme}:'` : 'value'}; use sqlite:PATH or postgres://user@host:port/database`);
  }
  if (engine === 'postgres') return (await import('./pg-store.ts')).PgStore.open(url!); // pg loaded only for PostgreSQL
  return SqliteStore.open(sqliteFile(url, dataDir));
}

/** A job's SQLite page cache (KiB): SQLite's own default, not better-sqlite3's 16 MB; a job reads each page once. */
const JOB_CACHE_KIB = 2000;

/**
 * Opens, without migrating, the database another process's store answers `connectionUrl()` for: a job process's own
 * connection (scrub/scrub-job-process.ts), one on PostgreSQL. Closed by the job before it ends.
 */
export async function openJobStore(url: string): Promise<Store> {
  if (databaseEngine(url) === 'postgres') return new (await import('./pg-store.ts')).PgStore(url, { max: 1 });
  const file = sqliteFile(url, '');
  const db = openDatabase(file, { migrate: false });
  db.pragma(`cache_size = -${JOB_CACHE_KIB}`);
  return new SqliteStore(db, file, { readWorker: false }); // nothing else waits on this process's event loop
}
