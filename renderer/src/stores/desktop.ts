import { defineStore } from 'pinia';
import { ref } from 'vue';
import type {
  BackupInfo,
  BackupsView,
  ConnectionView,
  ConnectRequest,
  ConnectResult,
  DesktopSettings,
  DesktopSettingsView,
  RestoreCandidate,
} from '../../../main/bridge-api.ts';
import { desktopBridge } from '../api/desktop.ts';
import { t } from '../i18n/index.ts';

/** The desktop app's own state through the preload bridge: server settings, LAN access, client mode, backups. */
export const useDesktopStore = defineStore('desktop', () => {
  const bridge = desktopBridge();
  const settings = ref<DesktopSettingsView | null>(null);
  const connection = ref<ConnectionView | null>(null);
  const backups = ref<BackupsView | null>(null);

  const need = () => {
    if (!bridge) throw new Error(t('storeMessages.desktopOnly'));
    return bridge;
  };

  async function loadSettings() {
    settings.value = bridge ? await bridge.getSettings() : null;
  }
  /** Saves the server settings; the main process restarts the server and reloads this window. */
  async function saveSettings(next: DesktopSettings) {
    settings.value = await need().setSettings(next);
  }
  const chooseTlsFile = (kind: 'cert' | 'key') => need().chooseTlsFile(kind);

  async function loadConnection() {
    connection.value = bridge ? await bridge.getConnection() : null;
  }
  /** Connects to another server; the answer may ask to confirm its certificate or plain HTTP first. */
  async function connect(request: ConnectRequest): Promise<ConnectResult> {
    const result = await need().connect(request);
    if (result.status === 'connected') connection.value = result.view;
    return result;
  }
  async function useLocalServer() {
    connection.value = await need().useLocalServer();
  }
  async function forget(url: string) {
    connection.value = await need().forgetServer(url);
  }

  async function loadBackups() {
    backups.value = bridge ? await bridge.getBackups() : null;
  }
  async function backupNow(): Promise<BackupInfo> {
    const made = await need().backupNow();
    await loadBackups();
    return made;
  }
  async function setAutoBackup(on: boolean) {
    backups.value = await need().setAutoBackup(on);
  }
  const chooseRestoreFile = (): Promise<RestoreCandidate | null> => need().chooseRestoreFile();
  /** Restores the chosen file; the app restarts on success. */
  const restoreChosenFile = () => need().restoreChosenFile();

  return {
    available: bridge !== null,
    settings,
    connection,
    backups,
    loadSettings,
    saveSettings,
    chooseTlsFile,
    loadConnection,
    connect,
    useLocalServer,
    forget,
    loadBackups,
    backupNow,
    setAutoBackup,
    chooseRestoreFile,
    restoreChosenFile,
  };
});
