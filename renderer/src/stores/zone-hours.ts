/**
 * Days and hours of a call centre's time zone for the reports (docs/cati-api.md#floor: a centre's "today" is midnight to
 * midnight in its zone). The server groups calls by UTC date and hour (`compute(date(Time) as Day, hour(Time) as
 * Hour)`); these helpers place those buckets on the centre's clock when its offset is whole hours, else keep UTC.
 */
import { todayIn } from '../../../common/time-zones.ts';
import { t } from '../i18n/index.ts';

const HOUR = 3_600_000;

/** `[start, end)` of today and of yesterday in `zone`, as epoch ms. */
export function zoneDays(zone: string, now: number): { today: [number, number]; yesterday: [number, number] } {
  const today = todayIn(zone, now);
  return { today, yesterday: todayIn(zone, today[0] - 1) };
}

const hourMinute = new Map<string, Intl.DateTimeFormat>();

/** Wall-clock hour and minute of an instant in a zone. */
export function wallHourMinute(zone: string, ms: number): { hour: number; minute: number } {
  let f = hourMinute.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
    hourMinute.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { hour: Number(parts.hour), minute: Number(parts.minute) };
}

/** True when the zone is a whole number of hours from UTC at each of the instants (so UTC hours are its hours). */
export function wholeHourOffset(zone: string, instants: number[]): boolean {
  return instants.every((ms) => wallHourMinute(zone, ms).minute === new Date(ms).getUTCMinutes());
}

/** A bucket of `compute(date(Time) as Day, hour(Time) as Hour)/groupby((Day,Hour),aggregate($count as Calls))`. */
export interface HourBucket {
  Day: string;
  Hour: number;
  Calls: number;
}

/** Calls per hour of today and yesterday, on 24 slots labelled `HH:00`; `utc` says the slots are UTC hours. */
export interface HourlySeries {
  labels: string[];
  today: number[];
  yesterday: number[];
  utc: boolean;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Puts UTC hour buckets (one query per day, so a bucket never mixes two days) on the centre's hours: a bucket's slot
 * is its hour on the centre's clock when the zone is whole hours from UTC (on a day with a DST change the repeated
 * hour is summed, the skipped one stays 0), else its UTC hour, with the slots starting at the UTC hour of the start
 * of today.
 */
export function hourlySeries(
  buckets: { today: readonly HourBucket[]; yesterday: readonly HourBucket[] },
  zone: string,
  days: ReturnType<typeof zoneDays>,
): HourlySeries {
  const utc = !wholeHourOffset(zone, [...days.yesterday, ...days.today]);
  const first = utc ? new Date(days.today[0]).getUTCHours() : 0;
  const slotOf = (ms: number) => ((utc ? new Date(ms).getUTCHours() : wallHourMinute(zone, ms).hour) - first + 24) % 24;
  const place = (rows: readonly HourBucket[]) => {
    const series = new Array<number>(24).fill(0);
    for (const b of rows) {
      const at = Date.parse(`${b.Day}T00:00:00Z`) + b.Hour * HOUR;
      if (Number.isNaN(at)) continue;
      const slot = slotOf(at);
      series[slot] = (series[slot] ?? 0) + (Number(b.Calls) || 0);
    }
    return series;
  };
  const labels = Array.from({ length: 24 }, (_, i) => `${pad((i + first) % 24)}:00`);
  return { labels, today: place(buckets.today), yesterday: place(buckets.yesterday), utc };
}

/** A one-sentence summary of the series for screen readers (the chart's label). */
export function hourlySummary(s: HourlySeries, zoneLabel: string): string {
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const peak = s.today.reduce((best, v, i) => (v > s.today[best]! ? i : best), 0);
  const args = { zone: s.utc ? 'UTC' : zoneLabel, today: sum(s.today), yesterday: sum(s.yesterday) };
  return sum(s.today)
    ? t('surveysToday.summaryPeak', { ...args, hour: s.labels[peak] ?? '', calls: s.today[peak] ?? 0 })
    : t('surveysToday.summary', args);
}

const zoneNames = new Map<string, Intl.DateTimeFormat>(); // one formatter per zone (making one is the costly part)

/** A zone for labels: its IANA name and its short name at that instant (`Europe/Amsterdam (CET)`). */
export function zoneLabel(zone: string, ms: number): string {
  let f = zoneNames.get(zone);
  if (!f) zoneNames.set(zone, (f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, timeZoneName: 'short' })));
  const short = f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value;
  return short && short !== zone ? `${zone} (${short})` : zone;
}
