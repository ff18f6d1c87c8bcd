import { badRequest } from '../errors.ts';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parses an ISO 8601 date or date-time (any offset; none = UTC) into epoch ms, or undefined when malformed.
 */
export function parseIsoTime(text: string): number | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', tz] = m;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return undefined;
  }
  let offsetMin = 0;
  if (tz && tz.toUpperCase() !== 'Z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  return utc - offsetMin * 60_000;
}

/** Parses a required time value of a request (string ISO 8601), or throws a 400 naming the field. */
export function requireTime(value: unknown, field: string): number {
  const ms = typeof value === 'string' ? parseIsoTime(value) : undefined;
  if (ms === undefined) throw badRequest(`${field} must be an ISO 8601 date-time such as 2026-11-02T09:15:00Z`);
  return ms;
}

/** Epoch ms → `2026-11-02T09:15:00.000Z` (null stays null). */
export function toIso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}
