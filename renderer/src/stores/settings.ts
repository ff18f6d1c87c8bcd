import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';

/** Company name and texts of the public unsubscribe pages (GET/PUT /optout/settings). */
export interface UnsubscribeTexts {
  companyName: string;
  defaultPageText: string;
  confirmPageText: string;
  resultPageText: string;
}

/** The settings screen's unsubscribe page texts (the desktop app's own settings are in stores/desktop.ts). */
export const useSettingsStore = defineStore('settings', () => {
  const texts = ref<UnsubscribeTexts | null>(null);

  async function loadTexts() {
    texts.value = await request<UnsubscribeTexts>('GET', '/optout/settings');
  }

  async function saveTexts(next: UnsubscribeTexts) {
    texts.value = await request<UnsubscribeTexts>('PUT', '/optout/settings', { body: next });
  }

  return { texts, loadTexts, saveTexts };
});
