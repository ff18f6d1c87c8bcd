import { describe, expect, it } from 'vitest';
import { postgresDialect, sqliteDialect, type Dialect } from '../../server/db/dialect.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { openDatabase } from '../../server/db/open.ts';
import { countSliceStatement, planQuery, rowsStatement } from '../../server/odata/apply-query.ts';
import { compileFilter, compileFilterCached } from '../../server/odata/compile-sql.ts';
import { keyRangeScan } from '../../server/odata/key-ranges.ts';
import type { EntityModel } from '../../server/odata/model.ts';
import { parseFilter } from '../../server/odata/parse-filter.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';
import { DIALECT_MODEL, DIALECT_NOW, dialectAnswers, expectedDialectAnswers } from './odata-dialect-cases.ts';

const where = (filter: string, d: Dialect) => compileFilter(parseFilter(filter), DIALECT_MODEL, d, DIALECT_NOW);
const pg = (filter: string) => where(filter, postgresDialect).sql;
const lite = (filter: string) => where(filter, sqliteDialect).sql;
const applySql = (q: Record<string, string>, d: Dialect) => rowsStatement(planQuery(DIALECT_MODEL, d, parseQueryOptions(q), undefined, DIALECT_NOW), undefined, 0);

describe('the equivalence cases on SQLite', () => {
  it('answer what every engine must answer (odata-dialect-expected.json)', async () => {
    const store = new SqliteStore(openDatabase(':memory:', { migrate: false }), ':memory:');
    try {
      expect(await dialectAnswers(store)).toEqual(expectedDialectAnswers());
    } finally {
      await store.close();
    }
  });
});

describe('$filter in the PostgreSQL dialect', () => {
  it('uses 0/1 flags as conditions and compares booleans as 0/1', () => {
    expect(pg('Paid')).toBe('(((paid) = 1) IS TRUE)');
    expect(pg('not Paid')).toBe('(NOT (((paid) = 1) IS TRUE))');
    expect(pg('Paid eq true')).toBe('((paid) IS NOT DISTINCT FROM 1)');
    expect(pg('(Duration gt 5) eq true')).toBe('(CAST(((duration) IS NOT NULL AND ((duration) > ?::bigint)) AS int) = 1)');
    expect(pg('Paid in (true, false)')).toMatch(/\(paid\) IS NOT DISTINCT FROM 1\) OR \(\(paid\) IS NOT DISTINCT FROM 0/);
    expect(pg('null eq null')).toBe('TRUE');
    expect(pg('Duration lt null')).toBe('FALSE');
  });
  it('binds literals with a type and tests nulls with IS [NOT] NULL / IS [NOT] DISTINCT FROM', () => {
    expect(pg('Duration eq null')).toBe('((duration) IS NULL)');
    expect(pg('null ne Name')).toBe('((name) IS NOT NULL)');
    expect(pg('Duration ne 3')).toBe('((duration) IS DISTINCT FROM ?::bigint)');
    expect(pg("Name eq 'x'")).toBe('((name) IS NOT DISTINCT FROM ?::text)');
    expect(pg('Price lt 1.5')).toBe('((price) IS NOT NULL AND ((price) < ?::float8))');
    expect(pg('Time lt now()')).toBe('((time) < ?::bigint)');
    expect(where('Time lt now()', postgresDialect).params).toEqual([DIALECT_NOW]);
  });
  it('case-sensitive string functions: strpos, substr with int arguments, ASCII case folding', () => {
    expect(pg("contains(Name,'nn')")).toBe('((name) IS NOT NULL AND (strpos((name), ?::text) > 0))');
    expect(pg("indexof(Name,'n') eq 1")).toBe('((strpos((name), ?::text) - 1) IS NOT DISTINCT FROM ?::bigint)');
    expect(pg("substring(Name,1,2) eq 'nn'")).toContain('substr((name), CAST(int8smaller(int8larger(?::bigint, 0), 2147483646) AS int) + 1, CAST(int8smaller(int8larger(?::bigint, 0), 2147483647) AS int))');
    expect(pg("tolower(Name) eq 'a'")).toContain('lower((name) COLLATE "C")');
    expect(pg("toupper(Name) eq 'A'")).toContain('upper((name) COLLATE "C")');
    expect(pg("startswith(Name,'An')")).toBe('((name) IS NOT NULL AND (((name) >= ?::text AND (name) < ?::text AND substr((name), 1, length(?::text)) = ?::text)))');
    expect(pg('length(null) eq null')).toBe('(length(CAST(NULL AS text)) IS NULL)');
  });
  it('division and modulo by zero are NULL; decimal ones in float8', () => {
    expect(pg('Duration div 2 eq 1')).toContain('((duration) / NULLIF(?::bigint, 0))');
    expect(pg('Duration mod 2 eq 1')).toContain('((duration) % NULLIF(?::bigint, 0))');
    expect(pg('Duration divby 2 eq 1')).toContain('(CAST((duration) AS float8) / NULLIF(?::bigint, 0))');
    expect(pg('Price mod 2 eq 1')).toContain('((price) - ?::bigint * trunc(CAST((price) AS float8) / NULLIF(?::bigint, 0)))');
    expect(pg('Duration add null eq null')).toBe('(((duration) + CAST(NULL AS bigint)) IS NULL)');
  });
  it('date parts from epoch ms in UTC by exact interval arithmetic', () => {
    const ts = "(TIMESTAMP '1970-01-01' + (time) * INTERVAL '1 millisecond')";
    expect(pg('year(Time) eq 2026')).toBe(`(CAST(floor(extract(year from ${ts})) AS int) IS NOT DISTINCT FROM ?::bigint)`);
    expect(pg('second(Time) eq 1')).toContain(`CAST(floor(extract(second from ${ts})) AS int)`);
    expect(pg('date(Time) eq 2026-01-01')).toContain(`to_char(${ts}, 'YYYY-MM-DD')`);
    expect(pg('time(Time) eq 10:00:00')).toContain(`to_char(${ts}, 'HH24:MI:SS.MS')`);
    expect(pg('hour(12:34:56) eq 12')).toContain('extract(hour from CAST(?::text AS time))');
    expect(pg('year(2020-05-06) eq 2020')).toContain('extract(year from CAST(?::text AS date))');
  });
  it('leaves the SQLite text as it was', () => {
    expect(lite('Paid')).toBe('((paid) IS 1)');
    expect(lite('Duration ne 3')).toBe('((duration) IS NOT ?)');
    expect(lite("contains(Name,'nn')")).toBe('((name) IS NOT NULL AND (instr((name), ?) > 0))');
    expect(lite('Duration div 0 eq 1')).toBe('(((duration) / ?) IS ?)');
    expect(lite('year(Time) eq 2026')).toBe("(CAST(strftime('%Y', (time) / 1000.0, 'unixepoch') AS INTEGER) IS ?)");
    expect(lite("substring(Name,1) eq 'x'")).toBe('(substr((name), max(?, 0) + 1) IS ?)');
  });
  it('caches compiled filters per dialect', () => {
    const ast = parseFilter('Paid');
    expect(compileFilterCached('Paid', ast, DIALECT_MODEL, sqliteDialect).sql).toBe('((paid) IS 1)');
    expect(compileFilterCached('Paid', ast, DIALECT_MODEL, postgresDialect).sql).toBe('(((paid) = 1) IS TRUE)');
    expect(compileFilterCached('Paid', ast, DIALECT_MODEL, sqliteDialect).sql).toBe('((paid) IS 1)');
  });
});

describe('$apply and exports in the PostgreSQL dialect', () => {
  it('orders NULLs as SQLite does and never binds LIMIT -1', () => {
    const grouped = applySql({ $apply: 'groupby((Paid),aggregate($count as N))' }, postgresDialect);
    expect(grouped.sql).toContain('ORDER BY a1."Paid" ASC NULLS FIRST OFFSET ?');
    const skipped = applySql({ $apply: 'orderby(Name desc)/skip(2)' }, postgresDialect);
    expect(skipped.sql).toContain('ORDER BY name DESC NULLS LAST, id ASC NULLS FIRST OFFSET ?) AS a1');
    expect(skipped.params).not.toContain(-1);
    expect(applySql({ $apply: 'orderby(Name desc)/skip(2)' }, sqliteDialect).params).toEqual([-1, 2, -1, 0]);
  });
  it('turns computed conditions into 0/1 values and aggregates them', () => {
    const computed = applySql({ $apply: 'compute(Duration gt 5 as Big,Paid as P)/aggregate(Big with max as M)' }, postgresDialect);
    expect(computed.sql).toContain('CAST(((duration) IS NOT NULL AND ((duration) > ?::bigint)) AS int) AS "Big"');
    expect(computed.sql).toContain('CAST((((paid) = 1) IS TRUE) AS int) AS "P"');
    expect(computed.sql).toContain('max((a1."Big")) AS "M"');
  });
  it('gives every subquery of an export count an alias', () => {
    const plan = planQuery(DIALECT_MODEL, postgresDialect, parseQueryOptions({ $filter: 'Paid' }));
    expect(countSliceStatement(plan, undefined, 10).sql).toMatch(/\) AS s$/);
    const computed = planQuery(DIALECT_MODEL, postgresDialect, parseQueryOptions({ $apply: 'compute(Id add 1 as J)/groupby((Paid))' }));
    expect(countSliceStatement(computed, 5, 10).sql).toMatch(/^SELECT count\(\*\) AS n, \?::bigint \+ count\(\*\) AS last FROM \(.*\) AS s$/);
  });
  it('scans key ranges from the plain FROM with COALESCE and 32-bit buckets', () => {
    const model: EntityModel = { ...DIALECT_MODEL, keyRangesByTime: { property: 'Time', table: 'ranges', bucketMs: 3_600_000, unindexedFrom: 'calls NOT INDEXED' } };
    const ast = parseFilter('Time ge 2026-01-01T00:00:00Z');
    const onPg = keyRangeScan(model, ast, postgresDialect)!;
    expect(onPg.from).toBe(DIALECT_MODEL.from);
    expect(onPg.where.sql).toContain('COALESCE(min(min_id), 1)');
    expect(onPg.where.params).toEqual([490_896, 2_147_483_647, 490_896, 2_147_483_647]);
    expect(keyRangeScan(model, ast, sqliteDialect)!.from).toBe('calls NOT INDEXED');
  });
  it('keeps one plan for a key range only when the filter bounds the time and nothing else', () => {
    const model: EntityModel = { ...DIALECT_MODEL, keyRangesByTime: { property: 'Time', table: 'ranges', bucketMs: 3_600_000, unindexedFrom: 'calls NOT INDEXED' } };
    const fixed = (filter: string) => keyRangeScan(model, parseFilter(filter), postgresDialect)?.fixedPlan;
    expect(fixed('Time ge 2026-01-01T00:00:00Z and Time lt 2026-01-02T00:00:00Z')).toBe(true);
    expect(fixed('2026-01-01T00:00:00Z le Time and Time eq 2026-01-01T10:00:00Z')).toBe(true);
    expect(fixed('Time ge 2026-01-01T00:00:00Z and Id eq 5')).toBe(false);
    expect(fixed('Time ge 2026-01-01T00:00:00Z and Time ne 2026-01-01T10:00:00Z')).toBe(false);
    expect(fixed('Time ge 2026-01-01T00:00:00Z and Paid')).toBe(false);
    expect(fixed('Time ge 2026-01-01T00:00:00Z and not (Id eq 5)')).toBe(false);
    expect(fixed('Id eq 5')).toBeUndefined(); // no key range at all
  });
  it('compiles a fixed-plan page’s time out of any index’s reach on PostgreSQL (SQLite: NOT INDEXED does it)', () => {
    const model: EntityModel = { ...DIALECT_MODEL, keyRangesByTime: { property: 'Time', table: 'ranges', bucketMs: 3_600_000, unindexedFrom: 'calls NOT INDEXED' } };
    const ast = parseFilter('Time ge 2026-01-01T00:00:00Z and Time lt 2026-01-02T00:00:00Z');
    const onPg = keyRangeScan(model, ast, postgresDialect)!;
    expect(compileFilter(ast, onPg.filterModel, postgresDialect, DIALECT_NOW).sql).toBe('(((time + 0) >= ?::bigint) AND ((time + 0) < ?::bigint))');
    expect(keyRangeScan(model, ast, postgresDialect)!.filterModel).toBe(onPg.filterModel); // one object: the filter cache keeps it
    expect(keyRangeScan(model, ast, sqliteDialect)!.filterModel).toBe(model);
    expect(keyRangeScan(model, parseFilter('Time ge 2026-01-01T00:00:00Z and Id eq 5'), postgresDialect)!.filterModel).toBe(model);
  });
});
