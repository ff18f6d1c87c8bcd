/**
 * Preload script (compiled to dist/main/preload.cjs; sandboxed preloads must be CommonJS and cannot require
 * our own modules). Exposes the narrow `window.cati` bridge: one named function per IPC channel, with the same
 * names as CHANNELS in bridge-api.ts (a test compares them). Nothing else of Electron reaches the page.
 */
import electron = require('electron');
import type { CatiBridge, ConnectRequest, DesktopSettings } from './bridge-api.ts';

const { contextBridge, ipcRenderer } = electron;

const bridge: CatiBridge = {
  getSession: () => ipcRenderer.invoke('cati:get-session'),
  getSettings: () => ipcRenderer.invoke('cati:get-settings'),
  setSettings: (settings: DesktopSettings) => ipcRenderer.invoke('cati:set-settings', settings),
  chooseTlsFile: (kind: 'cert' | 'key') => ipcRenderer.invoke('cati:choose-tls-file', kind),
  getConnection: () => ipcRenderer.invoke('cati:get-connection'),
  connect: (request: ConnectRequest) => ipcRenderer.invoke('cati:connect', request),
  useLocalServer: () => ipcRenderer.invoke('cati:use-local-server'),
  forgetServer: (url: string) => ipcRenderer.invoke('cati:forget-server', url),
  getBackups: () => ipcRenderer.invoke('cati:get-backups'),
  backupNow: () => ipcRenderer.invoke('cati:backup-now'),
  setAutoBackup: (on: boolean) => ipcRenderer.invoke('cati:set-auto-backup', on),
  chooseRestoreFile: () => ipcRenderer.invoke('cati:choose-restore-file'),
  restoreChosenFile: () => ipcRenderer.invoke('cati:restore-chosen-file'),
  saveDownload: (path: string, suggestedName: string) => ipcRenderer.invoke('cati:save-download', path, suggestedName),
  saveFile: (suggestedName: string, content: Uint8Array) => ipcRenderer.invoke('cati:save-file', suggestedName, content),
  getSystemLocale: () => ipcRenderer.invoke('cati:get-system-locale'),
};

contextBridge.exposeInMainWorld('cati', bridge);
