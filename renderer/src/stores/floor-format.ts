/** How the floor shows times: durations that tick, clock times in a call centre's zone (labelled), break levels. */
import { formatClockTime } from '../i18n/index.ts';

/** One row of `/cati/floor` (docs/cati-api.md#floor). */
export interface FloorRow {
  SessionId: number;
  InterviewerId: number;
  Name: string | null;
  DisplayName: string | null;
  CallCenterId: number;
  LoginTime: string;
  State: FloorState;
  StateSince: string;
  BreakTypeId: number | null;
  BreakTypeName: string | null;
  BreakOverLimit: boolean;
  SurveyId: string | null;
  CallsToday: number;
  CompletesToday: number;
  IsLocked: boolean;
}

export type FloorState = 'Waiting' | 'OnCall' | 'OnBreak';
export const FLOOR_STATES: FloorState[] = ['Waiting', 'OnCall', 'OnBreak'];
/** Each state's name: a catalogue key (i18n/en.ts). */
export const STATE_LABELS = { Waiting: 'floor.state.Waiting', OnCall: 'floor.state.OnCall', OnBreak: 'floor.state.OnBreak' } as const satisfies Record<FloorState, string>;

/** A break nearing its limit from this share of `MaxMinutes` on. */
export const NEAR_LIMIT_SHARE = 0.8;

/** `ok`, `near` (≥ 80 % of the break's limit) or `over` (past it, or the server says so). */
export type BreakLevel = 'ok' | 'near' | 'over';

/** Seconds a row has been in its state at `now` (never negative). */
export const secondsInState = (row: Pick<FloorRow, 'StateSince'>, now: number): number =>
  Math.max(0, Math.floor((now - Date.parse(row.StateSince)) / 1000));

/** The break level of a row at `now`, from the server's flag and the ticking time against the type's limit. */
export function breakLevel(row: FloorRow, maxMinutes: number | null | undefined, now: number): BreakLevel {
  if (row.State !== 'OnBreak') return 'ok';
  if (row.BreakOverLimit) return 'over';
  if (maxMinutes === null || maxMinutes === undefined) return 'ok';
  const s = secondsInState(row, now);
  if (s > maxMinutes * 60) return 'over';
  return s >= maxMinutes * 60 * NEAR_LIMIT_SHARE ? 'near' : 'ok';
}

/** `4:07` or `1:02:07`. */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A clock time in `timeZone` (the browser's when null), with seconds if asked, in the language's convention. */
export function formatClock(at: number | string, timeZone: string | null, withSeconds = false): string {
  return formatClockTime(at, { timeZone, seconds: withSeconds });
}

const zoneNames = new Map<string, { format: Intl.DateTimeFormat; minute: number; name: string }>();
/**
 * The short name of a zone at a moment (`CET`, `GMT+9`). The floor asks for it for every row on each second's
 * render, so the formatter is made once per zone (making one costs more than formatting with it) and its answer is
 * kept for the minute asked about: a zone's name changes only at an offset change, which falls on a whole minute.
 */
export function zoneShort(timeZone: string | null, at = Date.now()): string {
  const key = timeZone ?? '';
  const minute = Math.floor(at / 60_000);
  let z = zoneNames.get(key);
  if (!z) zoneNames.set(key, (z = { format: new Intl.DateTimeFormat('en', { timeZone: timeZone ?? undefined, timeZoneName: 'short' }), minute: NaN, name: '' }));
  if (z.minute !== minute) {
    z.name = z.format.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
    z.minute = minute;
  }
  return z.name;
}

let browserZone: string | undefined;

const yearRound = new Map<string, boolean>();
/**
 * How a column header names a zone: its short name when that is the same all year (`UTC`, `GMT+9`), else its IANA name
 * (`Europe/Amsterdam`). A table's rows fall on both sides of a clock change: a header saying `GMT+1` over July's rows
 * (shown at GMT+2, rightly) told the reader the wrong offset.
 */
export function zoneHeading(timeZone: string | null, at = Date.now()): string {
  const name = timeZone ?? (browserZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
  const year = new Date(at).getUTCFullYear();
  const key = `${name} ${year}`;
  let constant = yearRound.get(key);
  if (constant === undefined) {
    const format = new Intl.DateTimeFormat('en', { timeZone: name, timeZoneName: 'longOffset' });
    const offset = (ms: number) => format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value;
    yearRound.set(key, (constant = offset(Date.UTC(year, 0, 1)) === offset(Date.UTC(year, 6, 1))));
  }
  return constant ? zoneShort(name, at) : name;
}

/** The label of a zone: its IANA name and its short name now (`Europe/Amsterdam, CET`; `UTC` once). */
export function zoneLabel(timeZone: string | null, now = Date.now()): string {
  const name = timeZone ?? (browserZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
  const short = zoneShort(name, now);
  return short && short !== name ? `${name}, ${short}` : name;
}

/** The figures at the top of the floor, over the rows shown. */
export interface FloorCounts {
  loggedIn: number;
  onCall: number;
  waiting: number;
  onBreak: number;
  overLimit: number;
  callsToday: number;
  completesToday: number;
}

/** Counts rows by state, over-limit breaks (with `levelOf`) and the day's calls and completes. */
export function countFloor(rows: readonly FloorRow[], levelOf: (r: FloorRow) => BreakLevel): FloorCounts {
  const c: FloorCounts = { loggedIn: rows.length, onCall: 0, waiting: 0, onBreak: 0, overLimit: 0, callsToday: 0, completesToday: 0 };
  for (const r of rows) {
    if (r.State === 'OnCall') c.onCall++;
    else if (r.State === 'Waiting') c.waiting++;
    else c.onBreak++;
    if (levelOf(r) === 'over') c.overLimit++;
    c.callsToday += r.CallsToday;
    c.completesToday += r.CompletesToday;
  }
  return c;
}
