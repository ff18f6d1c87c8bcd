/** `npm run backup` and `npm run restore` (CONTRACT §11): thin command-line wrappers over backup.ts. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { databaseFile } from '../config.ts';
import { backupDatabase, backupFileName, backupsDir, BackupError, restoreDatabase } from './backup.ts';
import { openDatabase } from './open.ts';

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** `backup [--data-dir D] [--to FILE]`: a consistent copy while the server runs; prints the file as the last line. */
export async function backupCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, to: { type: 'string' } } });
  const dataDir = resolve(values['data-dir'] ?? './data');
  const source = databaseFile(dataDir);
  if (!existsSync(source)) fail(`There is no database in ${dataDir} (no cati.sqlite) to back up`);
  const to = resolve(values.to ?? join(backupsDir(dataDir), backupFileName()));
  const db = openDatabase(source, { migrate: false });
  try {
    const info = await backupDatabase(db, to);
    process.stdout.write(`backup of ${source} verified (integrity_check ok, ${info.migrations} migrations, ${MB(info.size)}):\n${to}\n`);
  } catch (err) {
    if (err instanceof BackupError) fail(err.message);
    throw err;
  } finally {
    db.close();
  }
}

/** `restore [--data-dir D] --from FILE` (server stopped): checks the file, keeps the replaced database, swaps. */
export async function restoreCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, from: { type: 'string' } } });
  if (!values.from) fail('usage: restore [--data-dir D] --from FILE');
  const dataDir = resolve(values['data-dir'] ?? './data');
  try {
    const { kept } = await restoreDatabase(dataDir, resolve(values.from));
    process.stdout.write(`restored ${resolve(values.from)} into ${databaseFile(dataDir)}\n`);
    process.stdout.write(kept ? `the replaced database is kept as ${kept}\n` : 'there was no database before\n');
  } catch (err) {
    if (err instanceof BackupError) fail(`Restore refused, nothing was replaced: ${err.message}`);
    throw err;
  }
}
