/**
 * The one place that picks the engine (docs/deployment.md#postgresql): `--database` absent, `sqlite:` or `sqlite:PATH` opens the
 * embedded SQLite file (default `<dataDir>/cati.sqlite`); `postgres://` or `postgresql://` opens PostgreSQL.
 * Both are migrated before they are returned.
 */
import { resolve } from 'node:path';
import { databaseEngine, databaseFile } from '../config.ts';
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
