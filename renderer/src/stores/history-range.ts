/** Time ranges of the History screen: datetime-local values, presets (Today / Yesterday / This week), ISO bounds. */

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
