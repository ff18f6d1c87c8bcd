/** The one vue-i18n instance (composition API), with every catalogue and English as the fallback (docs/screens.md#language). */
import { createI18n } from 'vue-i18n';
import { de } from './de.ts';
import { en, type Messages } from './en.ts';
import type { Language } from './languages.ts';
import { nl } from './nl.ts';

declare module 'vue-i18n' {
  // Typed keys: `t('nav.floor')` checks that the key exists in the English catalogue.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  export interface DefineLocaleMessage extends Messages {}
}

/** The app's i18n instance; `app.use(i18n)` makes `$t` and `useI18n()` work in every component. */
export const i18n = createI18n<[Messages], Language, false>({
  legacy: false,
  locale: 'en',
  fallbackLocale: 'en',
  messages: { en, nl, de },
  // A missing text falls back to English without a console warning per render (the catalogue test catches gaps).
  missingWarn: false,
  fallbackWarn: false,
});

/** The language the screens speak now (reactive: a render that reads it runs again when it changes). */
export const currentLanguage = (): Language => i18n.global.locale.value;

/** A text in the current language, for code outside components (stores, column definitions, notices). */
export const t = i18n.global.t;
