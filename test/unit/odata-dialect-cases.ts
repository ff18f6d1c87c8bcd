/**
 * Equivalence cases of the OData SQL compiler: the same `$filter`, `$orderby` and `$apply` must give the same
 * answers on SQLite and PostgreSQL (docs/deployment.md#postgresql). The cases are data; `dialectAnswers(q)` creates a small
 * table on any Queryable (a SqliteStore, a PgStore), runs every case through the real compiler in that
 * store's dialect and returns the answers, which must equal `EXPECTED` (test/unit/odata-dialect.test.ts runs
 * it on SQLite; the PostgreSQL harness runs it on PostgreSQL).
 *
 * The rows cover the edges where the engines differ: NULLs, negative numbers (integer division, modulo),
 * zero divisors, non-ASCII and empty strings (case folding, byte order), times before 1970 and at .999 ms.
 */
import { readFileSync } from 'node:fs';
import type { Queryable } from '../../server/db/store.ts';
import { planQuery, rowsStatement } from '../../server/odata/apply-query.ts';
import { compileFilter } from '../../server/odata/compile-sql.ts';
import type { EntityModel } from '../../server/odata/model.ts';
import { parseFilter } from '../../server/odata/parse-filter.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';

/** The table every case reads (created afresh by `dialectAnswers`). */
export const DIALECT_TABLE = 'odata_dialect_calls';

/** The entity model over the table. */
export const DIALECT_MODEL: EntityModel = {
  typeName: 'Call',
  setName: 'calls',
  key: ['Id'],
  from: DIALECT_TABLE,
  properties: [
    { name: 'Id', column: 'id', type: 'Edm.Int32' },
    { name: 'Name', column: 'name', type: 'Edm.String', nullable: true },
    { name: 'Duration', column: 'duration', type: 'Edm.Int32', nullable: true },
    { name: 'Price', column: 'price', type: 'Edm.Decimal', nullable: true },
    { name: 'Time', column: 'time', type: 'Edm.DateTimeOffset' },
    { name: 'Paid', column: 'paid', type: 'Edm.Boolean', nullable: true },
    { name: 'Kind', column: 'kind', type: 'Edm.String', enumName: 'Kind', enumValues: ['Equal', 'StartWith'] },
  ],
};

const ms = (iso: string) => Date.parse(iso);

/** id, name, duration, price, time (epoch ms), paid (0/1), kind. */
export const DIALECT_ROWS: [number, string | null, number | null, number | null, number, number | null, string][] = [
  [1, "O'Neil", 3, 1.5, ms('2026-11-02T09:15:00.000Z'), 1, 'Equal'],
  [2, 'anna', null, null, ms('2026-11-02T22:30:00.250Z'), 0, 'StartWith'],
  [3, 'Anna', 10, 7.25, ms('2026-01-31T23:59:59.999Z'), null, 'Equal'],
  [4, null, 7, 2, ms('2025-12-31T12:00:00.000Z'), 1, 'StartWith'],
  [5, 'Émile', -7, -2.5, ms('1969-12-31T23:59:58.500Z'), 0, 'Equal'],
  [6, '', 0, 0, ms('2000-02-29T00:00:00.001Z'), 1, 'StartWith'],
  [7, ' zoë b ', -10, null, ms('2026-11-02T09:15:00.000Z'), null, 'Equal'],
];

/** `now()` of every case. */
export const DIALECT_NOW = ms('2026-06-01T00:00:00Z');

/** `$filter`s, each answered by the ids it selects in id order. */
export const FILTER_CASES: string[] = [
  // null semantics and booleans
  'Duration gt 5', 'not (Duration gt 5)', 'Duration lt null', 'not (Duration lt null)', 'Duration ne 3', 'Duration eq null',
  'null eq Name', 'null eq null', 'null ne null', 'Paid', 'not Paid', 'Paid eq false', 'Paid eq true', 'Paid ne true',
  'Paid eq null', 'true eq Paid', 'Paid eq (Duration gt 5)', '(Duration gt 5) eq true', 'Paid in (true)', 'Paid in (false, null)',
  'Duration in (3, 7)', 'Duration in (3, null)', 'not (Duration in (3, 7))', 'Paid or Duration lt 0', 'not (Paid and Duration gt 5)',
  // strings
  "contains(Name,'nn')", "not contains(Name,'nn')", "contains(Name,'ë')", "contains(Name,'')", "contains(Name,null)",
  "startswith(Name,'A')", "not startswith(Name,'A')", "startswith(Name,'a')", "startswith(Name,'')", "startswith(Name,'É')", "endswith(Name,'na')",
  "endswith(Name,'NA')", "endswith(Name,'')", "endswith(Name,'xO''Neil')", "Name eq 'O''Neil'", "tolower(Name) eq 'anna'",
  "toupper(Name) eq 'ANNA'", "tolower(Name) eq 'Émile'", "toupper(Name) eq 'ÉMILE'", "toupper(Name) eq ' ZOË B '",
  'length(Name) eq 5', 'length(Name) eq 0', 'length(null) eq null', "indexof(Name,'n') eq 1", "indexof(Name,'ë') eq 3",
  "indexof(Name,'x') eq -1", "substring(Name,1,2) eq 'nn'", "substring(Name,2) eq 'Neil'", 'substring(Name,-1) eq Name',
  "substring(Name,1,-2) eq ''", "substring(Name,10) eq ''", "substring(Name,2147483648) eq ''", "substring(Name,1,2147483648) eq 'mile'", 'substring(Name,null) eq null', 'substring(Name,1,Duration) eq null',
  "trim(Name) eq 'zoë b'", "trim(concat(' ', Name)) eq 'Anna'", "concat(Name,'x') eq 'annax'", "concat(null,'x') eq null",
  "Name gt 'Z'", "Name lt 'a'", "Name ge 'Émile'", "Name le ''", "Kind eq 'StartWith'", "Kind in ('Equal')",
  // arithmetic
  'Duration div 2 eq -3', 'Duration div 2 eq 1', 'Duration mod 3 eq -1', 'Duration mod 3 eq 1', 'Duration div 0 eq 1',
  'Duration div 0 eq null', 'Duration mod 0 eq null', 'Price div 0 eq null', 'Price mod 0 eq null', 'Price mod 2 eq -0.5',
  'Price mod 2 eq 1.25', 'Duration divby 4 eq -1.75', 'Duration div 2.0 eq -3.5', 'Price mul 2 eq 3', 'Duration add Price gt 5',
  'Duration sub 1 eq -8', '-Duration gt 5', 'Duration add null eq null', '1 div 2 eq 0', '7 mod -3 eq 1', '-7 mod 3 eq -1',
  '-7 div 2 eq -3', '5.5 mod 2 eq 1.5', 'Id mul 1000000000000 gt 5000000000000', 'Price div Duration lt 0', '1 add 1 eq 2',
  // dates and times (UTC)
  'year(Time) eq 2026 and month(Time) eq 11', 'day(Time) eq 31', 'hour(Time) eq 22 and minute(Time) eq 30 and second(Time) eq 0',
  'year(Time) eq 1969', 'second(Time) eq 59', 'second(Time) eq 58', 'minute(Time) eq 59', 'hour(Time) eq 23',
  'date(Time) eq 2026-11-02', 'date(Time) eq 1969-12-31', 'date(Time) eq 2000-02-29', 'time(Time) lt 10:00:00',
  'time(Time) eq 23:59:59.999', 'time(Time) eq 23:59:58.5', 'time(Time) eq 00:00:00.001', 'Time ge 2026-11-02',
  'Time lt 1970-01-01T00:00:00Z', 'Time eq 2000-02-29T00:00:00.001Z', 'Time eq 2026-11-02T11:15:00+02:00',
  'Time gt 2026-11-02T22:30:00.2Z', 'Time lt now()', 'year(now()) eq 2026', 'hour(12:34:56) eq 12', 'second(12:34:56.789) eq 56',
  'year(2020-05-06) eq 2020', 'month(date(Time)) eq 2', 'hour(time(Time)) eq 23', 'day(date(Time)) eq day(Time)',
];

/** `$apply` (with `$orderby`/`$filter` after it), each answered by its rows. */
export const APPLY_CASES: { apply?: string; orderby?: string; filter?: string }[] = [
  { apply: 'aggregate($count as N)' },
  { apply: 'aggregate(Duration with sum as S,Duration with average as A,Duration with min as Mi,Duration with max as Ma,Duration with countdistinct as D)' },
  { apply: 'aggregate(Price with sum as S,Price with average as A,Name with min as Mi,Name with max as Ma,Time with max as T)' },
  { apply: 'filter(Id gt 100)/aggregate(Duration with sum as S,Duration with average as A,$count as N,Duration with countdistinct as D)' },
  { apply: 'groupby((Kind),aggregate($count as N,Price with average as A,Duration with sum as S))' },
  { apply: 'groupby((Paid),aggregate($count as N))' },
  { apply: 'groupby((Paid),aggregate($count as N))', orderby: 'Paid desc' },
  { apply: 'aggregate(Paid with max as M,Paid with min as Mi)' },
  { apply: 'compute(year(Time) as Y,Duration gt 5 as Big,Paid as P)/groupby((Y,Big),aggregate($count as N))' },
  { apply: 'compute(tolower(Name) as L,length(Name) as Len,Duration div 2 as H,Duration mod 3 as M,Price mul 2 as P2,Duration divby 4 as Q)' },
  { apply: 'compute(time(Time) as T,date(Time) as D,second(Time) as S,hour(Time) as H,Paid eq true as X,Paid as P)' },
  { apply: 'compute(Paid eq true as X)/filter(X)/aggregate($count as N)' },
  { apply: 'filter(Paid)/aggregate($count as N)' },
  { apply: 'groupby((Kind))', orderby: 'Kind desc' },
  { apply: 'orderby(Duration desc)/top(3)' },
  { apply: 'orderby(Name)/skip(2)' },
  { apply: 'compute(Duration mod 0 as Z,Price div 0 as W)/groupby((Z,W),aggregate($count as N))' },
  { orderby: 'Name' },
  { orderby: 'Name desc' },
  { orderby: 'Paid,Price desc' },
  { orderby: 'Duration desc' },
  { filter: "startswith(Name,'A') or Paid", orderby: 'Time desc' },
];

/** The key of a case in the answers. */
export const applyKey = (c: (typeof APPLY_CASES)[number]) => JSON.stringify(c);

/** Creates and fills the table (dropping an old one), portable SQL only. */
export async function createDialectTable(q: Queryable): Promise<void> {
  await q.exec(`DROP TABLE IF EXISTS ${DIALECT_TABLE}`);
  await q.exec(
    `CREATE TABLE ${DIALECT_TABLE} (id INTEGER PRIMARY KEY, name TEXT, duration INTEGER, price DOUBLE PRECISION, ` +
      'time BIGINT NOT NULL, paid INTEGER, kind TEXT NOT NULL)',
  );
  for (const r of DIALECT_ROWS) await q.run(`INSERT INTO ${DIALECT_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)`, r);
}

/** Every case's answer on `q` (a case the compiler or the database refuses answers its error message). */
export async function dialectAnswers(q: Queryable): Promise<Record<string, unknown>> {
  await createDialectTable(q);
  const out: Record<string, unknown> = {};
  for (const filter of FILTER_CASES) {
    try {
      const f = compileFilter(parseFilter(filter), DIALECT_MODEL, q.dialect, DIALECT_NOW);
      out[filter] = await q.column(`SELECT id FROM ${DIALECT_TABLE} WHERE ${f.sql} ORDER BY id`, f.params);
    } catch (err) {
      out[filter] = `error: ${(err as Error).message}`;
    }
  }
  for (const c of APPLY_CASES) {
    try {
      const options = parseQueryOptions({ ...(c.apply ? { $apply: c.apply } : {}), ...(c.orderby ? { $orderby: c.orderby } : {}), ...(c.filter ? { $filter: c.filter } : {}) });
      const statement = rowsStatement(planQuery(DIALECT_MODEL, q.dialect, options, undefined, DIALECT_NOW), undefined, 0);
      out[applyKey(c)] = await q.all(statement.sql, statement.params);
    } catch (err) {
      out[applyKey(c)] = `error: ${(err as Error).message}`;
    }
  }
  return out;
}

/** The answers every engine must give (pinned from SQLite, the reference; reviewed by hand). */
export function expectedDialectAnswers(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL('./odata-dialect-expected.json', import.meta.url), 'utf8')) as Record<string, unknown>;
}
