import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { DesktopSettings, DesktopSettingsView } from '../../../main/bridge-api.ts';
import { request } from '../api/client.ts';

/** Company name and texts of the public unsubscribe pages (GET/PUT /optout/settings). */
export interface UnsubscribeTexts {
  companyName: string;
  defaultPageText: string;
  confirmPageText: string;
  resultPageText: string;
}

/** The settings screen's data: unsubscribe page texts, and the desktop app's server settings when in Electron. */
export const useSettingsStore = defineStore('settings', () => {
  const texts = ref<UnsubscribeTexts | null>(null);
  const desktop = ref<DesktopSettingsView | null>(null);

  async function loadTexts() {
    texts.value = await request<UnsubscribeTexts>('GET', '/optout/settings');
  }

  async function saveTexts(next: UnsubscribeTexts) {
    texts.value = await request<UnsubscribeTexts>('PUT', '/optout/settings', { body: next });
  }

  async function loadDesktop() {
    desktop.value = window.cati ? await window.cati.getSettings() : null;
  }

  /** Saves desktop settings; the main process restarts the server and reloads this window. */
  async function saveDesktop(next: DesktopSettings) {
    if (!window.cati) return;
    desktop.value = await window.cati.setSettings(next);
  }

  return { texts, desktop, loadTexts, saveTexts, loadDesktop, saveDesktop };
});
