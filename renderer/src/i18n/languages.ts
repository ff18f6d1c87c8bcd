/** The languages the screens speak, and how a person's, browser's or OS's language tag maps onto them (docs/screens.md#language). */

/** The screens' languages; `en` is the fallback for any missing text. */
export const LANGUAGES = ['en', 'nl', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language's name in itself, for the language switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', nl: 'Nederlands', de: 'Deutsch' };

/** Whether `value` is one of the screens' languages. */
export const isLanguage = (value: unknown): value is Language => typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

/** The screens' language for a BCP 47 tag (`nl-BE` → `nl`, `de_AT.UTF-8` → `de`), or null when none matches. */
export function matchLanguage(tag: string | null | undefined): Language | null {
  const base = (tag ?? '').trim().toLowerCase().split(/[-_.@]/)[0];
  return isLanguage(base) ? base : null;
}

/** Where the language can come from, most specific first. */
export interface LanguageSources {
  /** The person's own setting (`GET /auth/me` `Language`), null when unset. */
  setting?: string | null;
  /** The choice kept in this browser (sign-in page switch, or a session that cannot store it). */
  local?: string | null;
  /** The browser's languages (`navigator.languages`). */
  browser?: readonly string[];
  /** The operating system's locale (desktop app only). */
  os?: string | null;
}

/** The language to show: the person's setting, else the local choice, else the browser's, else the OS's, else English. */
export function chooseLanguage(sources: LanguageSources): Language {
  return (
    matchLanguage(sources.setting) ??
    matchLanguage(sources.local) ??
    (sources.browser ?? []).map(matchLanguage).find((l): l is Language => l !== null) ??
    matchLanguage(sources.os) ??
    'en'
  );
}
