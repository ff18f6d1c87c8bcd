/**
 * Settings → Backups in the desktop app (docs/deployment.md#backups): backups into `<data-dir>/backups/` on request and
 * automatically once a day (the last 14 automatic ones kept), and the check of a file chosen for a restore.
 * The copies themselves are server/db/backup.ts's (online backup, integrity check, audit).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { recordAudit } from '../server/audit/audit-log.ts';
import { backupDatabase, backupFileName, backupsDir, verifyDatabaseFile } from '../server/db/backup.ts';
import type { Store } from '../server/db/store.ts';
import type { BackupInfo, RestoreCandidate } from './bridge-api.ts';

/** Automatic backups kept. */
export const AUTO_BACKUPS_KEPT = 14;
/** An automatic backup is due this long after the last one. */
export const AUTO_BACKUP_EVERY_MS = 24 * 60 * 60_000;

const NAME = /^cati-(auto-)?(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.sqlite$/;

/** The backups in `<data-dir>/backups/`, newest first (files of other names are left alone and not listed). */
export function listBackups(dataDir: string): BackupInfo[] {
  const dir = backupsDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: BackupInfo[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const createdAt = new Date(Date.UTC(+m[2]!, +m[3]! - 1, +m[4]!, +m[5]!, +m[6]!, +m[7]!)).toISOString();
    out.push({ name, file: join(dir, name), size: statSync(join(dir, name)).size, createdAt, auto: Boolean(m[1]) });
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
}

/** Makes a backup of the server's (SQLite) store now (`auto`: named as an automatic one, then older automatic ones pruned). */
export async function backupNow(store: Store, dataDir: string, auto = false, now = new Date()): Promise<BackupInfo> {
  const name = backupFileName(now, auto ? 'cati-auto' : 'cati');
  const info = await backupDatabase(store, join(backupsDir(dataDir), name), recordAudit);
  if (auto) pruneAutoBackups(dataDir);
  return listBackups(dataDir).find((b) => b.name === name) ?? { name, file: info.file, size: info.size, createdAt: now.toISOString(), auto };
}

/** Deletes automatic backups beyond the newest 14; backups made on request are never deleted. */
export function pruneAutoBackups(dataDir: string, keep = AUTO_BACKUPS_KEPT): string[] {
  const old = listBackups(dataDir).filter((b) => b.auto).slice(keep);
  for (const b of old) rmSync(b.file, { force: true });
  return old.map((b) => b.name);
}

/** Whether the automatic daily backup is due at `now` (none yet, or the newest automatic one is a day old). */
export function autoBackupDue(dataDir: string, now = new Date()): boolean {
  const last = listBackups(dataDir).find((b) => b.auto);
  return !last || now.getTime() - new Date(last.createdAt).getTime() >= AUTO_BACKUP_EVERY_MS;
}

/** Checks a file chosen for a restore (BackupError with the reason when it is not an intact database of ours). */
export function checkRestoreCandidate(file: string): RestoreCandidate {
  const info = verifyDatabaseFile(file);
  return { file, size: info.size, migrations: info.migrations, lastMigratedAt: info.lastMigratedAt };
}
