/**
 * The arithmetic of the report screens over aggregated answers (`$apply`, docs/cati-api.md#apply): outcome categories per
 * survey or interviewer, rates, login time clipped to a range, and the per-interviewer productivity rows with totals.
 * Pure functions: the stores fetch, these compute.
 */
import { formatDecimal, formatPercent } from '../i18n/index.ts';
import { categoryOf, OUTCOME_CATEGORIES, type Outcome, type OutcomeCategory } from './report-lookups.ts';

export type CategoryCounts = Record<OutcomeCategory, number>;

/** Every category at 0. */
export const emptyCounts = (): CategoryCounts => Object.fromEntries(OUTCOME_CATEGORIES.map((c) => [c, 0])) as CategoryCounts;

/** One row of `groupby((Key, ExtendedStatus), aggregate($count as Calls, Duration with sum as Talk, WaitingTime with sum as Waiting))`. */
export interface OutcomeBucket {
  ExtendedStatus: number | null;
  Calls: number;
  Talk?: number | null;
  Waiting?: number | null;
}

/** Calls of one key (survey, interviewer) by outcome category, with their talk and waiting seconds. */
export interface CallTally extends CategoryCounts {
  Calls: number;
  Talk: number;
  Waiting: number;
}

/** A tally with nothing counted. */
export const emptyTally = (): CallTally => ({ ...emptyCounts(), Calls: 0, Talk: 0, Waiting: 0 });

/** Sums outcome buckets per key, each code counted in its category (a code without a row is Other). */
export function tallyByKey<R extends OutcomeBucket, K>(rows: readonly R[], keyOf: (r: R) => K | null, outcomes: readonly Outcome[]): Map<K, CallTally> {
  const byKey = new Map<K, CallTally>();
  for (const r of rows) {
    const key = keyOf(r);
    if (key === null) continue;
    let t = byKey.get(key);
    if (!t) byKey.set(key, (t = emptyTally()));
    const n = Number(r.Calls) || 0;
    t.Calls += n;
    t[categoryOf(outcomes, r.ExtendedStatus)] += n;
    t.Talk += Number(r.Talk ?? 0);
    t.Waiting += Number(r.Waiting ?? 0);
  }
  return byKey;
}

/** `count` per hour of `seconds`; null when there is no time to divide by. */
export const perHour = (count: number, seconds: number): number | null => (seconds > 0 ? (count * 3600) / seconds : null);

/** `part` as a share of `whole` (0..1); null when whole is 0. */
export const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

/** A session of `/cati/interviewersessionhistory` (times as the API writes them). */
export interface SessionSpan {
  InterviewerId: number;
  LoginTime: string;
  LogoutTime: string | null;
}

/** Logged-in seconds per interviewer within `[start, end)`; an open session counts up to `now`. */
export function loginSeconds(sessions: readonly SessionSpan[], start: number, end: number, now: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of sessions) {
    const from = Math.max(Date.parse(s.LoginTime), start);
    const to = Math.min(s.LogoutTime === null ? now : Date.parse(s.LogoutTime), end);
    if (Number.isNaN(from) || Number.isNaN(to) || to <= from) continue;
    out.set(s.InterviewerId, (out.get(s.InterviewerId) ?? 0) + (to - from) / 1000);
  }
  return out;
}

/** One row of `breakhistory` `groupby((InterviewerId,BreakTypeId),aggregate($count as Breaks, Duration with sum as Seconds))`. */
export interface BreakBucket {
  InterviewerId: number | null;
  BreakTypeId: number | null;
  Breaks: number;
  Seconds: number | null;
}

/** A break still in progress (`Duration` null): who, which type, since when. */
export interface OpenBreak {
  InterviewerId: number | null;
  BreakTypeId: number | null;
  Time: string;
}

/**
 * The break buckets with the breaks still in progress counted up to now (or the range's end, or the logout of the
 * session the break began in, whichever is first): the aggregation sums `Duration`, which an open break does not have
 * yet, so a 25-minute coffee break in progress read "1 · 0".
 */
export function withOpenBreaks(buckets: readonly BreakBucket[], open: readonly OpenBreak[], sessions: readonly SessionSpan[], end: number, now: number): BreakBucket[] {
  const out = buckets.map((b) => ({ ...b }));
  for (const o of open) {
    const began = Date.parse(o.Time);
    const session = sessions.find((s) => s.InterviewerId === o.InterviewerId && Date.parse(s.LoginTime) <= began && (s.LogoutTime === null || Date.parse(s.LogoutTime) > began));
    const until = Math.min(now, end, session?.LogoutTime ? Date.parse(session.LogoutTime) : Infinity);
    const seconds = Math.max(0, (until - began) / 1000);
    if (!seconds) continue;
    const bucket = out.find((b) => b.InterviewerId === o.InterviewerId && b.BreakTypeId === o.BreakTypeId);
    if (bucket) bucket.Seconds = Number(bucket.Seconds ?? 0) + seconds;
  }
  return out;
}

/** Count and seconds of one break type. */
export interface BreakFigure {
  count: number;
  seconds: number;
}

/** One interviewer's line of the Productivity report (seconds for times; rates null when there is nothing to divide by). */
export interface ProductivityRow {
  InterviewerId: number | null;
  Interviewer: string;
  LoginSeconds: number;
  Calls: number;
  CallsPerHour: number | null;
  Completes: number;
  CompletesPerHour: number | null;
  Refusals: number;
  RefusalShare: number | null;
  TalkSeconds: number;
  WaitingSeconds: number;
  Breaks: Record<number, BreakFigure>;
}

/** What the Productivity report is computed from. */
export interface ProductivityInput {
  calls: Map<number, CallTally>;
  login: Map<number, number>;
  breaks: readonly BreakBucket[];
  /** Interviewer id → name shown. */
  nameOf: (id: number) => string;
  /** Only these interviewers (a survey or group filter); undefined = everyone with figures. */
  only?: ReadonlySet<number>;
}

function rowOf(id: number | null, name: string, tally: CallTally | undefined, login: number, breaks: Record<number, BreakFigure>): ProductivityRow {
  const t = tally ?? emptyTally();
  return {
    InterviewerId: id,
    Interviewer: name,
    LoginSeconds: login,
    Calls: t.Calls,
    CallsPerHour: perHour(t.Calls, login),
    Completes: t.Complete,
    CompletesPerHour: perHour(t.Complete, login),
    Refusals: t.Refusal,
    RefusalShare: share(t.Refusal, t.Calls),
    TalkSeconds: t.Talk,
    WaitingSeconds: t.Waiting,
    Breaks: breaks,
  };
}

/** Per-interviewer rows (everyone with calls, login time or breaks, within `only` when given) and the totals row. */
export function productivityRows(input: ProductivityInput): { rows: ProductivityRow[]; totals: ProductivityRow } {
  const breaksOf = new Map<number, Record<number, BreakFigure>>();
  const totalBreaks: Record<number, BreakFigure> = {};
  for (const b of input.breaks) {
    if (b.InterviewerId === null || b.BreakTypeId === null || (input.only && !input.only.has(b.InterviewerId))) continue;
    const mine = breaksOf.get(b.InterviewerId) ?? {};
    breaksOf.set(b.InterviewerId, mine);
    for (const target of [mine, totalBreaks]) {
      const f = (target[b.BreakTypeId] ??= { count: 0, seconds: 0 });
      f.count += Number(b.Breaks) || 0;
      f.seconds += Number(b.Seconds ?? 0);
    }
  }
  const ids = new Set([...input.calls.keys(), ...input.login.keys(), ...breaksOf.keys()]);
  const rows = [...ids]
    .filter((id) => !input.only || input.only.has(id))
    .map((id) => rowOf(id, input.nameOf(id), input.calls.get(id), input.login.get(id) ?? 0, breaksOf.get(id) ?? {}));
  const total = emptyTally();
  for (const r of rows) {
    const t = input.calls.get(r.InterviewerId!);
    if (!t) continue;
    for (const k of Object.keys(total) as (keyof CallTally)[]) total[k] += t[k];
  }
  const login = rows.reduce((s, r) => s + r.LoginSeconds, 0);
  return { rows, totals: rowOf(null, 'Total', total, login, totalBreaks) };
}

/** Seconds as `h:mm` (hours may pass 24). */
export function formatHours(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A rate with one decimal, `–` when there is none. */
export const formatRate = (v: number | null): string => (v === null ? '–' : formatDecimal(v, 1));

/** A share as a whole percentage, `–` when there is none. */
export const formatShare = (v: number | null): string => (v === null ? '–' : formatPercent(v));
