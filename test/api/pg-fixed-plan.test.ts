/**
 * Fixed-plan reads on PostgreSQL (Queryable.rows' `fixedPlan` hint, pg-store.ts): a time-bounded page read in
 * key order runs on connections whose prepared statements keep one generic plan, instead of PostgreSQL planning
 * it afresh on every run; that plan reads the primary key's range and answers what a custom plan answers. Runs in
 * the `postgres` project, on 200,000 seeded calls (so the planner has a table worth an index).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../server/db/pg-store.ts';
import { callHistoryModel } from '../../server/cati/cati-models.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { queryCollection } from '../../server/odata/collection-query.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';
import { testEngine } from '../helpers/engine.ts';
import { migratedPgDatabase } from '../helpers/postgres.ts';

const DAY = 86_400_000;
const FIXED = { fixedPlan: true };
const iso = (ms: number) => new Date(ms).toISOString();

describe.skipIf(testEngine() !== 'postgres')('fixed-plan reads on PostgreSQL', () => {
  let store: PgStore;
  let day: number;
  beforeAll(async () => {
    store = await PgStore.open(await migratedPgDatabase());
    await seedCalls(store, 200_000, () => undefined);
    day = Math.floor((await store.value<number>('SELECT max(time) FROM calls'))! / DAY) * DAY - 10 * DAY;
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const page = (filter: string) => queryCollection(store, callHistoryModel, parseQueryOptions({ $filter: filter, $top: '100' }));
  /** The prepared statements reading call_id_ranges on the connection a fixed-plan read gets (the last one used). */
  const prepared = () =>
    store.rows('SELECT statement, parameter_types::text[], generic_plans, custom_plans FROM pg_prepared_statements WHERE strpos(statement, ?) > 0', ['call_id_ranges'], FIXED);

  it('run on connections set to keep a generic plan; other reads keep PostgreSQL’s choice', async () => {
    expect(await store.rows('SELECT current_setting(?)', ['plan_cache_mode'], FIXED)).toEqual([['force_generic_plan']]);
    expect(await store.rows('SELECT current_setting(?)', ['plan_cache_mode'])).toEqual([['auto']]);
    expect(await store.value('SELECT current_setting(?)', ['plan_cache_mode'])).toBe('auto');
    // Inside a transaction a fixed-plan read stays on the transaction's connection.
    await store.transaction(async (tx) => expect(await tx.rows('SELECT current_setting(?)', ['plan_cache_mode'], FIXED)).toEqual([['auto']]));
  });

  it('the one-day page is planned once, reads the primary key’s range, and answers what a custom plan answers', async () => {
    const filter = `Time ge ${iso(day)} and Time lt ${iso(day + DAY)}`;
    const first = await page(filter);
    const ids = first.rows.map((r) => r.Id as number);
    expect(ids).toHaveLength(100);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const r of first.rows) expect(r.Time as number).toBeGreaterThanOrEqual(day); // epoch ms, as read
    for (let i = 0; i < 7; i++) expect((await page(filter)).rows).toEqual(first.rows);
    // The same rows as the statement with PostgreSQL's own (custom) plan, on the main pool.
    const custom = await store.rows(`SELECT id FROM calls WHERE time >= ? AND time < ? ORDER BY id LIMIT 100`, [day, day + DAY]);
    expect(custom.map((r) => r[0])).toEqual(ids);

    const [statement, types, generic, customPlans] = (await prepared()).find((r) => String(r[0]).includes('LIMIT'))!;
    expect(generic).toBe(8);
    expect(customPlans).toBe(0);
    // The generic plan itself: the primary key's range, no sort of the day's rows. PostgreSQL cannot estimate the
    // time range without its values, so the plan must not depend on that estimate: with the page size written in
    // (which makes a sort of the time index's rows look cheap), it still reads the primary key.
    const hour = (ms: number) => Math.floor(ms / 3_600_000);
    const values = [day, day + DAY, hour(day), hour(day + DAY), hour(day), hour(day + DAY), 100, 0];
    const genericPlan = (text: string, n: number, setting?: string) =>
      store.transaction(async (tx) => {
        await tx.exec('SET LOCAL plan_cache_mode = force_generic_plan');
        if (setting) await tx.exec(setting);
        await tx.exec(`PREPARE one_day_page (${(types as string[]).slice(0, n).join(', ')}) AS ${text}`);
        try {
          return (await tx.column<string>(`EXPLAIN (COSTS OFF) EXECUTE one_day_page (${values.slice(0, n).join(', ')})`)).join('\n');
        } finally {
          await tx.exec('DEALLOCATE one_day_page');
        }
      });
    const text = statement as string;
    expect(text).toMatch(/LIMIT \$7 OFFSET \$8$/);
    for (const plan of [await genericPlan(text, 8), await genericPlan(text.replace(/LIMIT \$7 OFFSET \$8$/, 'LIMIT 100'), 6)]) {
      expect(plan).toContain('Index Scan using calls_pkey on calls');
      expect(plan).not.toContain('Sort');
    }
    // Which holds because the time index is out of the statement's reach: even with ordered index scans
    // forbidden, the time index is not used (it would read and sort the whole day).
    expect(await genericPlan(text, 8, 'SET LOCAL enable_indexscan = off')).not.toContain('calls_time');
  });

  it('a server that refuses the setting leaves those reads to the other connections, once', async () => {
    const warned: string[] = [];
    const warn = console.warn;
    console.warn = (line: string) => void warned.push(line);
    const refusing = await PgStore.open(await migratedPgDatabase(), { fixedPlanOptions: '-c no_such_setting=1' });
    try {
      for (let i = 0; i < 3; i++) expect(await refusing.rows('SELECT current_setting(?)', ['plan_cache_mode'], FIXED)).toEqual([['auto']]);
      expect(warned.filter((w) => w.includes('refused connections that keep one plan'))).toHaveLength(1);
    } finally {
      console.warn = warn;
      await refusing.close();
    }
  });

  it('a page with another condition than the time keeps PostgreSQL’s choice of plan', async () => {
    const interviewer = await store.value<number>('SELECT interviewer_id FROM calls WHERE interviewer_id IS NOT NULL LIMIT 1');
    const before = (await prepared()).length;
    const answer = await page(`Time ge ${iso(day)} and Time lt ${iso(day + DAY)} and InterviewerId eq ${interviewer}`);
    expect(answer.rows.length).toBeGreaterThan(0);
    for (const r of answer.rows) expect(r.InterviewerId).toBe(interviewer);
    expect((await prepared()).length).toBe(before); // not prepared on a fixed-plan connection
  });
});
