/**
 * Demo history that tells the truth (docs/cati-api.md#floor): every interviewer's calls and breaks lie inside one of
 * its sessions and never overlap, nothing starts in the future, and today's floor is busy right now —
 * open sessions with calls and breaks in progress (one break over its limit). Dialer calls that reached
 * nobody (no answer, busy, abandoned) carry no interviewer and fall anywhere in working hours.
 */
import { insertMany } from '../db/bulk.ts';
import type { Queryable } from '../db/store.ts';
import { todayIn } from '../../common/time-zones.ts';
import type { DemoBase } from './demo-entities.ts';
import { CALL_COLUMNS } from './demo-history.ts';
import { BREAK_TYPES, CALL_OUTCOMES } from './demo-names.ts';
import type { Rng } from './prng.ts';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
/** Outcomes the dialer settles without an agent. */
const NO_AGENT = new Set([2, 3, 10]);
/** Limits the demo gives its break types (minutes). */
export const DEMO_BREAK_LIMITS: Record<number, number> = { 1: 15, 2: 45, 3: 20, 4: 60, 5: 45 };

export interface DemoCounts {
  calls: number;
  sessions: number;
  breaks: number;
}

/** Collects sessions, calls and breaks in the order they happen; `write` stores them in bulk (the caller holds the transaction). */
class ShiftWriter {
  private readonly sessions: unknown[][] = [];
  private readonly calls: unknown[][] = [];
  private readonly breaks: unknown[][] = [];
  readonly counts: DemoCounts = { calls: 0, sessions: 0, breaks: 0 };
  private readonly agentOutcomes = CALL_OUTCOMES.filter((o) => !NO_AGENT.has(o[0])).map((o) => [o, o[1]] as const);
  private readonly dialerOutcomes = CALL_OUTCOMES.filter((o) => NO_AGENT.has(o[0])).map((o) => [o, o[1]] as const);
  private readonly breakTypes = BREAK_TYPES.map((b) => [b, b[5]] as const);

  constructor(
    private readonly rng: Rng,
    private readonly base: DemoBase,
  ) {}

  /** Stores what was collected, each table's rows in the order they were made (so their ids follow time as before). */
  async write(q: Queryable): Promise<void> {
    await insertMany(q, 'sessions', ['call_center_id', 'interviewer_id', 'login_time', 'logout_time'], this.sessions);
    await insertMany(q, 'calls', CALL_COLUMNS, this.calls);
    const breakColumns = ['time', 'survey_id', 'duration', 'interviewer_id', 'call_center_id', 'break_type_id', 'break_type_name', 'is_paid'];
    await insertMany(q, 'breaks', breakColumns, this.breaks);
  }

  private survey() {
    const open = this.base.surveys.filter((s) => s.open);
    return this.rng.pick(open.length ? open : this.base.surveys);
  }

  private phone(): string {
    return `316${String(this.rng.int(0, 99_999_999)).padStart(8, '0')}`;
  }

  /** A call by the dialer alone (no interviewer), closed. */
  dialerCall(center: number, at: number): void {
    const [status, , minSec, maxSec] = this.rng.weighted(this.dialerOutcomes);
    const s = this.survey();
    this.calls.push([at, s.id, this.rng.int(1, s.sampleSize), null, this.phone(), status, this.rng.int(minSec, maxSec), this.rng.int(0, 4), center]);
    this.counts.calls++;
  }

  /** One session [login, logout) filled with calls and breaks; logout null = still logged in at `now`. */
  shift(center: number, interviewer: number, login: number, logout: number | null, now: number, forceBreakAt?: { at: number; type: number }): void {
    this.sessions.push([center, interviewer, login, logout]);
    this.counts.sessions++;
    // Calls and breaks fill [login, end); the last may still run at `now` when the session is open and no
    // break is forced at `end`.
    const end = forceBreakAt?.at ?? logout ?? now;
    const mayStayOpen = logout === null && !forceBreakAt;
    const breakCount = this.rng.int(0, Math.min(3, Math.floor((end - login) / (90 * MIN))));
    const breakAt = Array.from({ length: breakCount }, () => login + this.rng.int(20, Math.max(21, (end - login) / MIN - 20)) * MIN).sort((a, b) => a - b);
    let t = login + this.rng.int(30, 180) * SEC;
    while (t < end) {
      if (breakAt.length && t >= breakAt[0]!) {
        breakAt.shift();
        const [type, name, paid, minSec, maxSec] = this.rng.weighted(this.breakTypes);
        const d = this.rng.int(minSec, maxSec);
        const open = t + d * SEC > end && mayStayOpen;
        const duration = open ? null : Math.min(d, Math.floor((end - t) / SEC));
        this.breaks.push([t, type === 2 ? null : this.survey().id, duration, interviewer, center, type, name, paid ? 1 : 0]);
        this.counts.breaks++;
        if (open) return;
        t += d * SEC + this.rng.int(10, 60) * SEC;
        continue;
      }
      const wait = this.rng.int(3, 45);
      t += wait * SEC;
      if (t >= end) break;
      const [status, , minSec, maxSec] = this.rng.weighted(this.agentOutcomes);
      const d = this.rng.int(minSec, maxSec);
      const open = t + d * SEC > end && mayStayOpen;
      const s = this.survey();
      const duration = open ? null : Math.min(d, Math.floor((end - t) / SEC));
      this.calls.push([t, s.id, this.rng.int(1, s.sampleSize), interviewer, this.phone(), open ? null : status, duration, wait, center]);
      this.counts.calls++;
      if (open) return;
      t += d * SEC + this.rng.int(5, 30) * SEC; // wrap-up
    }
    if (forceBreakAt) this.openBreak(center, interviewer, forceBreakAt.at, forceBreakAt.type);
  }

  private openBreak(center: number, interviewer: number, at: number, typeId: number): void {
    const [type, name, paid] = BREAK_TYPES.find((b) => b[0] === typeId)!;
    this.breaks.push([at, null, null, interviewer, center, type, name, paid ? 1 : 0]);
    this.counts.breaks++;
  }
}

/**
 * Sessions, calls and breaks of the last `days` days for every unlocked demo interviewer (working hours
 * 08:00–21:00 in the centre's zone), then today's open sessions around `now`, then dialer-only calls until
 * at least `minCalls` calls exist. Deterministic for a given rng and `now`.
 */
export async function insertDemoShifts(
  q: Queryable,
  rng: Rng,
  base: DemoBase,
  now: number,
  zoneOf: (center: number) => string,
  days = 30,
  minCalls = 0,
): Promise<DemoCounts> {
  const w = new ShiftWriter(rng, base);
  const locked = new Set(await q.column<number>('SELECT id FROM interviewers WHERE is_locked = 1'));
  const windows: [center: number, start: number, end: number][] = [];
  const lastLogout = new Map<number, number>();
  for (const [center, ids] of base.interviewersByCenter) {
    const zone = zoneOf(center);
    for (let d = days; d >= 1; d--) {
      const [dayStart] = todayIn(zone, now - d * 24 * HOUR);
      const dayEnd = Math.min(dayStart + 23 * HOUR, now - 6 * HOUR);
      windows.push([center, dayStart + 8 * HOUR, Math.min(dayStart + 21 * HOUR, dayEnd)]);
      for (const interviewer of ids) {
        if (locked.has(interviewer) || !rng.chance(0.75)) continue;
        let login = dayStart + (8 + rng.int(0, 7)) * HOUR + rng.int(0, 59) * MIN;
        for (let part = rng.chance(0.25) ? 2 : 1; part > 0 && login < dayEnd - 30 * MIN; part--) {
          const logout = Math.min(login + rng.int(180, 330) * MIN, dayEnd);
          w.shift(center, interviewer, login, logout, now);
          lastLogout.set(interviewer, logout);
          login = logout + rng.int(20, 90) * MIN;
        }
      }
    }
    // Today: most interviewers are logged in now; a few are on a break (one past its limit).
    let onBreak = 0;
    for (const interviewer of ids) {
      if (locked.has(interviewer) || !rng.chance(0.8)) continue;
      const login = Math.max(now - rng.int(15, 300) * MIN, (lastLogout.get(interviewer) ?? 0) + 20 * MIN);
      if (login > now - 5 * MIN) continue;
      const force = onBreak < 3 && rng.chance(0.25) ? { at: now - (onBreak === 0 ? rng.int(18, 30) : rng.int(2, 12)) * MIN, type: onBreak === 0 ? 1 : rng.pick([1, 2, 3]) } : undefined;
      if (force && force.at > login) onBreak++;
      w.shift(center, interviewer, login, null, now, force && force.at > login ? force : undefined);
    }
    windows.push([center, now - 5 * HOUR, now]);
  }
  const total = windows.reduce((sum, [, a, b]) => sum + Math.max(0, b - a), 0);
  const dialerCalls = Math.max(Math.round(w.counts.calls * 0.6), minCalls - w.counts.calls);
  for (let i = 0; i < dialerCalls && total > 0; i++) {
    let offset = rng.next() * total;
    const [center, start, end] = windows.find(([, a, b]) => (offset -= Math.max(0, b - a)) < 0) ?? windows[windows.length - 1]!;
    w.dialerCall(center, Math.floor(Math.min(end - 1, Math.max(start, end + offset))));
  }
  await w.write(q);
  return w.counts;
}
