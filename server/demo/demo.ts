import type { ServerConfig } from '../config.ts';
import type { Db } from '../db/open.ts';
import { createDemoLists, createDemoOrganisation, createDemoVariables, type DemoBase } from './demo-entities.ts';
import { insertCalls, insertSessionsAndBreaks } from './demo-history.ts';
import { createRng } from './prng.ts';

/** Calls in the demo call centre. */
export const DEMO_CALLS = 120_000;
const SEED = 20261102;

/** True when nothing the demo would create exists yet (no interviewers, surveys, history or opt-out lists). */
export function isEmptyForDemo(db: Db): boolean {
  const n = db
    .prepare(`SELECT (SELECT COUNT(*) FROM interviewers) + (SELECT COUNT(*) FROM surveys) + (SELECT COUNT(*) FROM calls)
      + (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM optout_lists) + (SELECT COUNT(*) FROM groups WHERE id <> 1)`)
    .pluck()
    .get() as number;
  return n === 0;
}

/**
 * Loads the demo call centre into an empty database (CONTRACT §1 `--demo`): call centres, groups,
 * interviewers, surveys with variables, assignments, 120k calls over 30 days, sessions, breaks, blacklist and
 * opt-out lists. On a database with data it does nothing and says so on stderr. Returns whether it loaded.
 */
export function loadDemoIfEmpty(db: Db, config: ServerConfig, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): boolean {
  if (!isEmptyForDemo(db)) {
    log('demo: the database already holds data; demo data not loaded');
    return false;
  }
  const started = performance.now();
  const rng = createRng(SEED);
  const now = Date.now();
  const counts = db.transaction(() => {
    const base = createDemoOrganisation(db, rng, now);
    createDemoVariables(db, rng, base, 1500);
    const calls = insertCalls(db, rng, base, DEMO_CALLS, now);
    const history = insertSessionsAndBreaks(db, rng, base, now);
    createDemoLists(db, rng, base, config.companyId, now);
    return { calls, ...history };
  }).immediate();
  log(`demo: loaded ${counts.calls} calls, ${counts.sessions} sessions, ${counts.breaks} breaks in ${Math.round(performance.now() - started)} ms`);
  return true;
}

/** The demo organisation in the database, creating it first when the database has none. */
function baseFor(db: Db): DemoBase {
  const surveys = db
    .prepare(`SELECT s.id, s.state = 'Open' AS open, MAX(s.sample_size, 1) AS sampleSize FROM surveys s WHERE s.state <> 'SoftDeleted' ORDER BY s.id`)
    .all() as { id: string; open: number; sampleSize: number }[];
  const interviewers = db.prepare('SELECT id, call_center_id AS cc FROM interviewers ORDER BY id').all() as { id: number; cc: number }[];
  if (surveys.length === 0 || interviewers.length === 0) {
    return db.transaction(() => createDemoOrganisation(db, createRng(SEED), Date.now())).immediate();
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
 * Generates `count` calls over the last 30 days for benchmarks (`npm run seed`): one transaction, one
 * prepared statement, a deterministic PRNG. Creates the demo organisation first on an empty database.
 */
export function seedCalls(db: Db, count: number, log: (line: string) => void): void {
  const started = performance.now();
  const base = baseFor(db);
  const rng = createRng(SEED + count);
  db.transaction(() => insertCalls(db, rng, base, count, Date.now(), 30, (n) => log(`seed: ${n} calls…`))).immediate();
  const ms = Math.round(performance.now() - started);
  log(`seed: inserted ${count} calls in ${ms} ms (${Math.round(count / Math.max(ms / 1000, 0.001))} calls/s)`);
}
