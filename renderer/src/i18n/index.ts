/**
 * The screens' language (docs/screens.md#language): the i18n instance, which language to show and where the choice
 * is kept, `<html lang>`, and the date, time and number helpers.
 */
import { desktopBridge } from '../api/desktop.ts';
import { i18n } from './instance.ts';
import { chooseLanguage, isLanguage, matchLanguage, type Language } from './languages.ts';

export { i18n, currentLanguage, t } from './instance.ts';
export { LANGUAGES, LANGUAGE_NAMES, chooseLanguage, isLanguage, matchLanguage, type Language } from './languages.ts';
export { formatDate, formatDateTime, formatClockTime, formatDecimal, formatNumber, formatPercent } from './format.ts';

const LOCAL_KEY = 'cati.language';
const PROPOSED_KEY = 'cati.language-proposed';

/** The language kept in this browser (sign-in page switch, or a session that cannot store one), or null. */
export function localLanguage(): Language | null {
  try {
    const v = localStorage.getItem(LOCAL_KEY);
    return isLanguage(v) ? v : null;
  } catch {
    return null;
  }
}

/** Keeps `language` in this browser (null forgets it: the browser's own language counts again). */
export function setLocalLanguage(language: Language | null): void {
  try {
    if (language) localStorage.setItem(LOCAL_KEY, language);
    else localStorage.removeItem(LOCAL_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts as long as the page.
  }
}

let osLocale: string | null = null;

/**
 * Reads the OS locale through the desktop bridge (null in a browser). On the desktop's first start the OS's
 * language is proposed as this computer's choice, as the phone region is; the person changes it in Settings.
 */
export async function loadOsLocale(): Promise<void> {
  const bridge = desktopBridge();
  if (!bridge) return;
  osLocale = await bridge.getSystemLocale().catch(() => null);
  try {
    if (localStorage.getItem(PROPOSED_KEY)) return;
    localStorage.setItem(PROPOSED_KEY, '1');
  } catch {
    return;
  }
  const proposed = matchLanguage(osLocale);
  if (proposed && !localLanguage()) setLocalLanguage(proposed);
}

/** Shows the screens in the language chosen from the person's `setting` and what this browser knows; sets `<html lang>`. */
export function applyLanguage(setting?: string | null): Language {
  const language = chooseLanguage({
    setting,
    local: localLanguage(),
    browser: typeof navigator === 'undefined' ? [] : navigator.languages,
    os: osLocale,
  });
  i18n.global.locale.value = language;
  if (typeof document !== 'undefined') document.documentElement.lang = language;
  return language;
}
