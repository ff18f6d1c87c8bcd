import { app, ipcMain, type IpcMainInvokeEvent } from 'electron';
import { backupNowAction, backupsView, chooseRestoreFile, restoreChosenFile, setAutoBackup } from './backup-actions.ts';
import { CHANNELS, type CatiBridge, type ConnectRequest } from './bridge-api.ts';
import { connect, connectionView, forgetServer, useLocalServer } from './client-mode.ts';
import type { DesktopApp } from './desktop-app.ts';
import { saveContent, saveDownload } from './file-dialogs.ts';
import { chooseTlsFile } from './tls-dialog.ts';

type Handlers = { [K in keyof CatiBridge]: (...args: Parameters<CatiBridge[K]>) => ReturnType<CatiBridge[K]> | Awaited<ReturnType<CatiBridge[K]>> };

/** What each bridge function does in the main process (arguments come from the page: each handler checks them). */
function handlers(desktop: DesktopApp): Handlers {
  return {
    getSession: () => desktop.session(),
    getSettings: () => desktop.settingsView(),
    setSettings: (settings) => desktop.applySettings(settings),
    chooseTlsFile: (kind) => chooseTlsFile(desktop.window, kind),
    getConnection: () => connectionView(desktop),
    connect: (request: ConnectRequest) => connect(desktop, request),
    useLocalServer: () => useLocalServer(desktop),
    forgetServer: (url) => forgetServer(desktop, String(url)),
    getBackups: () => backupsView(desktop),
    backupNow: () => backupNowAction(desktop),
    setAutoBackup: (on) => setAutoBackup(desktop, on),
    chooseRestoreFile: () => chooseRestoreFile(desktop),
    restoreChosenFile: () => restoreChosenFile(desktop),
    saveDownload: (path, name) => saveDownload(desktop.window, desktop.apiAccess(), path, String(name)),
    saveFile: (name, content) => saveContent(desktop.window, String(name), content),
    // The regional setting where the OS has one (Windows, macOS), else the UI language (the phone region reads it the same way).
    getSystemLocale: () => app.getSystemLocale?.() || app.getLocale(),
  };
}

/** Registers the preload bridge's handlers; every call is refused unless it comes from our own page. */
export function registerBridge(desktop: DesktopApp): void {
  const table = handlers(desktop);
  for (const [name, channel] of Object.entries(CHANNELS) as [keyof CatiBridge, string][]) {
    const fn = table[name] as (...args: unknown[]) => unknown;
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      if (!desktop.isTrustedSender(event)) throw new Error('Refused: the request does not come from the CATI Supervisor page');
      return fn(...args);
    });
  }
}
