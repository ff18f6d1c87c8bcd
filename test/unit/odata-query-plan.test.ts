/**
 * The cheap request path (docs/cati-api.md#performance) at the SQL level, over the real migrated schema: the default
 * key order of /callhistory under a time filter is served by the primary key (no `USE TEMP B-TREE FOR ORDER BY`),
 * keeps key order and pages stably with $skiptoken even when ids are not in time order; `$select` narrows the SELECT
 * list; a cached filter with `now()` is never served stale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHistoryModel } from '../../server/cati/cati-models.ts';
import { openDatabase, type Db } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { queryCollection, skipInSteps } from '../../server/odata/collection-query.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');
let db: Db;
let store: SqliteStore;
const statements: { text: string; params: unknown[] }[] = [];

beforeAll(() => {
  db = openDatabase(':memory:');
  store = new SqliteStore(db, ':memory:');
  db.exec(`INSERT INTO surveys (id, name) VALUES ('p1', 'One')`);
  const ins = db.prepare(`INSERT INTO calls (time, survey_id, telephone_number, duration, call_center_id) VALUES (?, 'p1', '3120', 5, 1)`);
  // 3 days of calls every 10 minutes, then late arrivals (higher ids) for the first day.
  for (let t = T0; t < T0 + 72 * HOUR; t += HOUR / 6) ins.run(t);
  for (let t = T0 + 5 * 60_000; t < T0 + 24 * HOUR; t += 2 * HOUR) ins.run(t);
  db.exec(`UPDATE calls SET time = time + ${48 * HOUR} WHERE id = 3`); // a time moved later
  const prepare = db.prepare.bind(db);
  db.prepare = ((text: string) => {
    const stmt = prepare(text);
    const all = stmt.all.bind(stmt);
    stmt.all = ((...params: unknown[]) => (statements.push({ text, params }), all(...params))) as typeof stmt.all;
    return stmt;
  }) as typeof db.prepare;
});
afterAll(() => db.close());

const run = (q: Record<string, string>, now?: number, pageSize?: number) => queryCollection(store, callHistoryModel, parseQueryOptions(q), { now, pageSize });
const iso = (ms: number) => new Date(ms).toISOString();
const lastPlan = () => {
  const s = statements.findLast((x) => x.text.startsWith('SELECT'))!;
  return (db.prepare(`EXPLAIN QUERY PLAN ${s.text}`).all(...s.params) as { detail: string }[]).map((r) => r.detail).join('; ');
};
const truth = (lo: number, hi: number) =>
  db.prepare('SELECT id FROM calls WHERE time >= ? AND time < ? ORDER BY id').pluck().all(lo, hi) as number[];

describe('key order under a time filter', () => {
  it('is read from the primary key, without a temporary B-tree, and matches a plain sort', async () => {
    for (const [lo, hi] of [[T0, T0 + 24 * HOUR], [T0 + 30 * HOUR, T0 + 50 * HOUR + 1], [T0 + 48 * HOUR, T0 + 49 * HOUR]]) {
      const page = (await run({ $filter: `Time ge ${iso(lo!)} and Time lt ${iso(hi!)}`, $top: '10000' }));
      const plan = lastPlan();
      expect(plan).not.toMatch(/TEMP B-TREE/);
      expect(plan).toMatch(/INTEGER PRIMARY KEY/);
      expect(page.rows.map((r) => r.Id)).toEqual(truth(lo!, hi!));
    }
  });

  it('pages stably in key order with $skiptoken, late arrivals and moved times included', async () => {
    const [lo, hi] = [T0, T0 + 50 * HOUR];
    const seen: unknown[] = [];
    let token: string | undefined;
    for (let i = 0; i < 100; i++) {
      const page = (await run({ $filter: `Time ge ${iso(lo)} and ${iso(hi)} gt Time`, ...(token ? { $skiptoken: token } : {}) }, undefined, 25));
      expect(lastPlan()).not.toMatch(/TEMP B-TREE/);
      seen.push(...page.rows.map((r) => r.Id));
      token = page.nextSkiptoken;
      if (!token) break;
    }
    expect(seen).toEqual(truth(lo, hi));
  });

  it('bounds fractional and pre-1970 times too (the hour is a floor)', async () => {
    const ins = db.prepare(`INSERT INTO calls (time, survey_id, telephone_number, duration, call_center_id) VALUES (?, 'p1', '3120', 5, 1)`);
    for (const t of [-1.5, -3_600_000, -3_600_001, 1000.25, 7_199_999.5]) ins.run(t);
    for (const [lo, hi] of [[-7_200_000, 0], [-2, 0], [0, 7_200_000], [-3_600_000, -3_599_999]]) {
      const page = (await run({ $filter: `Time ge ${iso(lo!)} and Time lt ${iso(hi!)}`, $top: '100' }));
      expect(page.rows.map((r) => r.Id)).toEqual(truth(lo!, hi!));
    }
    db.prepare('DELETE FROM calls WHERE time < ?').run(T0);
  });

  it('a time filter under `or` keeps the general plan and the same answer', async () => {
    const page = (await run({ $filter: `Time lt ${iso(T0 + HOUR)} or Duration eq 7`, $top: '10000' }));
    expect(page.rows.map((r) => r.Id)).toEqual(truth(-Infinity, T0 + HOUR));
  });
});

describe('$select and cached filters', () => {
  it('$select narrows the SELECT list to the selected, key and order columns', async () => {
    (await run({ $select: 'Duration', $orderby: 'Time desc', $top: '1' }));
    const select = statements.at(-1)!.text;
    expect(select).toMatch(/duration AS "Duration"/);
    expect(select).toMatch(/time AS "Time"/);
    expect(select).toMatch(/id AS "Id"/);
    expect(select).not.toMatch(/telephone_number/);
  });

  it('a filter with now() is compiled against each request’s clock, never served from the cache', async () => {
    const q = { $filter: 'Time lt now()', $count: 'true', $top: '0' };
    expect((await run(q, T0)).count).toBe(0);
    expect((await run(q, T0 + HOUR + 1)).count).toBe(7);
    expect((await run(q, T0)).count).toBe(0);
  });
});

describe('a deep $skip in steps', () => {
  it('answers what one OFFSET answers, with and without a filter and order', async () => {
    const big = openDatabase(':memory:');
    big.exec(`INSERT INTO surveys (id, name) VALUES ('p1', 'One')`);
    const ins = big.prepare(`INSERT INTO calls (time, survey_id, telephone_number, duration, call_center_id) VALUES (?, 'p1', '3120', ?, 1)`);
    big.transaction(() => {
      for (let i = 0; i < 50_000; i++) ins.run(T0 + ((i * 7919) % 50_000) * 1000, i % 13);
    })();
    for (const q of [{ $skip: '45000', $top: '7' }, { $skip: '41000', $orderby: 'Duration desc,Time', $top: '5' }, { $skip: '30001', $filter: 'Duration gt 3' }, { $skip: '60000' }]) {
      const bigStore = new SqliteStore(big, ':memory:');
      const once = await queryCollection(bigStore, callHistoryModel, parseQueryOptions(q));
      const options = parseQueryOptions(q);
      await skipInSteps(bigStore, callHistoryModel, options);
      expect(options.skip).toBeLessThanOrEqual(20_000);
      const stepped = await queryCollection(bigStore, callHistoryModel, options);
      expect(stepped.rows).toEqual(once.rows);
      expect(stepped.nextSkiptoken).toEqual(once.nextSkiptoken);
    }
    big.close();
  });
});
