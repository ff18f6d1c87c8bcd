/** Time ranges of the History and Productivity screens: datetime-local values, presets (Today / Yesterday / This week), ISO bounds. */
import type { AddressField } from '../composables/address-query.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** A Date as the value of an `<input type="datetime-local">` (local time, minutes). */
export function toLocalInput(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export type RangePreset = 'today' | 'yesterday' | 'week';
export const RANGE_PRESETS: { value: RangePreset; label: string }[] = [
  { value: 'today', label: 'Today' },
  { value: 'yesterday', label: 'Yesterday' },
  { value: 'week', label: 'This week' },
];

/** A preset as local start (inclusive) and end (exclusive): today, yesterday, or this week from Monday to next Monday. */
export function presetRange(preset: RangePreset, now = new Date()): { start: string; end: string } {
  const day = (offset: number) => new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
  if (preset === 'yesterday') return { start: toLocalInput(day(-1)), end: toLocalInput(day(0)) };
  if (preset === 'week') {
    const monday = (now.getDay() + 6) % 7;
    return { start: toLocalInput(day(-monday)), end: toLocalInput(day(7 - monday)) };
  }
  return { start: toLocalInput(day(0)), end: toLocalInput(day(1)) };
}

/** Today from local midnight (inclusive) to the next local midnight (exclusive). */
export const todayRange = (now = new Date()) => presetRange('today', now);

/** A datetime-local value as an ISO UTC instant; throws a readable error when it is not a date. */
export function localInputToIso(value: string, label: string): string {
  const d = new Date(value);
  if (!value || Number.isNaN(d.getTime())) throw new Error(`${label} is not a valid date and time.`);
  return d.toISOString();
}

/** A whole number of seconds from a filter input ('' = no bound); throws a readable error otherwise. */
export function secondsBound(value: string, label: string): number | null {
  const text = value.trim();
  if (!text) return null;
  if (!/^\d{1,9}$/.test(text)) throw new Error(`${label} must be a whole number of seconds.`);
  return Number(text);
}

/** A range that follows a preset (a bookmark of "today" shows today) or holds the dates typed in (preset null). */
export interface RangeState {
  preset: { value: RangePreset | null };
  range: { value: { start: string; end: string } };
}

/** The range's ISO bounds (start inclusive, end exclusive); a preset is first moved to the clock's now. */
export function rangeBounds(s: RangeState): { start: string; end: string } {
  if (s.preset.value) s.range.value = presetRange(s.preset.value);
  return { start: localInputToIso(s.range.value.start, 'From'), end: localInputToIso(s.range.value.end, 'To') };
}

/** The address fields of a range (`range=yesterday`, or `range=custom&from=…&to=…`; today is the default). */
export function rangeAddressFields(s: RangeState): Record<'range' | 'from' | 'to', AddressField> {
  const { preset, range } = s;
  return {
    range: {
      get: () => (preset.value === 'today' ? '' : (preset.value ?? 'custom')),
      set: (v) => (preset.value = v === 'yesterday' || v === 'week' ? v : v === 'custom' ? null : 'today'),
    },
    from: { get: () => (preset.value ? '' : range.value.start), set: (v) => v && (range.value = { ...range.value, start: v }) },
    to: { get: () => (preset.value ? '' : range.value.end), set: (v) => v && (range.value = { ...range.value, end: v }) },
  };
}
