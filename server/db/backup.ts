/**
 * Backups and restores of the database (docs/deployment.md#backups "Precisely", docs/deployment.md#backups). A backup is SQLite's online backup
 * (writes keep going meanwhile), checked with `PRAGMA integrity_check` before it gets its final name. A restore
 * refuses a file that is not a CATI Supervisor database and a data dir a running server uses, keeps the replaced
 * database as `cati.sqlite.before-restore-YYYYMMDDTHHMMSSZ`, and replaces nothing when it refuses.
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { databaseEngine, databaseFile } from '../config.ts';
import { runningServer } from './run-lock.ts';
import { newSqliteDatabase } from './native-binding.ts';
import { listMigrations, type Db } from './open.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { Queryable, Store } from './store.ts';

/**
 * Records a backup or restore in the audit log, inside the transaction it is given (the caller passes the audit
 * log's `recordAudit`: the data layer imports nothing above it).
 */
export type AuditBackup = (
  tx: Queryable,
  entry: { action: 'backup' | 'restore'; entity: 'settings'; entityId: null; changes: Record<string, unknown> },
) => Promise<void>;

/** True when `database` (a URL or undefined for the data dir's SQLite file) is one this module can back up. */
export function canBackUp(database: string | undefined): boolean {
  return databaseEngine(database) === 'sqlite';
}

/** Why a backup or restore did not happen, in a sentence for the user. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** Why there are no backups here when the database is PostgreSQL: its own tools make them. */
/** The database of the server running on `dataDir` as server.lock names it (no password), or undefined. */
export function runningServerDatabase(dataDir: string): string | undefined {
  return runningServer(dataDir)?.database;
}

export const POSTGRES_BACKUP_MESSAGE =
  'Backups of a PostgreSQL database are made with PostgreSQL’s own tools (pg_dump, or pg_basebackup with WAL archiving); this command backs up the embedded SQLite database only';

/** What a checked database file holds. */
export interface DatabaseFileInfo {
  file: string;
  size: number;
  migrations: number;
  lastMigratedAt: string | null;
}

/** `20261124T061500Z`: the UTC time in backup and kept-file names. */
export const fileTimestamp = (d = new Date()) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function looksLikeSqlite(file: string): boolean {
  const header = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\0';
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks that `file` is an intact CATI Supervisor database this version can use: a SQLite file, `integrity_check`
 * ok, a `schema_migrations` table, and no migration newer than this version knows. Throws BackupError otherwise.
 */
export function verifyDatabaseFile(file: string): DatabaseFileInfo {
  if (!existsSync(file) || !statSync(file).isFile()) throw new BackupError(`${file} does not exist or is not a file`);
  if (!looksLikeSqlite(file)) throw new BackupError(`${file} is not a CATI Supervisor database (not an SQLite file)`);
  let db: Db;
  try {
    db = newSqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${file} cannot be opened as a database (${(err as Error).message})`);
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`${file} is damaged: integrity_check says ${String(integrity)}`);
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!hasTable) throw new BackupError(`${file} is not a CATI Supervisor database (it has no schema_migrations table)`);
    const rows = db.prepare('SELECT id, applied_at FROM schema_migrations ORDER BY id').all() as { id: number; applied_at: number }[];
    const known = new Set(listMigrations().map((m) => m.id));
    const unknown = rows.filter((r) => !known.has(r.id));
    if (unknown.length) throw new BackupError(`${file} was made by a newer CATI Supervisor (migration ${unknown[0]!.id} is unknown here): update first`);
    const last = rows.reduce((max, r) => Math.max(max, r.applied_at), 0);
    return { file, size: statSync(file).size, migrations: rows.length, lastMigratedAt: last ? new Date(last).toISOString() : null };
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} cannot be read as a database (${(err as Error).message})`);
  } finally {
    db.close();
  }
}

/**
 * Copies the SQLite database of `store` into `toFile` with SQLite's online backup, verifies the copy, then gives
 * it its name (a failed or damaged copy never appears under `toFile`), and audits it (entity `settings`).
 * A PostgreSQL store is refused (BackupError): its backups are PostgreSQL's own tools' work.
 */
export async function backupDatabase(store: Store, toFile: string, audit: AuditBackup): Promise<DatabaseFileInfo> {
  if (!(store instanceof SqliteStore)) throw new BackupError(POSTGRES_BACKUP_MESSAGE);
  // The store's own connection: SQLite keeps the copy current with what this connection writes meanwhile.
  const source = store.db;
  if (existsSync(toFile)) throw new BackupError(`${toFile} already exists; choose another file`);
  mkdirSync(dirname(toFile), { recursive: true });
  const partial = `${toFile}.partial`;
  for (const file of [partial, `${partial}-journal`]) rmSync(file, { force: true });
  try {
    // After the first step, the rest in one step: one read transaction, so writes by other connections never
    // make it start over (WAL readers do not block writers).
    await source.backup(partial, { progress: ({ remainingPages }) => Math.max(remainingPages, 100) });
    const info = verifyDatabaseFile(partial);
    renameSync(partial, toFile);
    await store.transaction((tx) => audit(tx, { action: 'backup', entity: 'settings', entityId: null, changes: { file: toFile, size: info.size } }));
    return { ...info, file: toFile };
  } catch (err) {
    // With its rollback journal: a copy cut short (a full disk) leaves `<partial>-journal` beside it.
    for (const file of [partial, `${partial}-journal`]) rmSync(file, { force: true });
    if (err instanceof BackupError) throw err;
    if (isNoSpace(err)) throw new BackupError(`The backup to ${toFile} failed: the disk is full; nothing was written. Free some space and try again`);
    throw new BackupError(`The backup to ${toFile} failed: ${(err as Error).message}`);
  }
}

/** Whether an error means "no space left" (SQLite's SQLITE_FULL, the file system's ENOSPC/EDQUOT/EFBIG), by its code. */
function isNoSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
}

/** Default name of a backup in `<data-dir>/backups/`. */
export const backupFileName = (now = new Date(), prefix = 'cati') => `${prefix}-${fileTimestamp(now)}.sqlite`;

/**
 * Replaces the data dir's database with `fromFile` (server stopped): refuses while a server runs on the data dir
 * and when `fromFile` is not an intact database of ours, keeps the replaced database as
 * `cati.sqlite.before-restore-<UTC time>`, and audits the restore in the restored database.
 */
export async function restoreDatabase(dataDir: string, fromFile: string, audit: AuditBackup, now = new Date()): Promise<{ kept: string | null; info: DatabaseFileInfo }> {
  const server = runningServer(dataDir);
  if (server) throw new BackupError(`The data dir ${dataDir} is in use by a running server (pid ${server.pid}, ${server.url}): stop it first`);
  const info = verifyDatabaseFile(fromFile);
  const target = databaseFile(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const incoming = `${target}.restoring`;
  rmSync(incoming, { force: true });
  // Through the backup API rather than a file copy: it also takes what is still in the source's WAL.
  const source = newSqliteDatabase(fromFile, { readonly: true, fileMustExist: true });
  try {
    await source.backup(incoming);
  } catch (err) {
    rmSync(incoming, { force: true });
    throw new BackupError(`Reading ${fromFile} failed: ${(err as Error).message}`);
  } finally {
    source.close();
  }
  let kept: string | null = null;
  if (existsSync(target)) {
    // Fold the WAL into the file, so the kept copy is complete on its own.
    const current = newSqliteDatabase(target);
    current.pragma('wal_checkpoint(TRUNCATE)');
    current.close();
    kept = `${target}.before-restore-${fileTimestamp(now)}`;
    renameSync(target, kept);
    for (const side of ['-wal', '-shm']) rmSync(`${target}${side}`, { force: true });
  }
  renameSync(incoming, target);
  const store = SqliteStore.open(target);
  try {
    await store.transaction((tx) =>
      audit(tx, { action: 'restore', entity: 'settings', entityId: null, changes: { from: fromFile, kept: kept && basename(kept) } }),
    );
  } finally {
    await store.close();
  }
  return { kept, info: { ...info, file: target } };
}

/** `<data-dir>/backups`. */
export const backupsDir = (dataDir: string) => join(dataDir, 'backups');
