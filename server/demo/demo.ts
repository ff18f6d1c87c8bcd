import { applyPhoneRegion, storedRegion } from '../cati/blacklist-region.ts';
import type { ServerConfig } from '../config.ts';
import type { Queryable, Store } from '../db/store.ts';
import { createDemoLists, createDemoOrganisation, createDemoVariables, type DemoBase } from './demo-entities.ts';
import { bulkInsertCalls } from '../db/call-counts.ts';
import { CALL_COLUMNS, callRows } from './demo-history.ts';
import { DEMO_BREAK_LIMITS, insertDemoShifts } from './demo-shifts.ts';
import { createRng } from './prng.ts';
import { loadCalls } from '../db/load-calls.ts';

/** At least this many calls in the demo call centre. */
export const DEMO_CALLS = 120_000;
/** The demo's call centres are Dutch. */
export const DEMO_TIME_ZONE = 'Europe/Amsterdam';
const SEED = 20261102;

/** True when nothing the demo would create exists yet (no interviewers, surveys, history or opt-out lists). */
export async function isEmptyForDemo(db: Queryable): Promise<boolean> {
  const n = await db.value<number>(`SELECT (SELECT COUNT(*) FROM interviewers) + (SELECT COUNT(*) FROM surveys) + (SELECT COUNT(*) FROM calls)
      + (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM optout_lists) + (SELECT COUNT(*) FROM groups WHERE id <> 1)`);
  return n === 0;
}

/**
 * Loads the demo call centre into an empty database (docs/deployment.md#serve `--demo`): call centres (Europe/Amsterdam),
 * groups, interviewers, surveys with variables, assignments, 30 days of sessions with the calls and breaks
 * inside them (≥120k calls with the dialer's own), today's floor busy now, break limits, blacklist and
 * opt-out lists. On a database with data it does nothing and says so on stderr. Returns whether it loaded.
 */
export async function loadDemoIfEmpty(store: Store, config: ServerConfig, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<boolean> {
  if (!(await isEmptyForDemo(store))) {
    log('demo: the database already holds data; demo data not loaded');
    return false;
  }
  const started = performance.now();
  const rng = createRng(SEED);
  const now = Date.now();
  const counts = await store.transaction(async (tx) => {
    const base = await createDemoOrganisation(tx, rng, now);
    for (const c of base.callCenters) await tx.run('UPDATE call_centers SET time_zone = ?, version = version + 1 WHERE id = ?', [DEMO_TIME_ZONE, c]);
    await createDemoVariables(tx, rng, base, 1500);
    const counts = await bulkInsertCalls(tx, () => insertDemoShifts(tx, rng, base, now, () => DEMO_TIME_ZONE, 29, DEMO_CALLS));
    for (const [id, minutes] of Object.entries(DEMO_BREAK_LIMITS)) await tx.run('UPDATE break_types SET max_minutes = ? WHERE id = ?', [minutes, Number(id)]);
    await createDemoLists(tx, rng, base, config.companyId, now);
    return counts;
  });
  log(`demo: loaded ${counts.calls} calls, ${counts.sessions} sessions, ${counts.breaks} breaks in ${Math.round(performance.now() - started)} ms`);
  // The demo is a Dutch call centre: its phone region is NL unless --phone-region chose one (docs/cati-api.md#phone-region).
  if (!config.phoneRegion && (await storedRegion(store)) === undefined) await applyPhoneRegion(store, 'NL');
  return true;
}

/** The demo organisation in the database, creating it first when the database has none. */
async function baseFor(store: Store): Promise<DemoBase> {
  const d = store.dialect;
  const surveys = await store.all<{ id: string; open: number; sampleSize: number }>(
    `SELECT s.id, ${d.int("s.state = 'Open'")} AS open, ${d.greatest('s.sample_size', '1')} AS "sampleSize" FROM surveys s WHERE s.state <> 'SoftDeleted' ORDER BY s.id`,
  );
  const interviewers = await store.all<{ id: number; cc: number }>('SELECT id, call_center_id AS cc FROM interviewers ORDER BY id');
  if (surveys.length === 0 || interviewers.length === 0) {
    return store.transaction((tx) => createDemoOrganisation(tx, createRng(SEED), Date.now()));
  }
  const byCenter = new Map<number, number[]>();
  for (const i of interviewers) byCenter.set(i.cc, [...(byCenter.get(i.cc) ?? []), i.id]);
  return {
    callCenters: [...byCenter.keys()],
    interviewersByCenter: byCenter,
    surveys: surveys.map((s) => ({ id: s.id, open: s.open === 1, sampleSize: s.sampleSize, variables: [] })),
  };
}

/**
 * Generates `count` calls over the last `days` days (default 30; `--days 400` spreads 20,000,000 calls at about
 * 50,000 a day, a 500-seat centre's year) for benchmarks (`npm run seed`): a deterministic PRNG and one transaction
 * that is all or nothing, through the data layer's bulk load (db/load-calls.ts, each engine's fast path).
 * Creates the demo organisation first on an empty database.
 */
export async function seedCalls(store: Store, count: number, log: (line: string) => void, days = 30): Promise<void> {
  const started = performance.now();
  const base = await baseFor(store);
  const rng = createRng(SEED + count);
  const progress = (n: number) => log(`seed: ${n} calls…`);
  await loadCalls(store, CALL_COLUMNS, callRows(rng, base, count, Date.now(), days, progress), count, log);
  const ms = Math.round(performance.now() - started);
  log(`seed: inserted ${count} calls over ${days} days in ${ms} ms (${Math.round(count / Math.max(ms / 1000, 0.001))} calls/s)`);
}

