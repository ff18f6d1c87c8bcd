/**
 * Time ranges of the History, Productivity and Activity screens: datetime-local values, presets (Today / Yesterday /
 * This week), ISO bounds. Every wall time is read in the screen's display zone (the call centre's, docs/screens.md#truth;
 * null = this computer's), so "today" starts at that zone's midnight.
 */
import type { AddressField } from '../composables/address-query.ts';
import { t } from '../i18n/index.ts';

const pad = (n: number) => String(n).padStart(2, '0');
const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** Wall-clock fields of an instant in `zone` (this computer's when null). */
function wallOf(ms: number, zone: string | null): { y: number; m: number; d: number; h: number; mi: number; s: number } {
  if (zone === null) {
    const d = new Date(ms);
    return { y: d.getFullYear(), m: d.getMonth() + 1, d: d.getDate(), h: d.getHours(), mi: d.getMinutes(), s: d.getSeconds() };
  }
  let f = wallFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    wallFormats.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, mi: p.minute!, s: p.second! };
}

/** An instant as the value of an `<input type="datetime-local">` (minutes) on the wall clock of `zone`. */
export function toLocalInput(at: Date | number, zone: string | null = null): string {
  const w = wallOf(typeof at === 'number' ? at : at.getTime(), zone);
  return `${w.y}-${pad(w.m)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`;
}

/** The instant of a datetime-local value read on the wall clock of `zone` (NaN when it is not a date and time). */
export function wallTimeToMs(value: string, zone: string | null = null): number {
  if (zone === null) return value ? new Date(value).getTime() : NaN;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return NaN;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  const offsetAt = (ms: number) => {
    const w = wallOf(ms, zone);
    return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000;
  };
  // Two steps settle the offset, also next to a DST change (a wall time in a skipped hour lands after it).
  const guess = wall - offsetAt(wall);
  return wall - offsetAt(guess);
}

/** The period presets of every screen with a period (docs/screens.md#periods). */
export type RangePreset = 'today' | 'yesterday' | 'week' | 'lastWeek' | 'month' | 'lastMonth';
export const RANGE_PRESETS: { value: RangePreset; label: `range.${RangePreset}` }[] = [
  { value: 'today', label: 'range.today' },
  { value: 'yesterday', label: 'range.yesterday' },
  { value: 'week', label: 'range.week' },
  { value: 'lastWeek', label: 'range.lastWeek' },
  { value: 'month', label: 'range.month' },
  { value: 'lastMonth', label: 'range.lastMonth' },
];
const isPreset = (v: string): v is RangePreset => RANGE_PRESETS.some((p) => p.value === v);

/**
 * A preset as start (inclusive) and end (exclusive) wall times in `zone`: today, yesterday, this or last week from
 * Monday to the next Monday, this or last month from its first day to the next month's, midnight to midnight.
 */
export function presetRange(preset: RangePreset, now: Date | number = new Date(), zone: string | null = null): { start: string; end: string } {
  const w = wallOf(typeof now === 'number' ? now : now.getTime(), zone);
  const base = Date.UTC(w.y, w.m - 1, w.d);
  const midnight = (ms: number) => {
    const d = new Date(ms);
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T00:00`;
  };
  const day = (offset: number) => midnight(base + offset * 86_400_000);
  const firstOfMonth = (offset: number) => midnight(Date.UTC(w.y, w.m - 1 + offset, 1));
  if (preset === 'yesterday') return { start: day(-1), end: day(0) };
  if (preset === 'week' || preset === 'lastWeek') {
    const monday = (new Date(base).getUTCDay() + 6) % 7 + (preset === 'lastWeek' ? 7 : 0);
    return { start: day(-monday), end: day(7 - monday) };
  }
  if (preset === 'month') return { start: firstOfMonth(0), end: firstOfMonth(1) };
  if (preset === 'lastMonth') return { start: firstOfMonth(-1), end: firstOfMonth(0) };
  return { start: day(0), end: day(1) };
}

/** A datetime-local value read in `zone` as an ISO UTC instant; throws a readable error when it is not a date. */
export function localInputToIso(value: string, label: string, zone: string | null = null): string {
  const ms = wallTimeToMs(value, zone);
  if (!value || Number.isNaN(ms)) throw new Error(t('history.notDateTime', { label }));
  return new Date(ms).toISOString();
}

/** A whole number of seconds from a filter input ('' = no bound); throws a readable error otherwise. */
export function secondsBound(value: string, label: string): number | null {
  const text = value.trim();
  if (!text) return null;
  if (!/^\d{1,9}$/.test(text)) throw new Error(t('history.notSeconds', { label }));
  return Number(text);
}

/** A range that follows a preset (a bookmark of "today" shows today) or holds the dates typed in (preset null). */
export interface RangeState {
  preset: { value: RangePreset | null };
  range: { value: { start: string; end: string } };
}

/** The range's ISO bounds (start inclusive, end exclusive) read in `zone`; a preset is first moved to the clock's now there. */
export function rangeBounds(s: RangeState, zone: string | null = null): { start: string; end: string } {
  if (s.preset.value) s.range.value = presetRange(s.preset.value, Date.now(), zone);
  return { start: localInputToIso(s.range.value.start, t('common.from'), zone), end: localInputToIso(s.range.value.end, t('history.to'), zone) };
}

/** The address fields of a range (`range=yesterday`, or `range=custom&from=…&to=…`; today is the default). */
export function rangeAddressFields(s: RangeState): Record<'range' | 'from' | 'to', AddressField> {
  const { preset, range } = s;
  return {
    range: {
      get: () => (preset.value === 'today' ? '' : (preset.value ?? 'custom')),
      set: (v) => (preset.value = isPreset(v) ? v : v === 'custom' ? null : 'today'),
    },
    from: { get: () => (preset.value ? '' : range.value.start), set: (v) => v && (range.value = { ...range.value, start: v }) },
    to: { get: () => (preset.value ? '' : range.value.end), set: (v) => v && (range.value = { ...range.value, end: v }) },
  };
}
