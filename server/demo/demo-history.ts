import { insertMany } from '../db/bulk.ts';
import type { Queryable } from '../db/store.ts';
import type { DemoBase } from './demo-entities.ts';
import { CALL_OUTCOMES } from './demo-names.ts';
import type { Rng } from './prng.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Calls happen 08:00-21:00 UTC. */
const OPEN_HOUR = 8;
const WORK_HOURS = 13;

/** Start of the UTC day `days` before the day of `now`. */
const dayStart = (now: number, days: number) => Math.floor(now / DAY) * DAY - days * DAY;

function phoneNumber(rng: Rng): string {
  const r = rng.next();
  if (r < 0.55) return `316${String(rng.int(0, 99_999_999)).padStart(8, '0')}`;
  const area = ['20', '10', '30', '40', '50', '70', '71', '73', '76', '78'][Math.floor(rng.next() * 10)]!;
  return `31${area}${String(rng.int(0, 9_999_999)).padStart(7, '0')}`;
}

/**
 * Benchmark calls (`npm run seed`; the demo's own history comes from demo-shifts.ts and is consistent with
 * sessions). Inserts `count` calls spread over the working hours of the last `days` days, in time order, in bulk
 * (`insertMany`; the caller holds the transaction). Resolves to the number inserted.
 */
export async function insertCalls(q: Queryable, rng: Rng, base: DemoBase, count: number, now: number, days = 30, onProgress?: (n: number) => void): Promise<number> {
  await insertMany(q, 'calls', CALL_COLUMNS, callRows(rng, base, count, now, days, onProgress));
  return count;
}

/** The columns of the calls the demo writes, in the order of its rows. */
export const CALL_COLUMNS = [
  'time', 'survey_id', 'interview_id', 'interviewer_id', 'telephone_number', 'extended_status', 'duration', 'waiting_time', 'call_center_id',
] as const;

/** The rows of insertCalls (values in CALL_COLUMNS order, in time order), generated one at a time (a year of calls is never held at once). */
export function* callRows(rng: Rng, base: DemoBase, count: number, now: number, days: number, onProgress?: (n: number) => void): Generator<unknown[]> {
  // Working windows of the last `days` working days, cut at `now` (before today's opening hour the window
  // of `days` days ago takes today's place, so calls always span `days` distinct days); calls fill them evenly.
  let windows: [start: number, length: number][] = [];
  for (let d = days; d >= 0; d--) {
    const open = dayStart(now, d) + OPEN_HOUR * HOUR;
    const close = Math.min(open + WORK_HOURS * HOUR, now);
    if (close > open) windows.push([open, close - open]);
  }
  windows = windows.slice(-days);
  if (windows.length === 0) windows.push([now - HOUR, HOUR]);
  const total = windows.reduce((sum, [, len]) => sum + len, 0);
  const step = total / Math.max(count, 1);
  const surveyWeights = base.surveys.map((s) => [s, s.open ? 4 : 1] as const);
  const centers = base.callCenters
    .map((c) => [c, base.interviewersByCenter.get(c) ?? []] as const)
    .filter(([, ids]) => ids.length > 0)
    .map(([c, ids]) => [[c, ids] as const, ids.length] as const);
  const outcomes = CALL_OUTCOMES.map((o) => [o, o[1]] as const);
  let w = 0;
  let passed = 0; // length of the windows before window w
  for (let i = 0; i < count; i++) {
    const offset = Math.min((i + rng.next()) * step, total - 1);
    while (offset - passed >= windows[w]![1]) passed += windows[w++]![1];
    const time = windows[w]![0] + Math.floor(offset - passed);
    const survey = rng.weighted(surveyWeights);
    const [center, interviewers] = rng.weighted(centers);
    const [status, , minSec, maxSec] = rng.weighted(outcomes);
    const noAgent = status === 10 || status === 2 || status === 3;
    yield [
      time, survey.id, rng.int(1, survey.sampleSize), noAgent && rng.chance(0.6) ? null : rng.pick(interviewers), phoneNumber(rng),
      status, rng.int(minSec, maxSec), rng.int(0, noAgent ? 4 : 25), center,
    ];
    if (onProgress && (i + 1) % 250_000 === 0) onProgress(i + 1);
  }
}
