import { defineStore } from 'pinia';
import { ref } from 'vue';
import { request } from '../api/client.ts';
import type { Language } from '../i18n/index.ts';

/** The three texts of the unsubscribe pages in one language. */
export interface PageTexts {
  defaultPageText: string;
  confirmPageText: string;
  resultPageText: string;
}

export const PAGE_TEXT_NAMES = ['defaultPageText', 'confirmPageText', 'resultPageText'] as const satisfies readonly (keyof PageTexts)[];

/** Company name and texts of the public unsubscribe pages (GET/PUT /optout/settings): the top-level texts are English. */
export interface UnsubscribeTexts extends PageTexts {
  companyName: string;
  defaultLanguage?: Language;
  texts?: Partial<Record<Language, PageTexts>>;
}

/** What the settings screen sends: the company name, the fallback language and the texts per language. */
export interface UnsubscribeTextsChange {
  companyName: string;
  defaultLanguage: Language;
  texts: Record<Language, PageTexts>;
}

/** The settings screen's unsubscribe page texts (the desktop app's own settings are in stores/desktop.ts). */
export const useSettingsStore = defineStore('settings', () => {
  const texts = ref<UnsubscribeTexts | null>(null);

  async function loadTexts() {
    texts.value = await request<UnsubscribeTexts>('GET', '/optout/settings');
  }

  async function saveTexts(next: UnsubscribeTextsChange) {
    texts.value = await request<UnsubscribeTexts>('PUT', '/optout/settings', { body: next });
  }

  return { texts, loadTexts, saveTexts };
});
