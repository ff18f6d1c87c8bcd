/**
 * Settings → Backups for the bridge: backups of this computer's data (never in client mode — a server's backups
 * are made on its own machine), the automatic daily backup, and a restore with the app restarting on the result.
 */
import { app, dialog } from 'electron';
import { recordAudit } from '../server/audit/audit-log.ts';
import { backupsDir, restoreDatabase } from '../server/db/backup.ts';
import type { BackupInfo, BackupsView, RestoreCandidate } from './bridge-api.ts';
import { AUTO_BACKUPS_KEPT, autoBackupDue, backupNow, checkRestoreCandidate, listBackups } from './backups.ts';
import type { DesktopApp } from './desktop-app.ts';
import { startEmbeddedServer } from './embedded-server.ts';

const chosen = new WeakMap<DesktopApp, string>();

function localServer(desktop: DesktopApp) {
  const server = desktop.server;
  if (!server) throw new Error('Backups are made on the server’s own machine: switch to this computer’s server to back up or restore its data.');
  return server;
}

/** The backups section's state. */
export function backupsView(desktop: DesktopApp): BackupsView {
  return { dir: backupsDir(desktop.userDataDir), autoDaily: desktop.settings.autoBackup, keep: AUTO_BACKUPS_KEPT, backups: listBackups(desktop.userDataDir) };
}

/** A backup now, into `<data-dir>/backups/`. */
export function backupNowAction(desktop: DesktopApp): Promise<BackupInfo> {
  return backupNow(localServer(desktop).running.ctx.store, desktop.userDataDir);
}

/** Turns the automatic daily backup on or off. */
export function setAutoBackup(desktop: DesktopApp, on: unknown): BackupsView {
  if (typeof on !== 'boolean') throw new Error('on must be true or false');
  desktop.saveSettings({ autoBackup: on });
  return backupsView(desktop);
}

/** The automatic backup's check: makes one when due (on, this computer's server, a day since the last). */
export async function autoBackupTick(desktop: DesktopApp, now = new Date()): Promise<BackupInfo | null> {
  const server = desktop.server;
  if (!server || !desktop.settings.autoBackup || !autoBackupDue(desktop.userDataDir, now)) return null;
  try {
    return await backupNow(server.running.ctx.store, desktop.userDataDir, true, now);
  } catch (err) {
    console.error(`automatic backup failed: ${(err as Error).message}`);
    return null;
  }
}

/** Native open dialog for a backup, checked (throws with the reason when it is not an intact database of ours). */
export async function chooseRestoreFile(desktop: DesktopApp): Promise<RestoreCandidate | null> {
  localServer(desktop);
  const options = {
    title: 'Restore from a backup',
    defaultPath: backupsDir(desktop.userDataDir),
    properties: ['openFile' as const],
    filters: [{ name: 'CATI Supervisor database', extensions: ['sqlite', 'db'] }, { name: 'All files', extensions: ['*'] }],
  };
  const answer = desktop.window ? await dialog.showOpenDialog(desktop.window, options) : await dialog.showOpenDialog(options);
  const file = answer.canceled ? undefined : answer.filePaths[0];
  if (!file) return null;
  const candidate = checkRestoreCandidate(file);
  chosen.set(desktop, file);
  return candidate;
}

/**
 * Restores the file chosen last (the renderer asked the user to confirm): stops the server, swaps the database
 * keeping the replaced one, and restarts the app on it. A refusal starts the server again on the untouched data.
 */
export async function restoreChosenFile(desktop: DesktopApp): Promise<void> {
  localServer(desktop);
  const file = chosen.get(desktop);
  if (!file) throw new Error('Choose a backup file first');
  chosen.delete(desktop);
  await desktop.closeBackend();
  try {
    await restoreDatabase(desktop.userDataDir, file, recordAudit);
  } catch (err) {
    desktop.useBackend({ kind: 'local', server: await startEmbeddedServer(desktop.settings, desktop.serverOptions()) });
    throw err;
  }
  app.relaunch();
  app.exit(0);
}
