/** `npm run backup` and `npm run restore` (docs/deployment.md#backups): thin command-line wrappers over backup.ts. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { recordAudit } from './audit/audit-log.ts';
import { databaseFile } from './config.ts';
import { backupDatabase, backupFileName, backupsDir, BackupError, canBackUp, POSTGRES_BACKUP_MESSAGE, restoreDatabase, runningServerDatabase } from './db/backup.ts';
import { openDatabase } from './db/open.ts';
import { SqliteStore } from './db/sqlite-store.ts';

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const DATABASE_OPTION = { database: { type: 'string' } } as const;

/** Refuses `--database postgres://…` (or CATI_DATABASE_URL): backups here are of the embedded SQLite database. */
function sqliteOnly(database: string | undefined): void {
  if (!canBackUp(database ?? (process.env.CATI_DATABASE_URL || undefined))) fail(POSTGRES_BACKUP_MESSAGE);
}

/** `backup [--data-dir D] [--to FILE]`: a consistent copy while the server runs; prints the file as the last line. */
export async function backupCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, to: { type: 'string' }, ...DATABASE_OPTION } });
  sqliteOnly(values.database);
  const dataDir = resolve(values['data-dir'] ?? './data');
  // The server running on the data dir may use PostgreSQL (server.lock names it): its cati.sqlite, if any, is not what it serves.
  const used = runningServerDatabase(dataDir);
  if (used && !canBackUp(used)) fail(`The server running on ${dataDir} uses ${used}. ${POSTGRES_BACKUP_MESSAGE}`);
  const source = databaseFile(dataDir);
  if (!existsSync(source)) fail(`There is no database in ${dataDir} (no cati.sqlite) to back up`);
  const to = resolve(values.to ?? join(backupsDir(dataDir), backupFileName()));
  const store = new SqliteStore(openDatabase(source, { migrate: false }), source);
  try {
    const info = await backupDatabase(store, to, recordAudit);
    process.stdout.write(`backup of ${source} verified (integrity_check ok, ${info.migrations} migrations, ${MB(info.size)}):\n${to}\n`);
  } catch (err) {
    if (err instanceof BackupError) fail(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

/** `restore [--data-dir D] --from FILE` (server stopped): checks the file, keeps the replaced database, swaps. */
export async function restoreCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, from: { type: 'string' }, ...DATABASE_OPTION } });
  sqliteOnly(values.database);
  if (!values.from) fail('usage: restore [--data-dir D] --from FILE');
  const dataDir = resolve(values['data-dir'] ?? './data');
  try {
    const { kept } = await restoreDatabase(dataDir, resolve(values.from), recordAudit);
    process.stdout.write(`restored ${resolve(values.from)} into ${databaseFile(dataDir)}\n`);
    process.stdout.write(kept ? `the replaced database is kept as ${kept}\n` : 'there was no database before\n');
  } catch (err) {
    if (err instanceof BackupError) fail(`Restore refused, nothing was replaced: ${err.message}`);
    throw err;
  }
}
