/**
 * Typed cells of a screen's export (docs/screens.md#exports): what the CSV writes as the text shown, and what an XLSX
 * holds as a number Excel can sum and sort — a time as an Excel date-time in the zone the screen shows (its wall
 * clock, so Excel shows the same digits as the screen), a duration as a fraction of a day, a rate or a share with
 * its number format.
 */

/** A number with its Excel number format, and the text the screen and the CSV show. */
export interface TypedCell {
  value: number;
  format: string;
  text: string;
}

/** One exported cell: text, a plain number, or a typed number. */
export type ExportValue = string | number | TypedCell;

export const isTyped = (v: ExportValue): v is TypedCell => typeof v === 'object' && v !== null;

const MS_PER_DAY = 86_400_000;
/** Days from Excel's epoch (1899-12-30, in its 1900 date system) to 1970-01-01. */
const EXCEL_EPOCH_DAYS = 25_569;

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `ms` in `zone` (null: this computer's), as milliseconds of a UTC date with those fields. */
function wallClockMs(ms: number, zone: string | null): number {
  const key = zone ?? '';
  let f = wallClocks.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone ?? undefined, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23',
    });
    wallClocks.set(key, f);
  }
  const parts = Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
  return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
}

/** An ISO time as an Excel date-time in `zone`, showing `text`; the text alone when there is no time. */
export function dateTimeCell(iso: string | null | undefined, zone: string | null, text: string): ExportValue {
  const ms = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) return text;
  return { value: wallClockMs(ms, zone) / MS_PER_DAY + EXCEL_EPOCH_DAYS, format: 'yyyy-mm-dd hh:mm:ss', text };
}

/** Seconds as an Excel duration (`[h]:mm:ss`, or `[h]:mm` for whole minutes shown), showing `text`. */
export function durationCell(seconds: number | null | undefined, text: string, format = '[h]:mm:ss'): ExportValue {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? { value: seconds / 86_400, format, text } : text;
}

/** A number with a format (`0.0` for rates, `0%` for shares), showing `text`; the text alone for null. */
export function numberCell(value: number | null | undefined, text: string, format: string): ExportValue {
  return typeof value === 'number' && Number.isFinite(value) ? { value, format, text } : text;
}
