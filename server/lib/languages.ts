/**
 * The languages the product speaks (docs/people.md#language, docs/unsubscribe.md#languages): one list for the
 * person's setting and an opt-out list's pages, and the one check that turns a request's value into one of them.
 */
import { badRequest } from '../errors.ts';

export const LANGUAGES = ['en', 'nl', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Whether `value` is one of LANGUAGES (exactly, lower case). */
export const isLanguage = (value: unknown): value is Language => typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

/** A request's language field: one of LANGUAGES, or null (with `nullable`); anything else → 400 naming it. */
export function parseLanguage(value: unknown, field: string, nullable = true): Language | null {
  if (value === null && nullable) return null;
  if (typeof value === 'string' && isLanguage(value.toLowerCase())) return value.toLowerCase() as Language;
  const shown = typeof value === 'string' ? `'${value.slice(0, 40)}'` : JSON.stringify(value)?.slice(0, 40) ?? String(value);
  throw badRequest(`Unknown language ${shown} in '${field}': use one of ${LANGUAGES.join(', ')}${nullable ? ' (or null)' : ''}`);
}
