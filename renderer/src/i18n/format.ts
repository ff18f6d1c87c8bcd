/**
 * Dates, times and numbers in the language's conventions through `Intl` (docs/screens.md#language): `28-11-2026 23:42`
 * in Dutch, `28.11.2026 23:42` in German, `1.234`; one 24-hour clock on every screen. English keeps the browser's own
 * English convention (`11/28/2026` in the US, `28/11/2026` in Britain). Reading the language inside each helper makes
 * a template that calls one render again when the language changes.
 */
import { currentLanguage } from './instance.ts';
import type { Language } from './languages.ts';

const REGION: Record<Language, string> = { en: 'en-GB', nl: 'nl-NL', de: 'de-DE' };

/** The `Intl` locale of a language: the browser's own English (`en-US`, `en-AU`) for `en`, else the language's home region. */
export function intlLocale(language: Language = currentLanguage()): string {
  if (language !== 'en') return REGION[language];
  const english = typeof navigator === 'undefined' ? undefined : navigator.languages?.find((l) => /^en(-|$)/i.test(l));
  return english ?? REGION.en;
}

/** What a formatted time shows: date and time, the date alone, or the time of day. */
type Shape = 'date-time' | 'date' | 'clock';

const cache = new Map<string, Intl.DateTimeFormat>();
/** One formatter per locale, shape and zone (the floor formats every row each second; making one is the costly part). */
function formatter(locale: string, shape: Shape, timeZone: string | undefined, seconds: boolean): Intl.DateTimeFormat {
  const key = `${locale}|${shape}|${timeZone ?? ''}|${seconds}`;
  let f = cache.get(key);
  if (!f) {
    const day: Intl.DateTimeFormatOptions = shape === 'clock' ? {} : { year: 'numeric', month: '2-digit', day: '2-digit' };
    const clock: Intl.DateTimeFormatOptions = shape === 'date' ? {} : { hour: '2-digit', minute: '2-digit', second: seconds ? '2-digit' : undefined, hourCycle: 'h23' };
    cache.set(key, (f = new Intl.DateTimeFormat(locale, { timeZone, ...day, ...clock })));
  }
  return f;
}

/** Options for a time: which zone (null = this computer's) and whether with seconds. */
export interface TimeOptions {
  timeZone?: string | null;
  seconds?: boolean;
}

/**
 * Formats `at` in the language, or gives an unreadable value back as it was. Dutch and German write a date and its
 * time with a space between them (`Intl` puts a comma there).
 */
function format(at: number | string | Date, shape: Shape, { timeZone, seconds = false }: TimeOptions): string {
  const d = at instanceof Date ? at : new Date(typeof at === 'number' ? at : Date.parse(at));
  if (Number.isNaN(d.getTime())) return String(at);
  const language = currentLanguage();
  const f = formatter(intlLocale(language), shape, timeZone ?? undefined, seconds);
  if (language === 'en' || shape !== 'date-time') return f.format(d);
  const parts = f.formatToParts(d);
  return parts.map((p, i) => (i > 0 && p.type === 'literal' && parts[i + 1]?.type === 'hour' ? ' ' : p.value)).join('');
}

/** A date and time (`28-11-2026 23:42` in nl, `28.11.2026 23:42` in de) in `timeZone`. */
export const formatDateTime = (at: number | string | Date, options: TimeOptions = {}): string => format(at, 'date-time', options);

/** A date (`28-11-2026` in nl, `28.11.2026` in de) in `timeZone`. */
export const formatDate = (at: number | string | Date, timeZone?: string | null): string => format(at, 'date', { timeZone });

/** A clock time (`23:42`, or `23:42:05` with seconds) in `timeZone`. */
export const formatClockTime = (at: number | string | Date, options: TimeOptions = {}): string => format(at, 'clock', options);

const numbers = new Map<string, Intl.NumberFormat>();
/** A number in the language's convention (`1.234` in nl and de, `1,234` in en), with at most `fractionDigits` decimals. */
export function formatNumber(value: number, fractionDigits = 0): string {
  const locale = intlLocale();
  const key = `${locale}|${fractionDigits}`;
  let f = numbers.get(key);
  if (!f) numbers.set(key, (f = new Intl.NumberFormat(locale, { maximumFractionDigits: fractionDigits })));
  return f.format(value);
}

/** A number with exactly `digits` decimals (`2.0` in en, `2,0` in nl and de). */
export function formatDecimal(value: number, digits: number): string {
  const locale = intlLocale();
  const key = `${locale}|fixed${digits}`;
  let f = numbers.get(key);
  if (!f) numbers.set(key, (f = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits })));
  return f.format(value);
}

/** A share as a whole percentage (`26%` in en and nl, `26 %` in de). */
export function formatPercent(share: number): string {
  const locale = intlLocale();
  const key = `${locale}|percent`;
  let f = numbers.get(key);
  if (!f) numbers.set(key, (f = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 })));
  return f.format(share);
}
