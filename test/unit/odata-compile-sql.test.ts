import { newSqliteDatabase } from '../../server/db/native-binding.ts';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFilter } from '../../server/odata/compile-sql.ts';
import { queryCollection } from '../../server/odata/collection-query.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { sqliteDialect } from '../../server/db/dialect.ts';
import type { EntityModel } from '../../server/odata/model.ts';
import { parseFilter } from '../../server/odata/parse-filter.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';
import { DIALECT_MODEL } from './odata-dialect-cases.ts';

const model: EntityModel = { ...DIALECT_MODEL, from: 'calls' };

const ms = (iso: string) => Date.parse(iso);
const ROWS: [number, string | null, number | null, number | null, number, number | null, string][] = [
  [1, "O'Neil", 3, 1.5, ms('2026-11-02T09:15:00.000Z'), 1, 'Equal'],
  [2, 'anna', null, null, ms('2026-11-02T22:30:00.250Z'), 0, 'StartWith'],
  [3, 'Anna', 10, 7.25, ms('2026-01-31T23:59:59.999Z'), null, 'Equal'],
  [4, null, 7, 2, ms('2025-12-31T12:00:00.000Z'), 1, 'StartWith'],
];

let db: Database.Database;
let store: SqliteStore;
beforeAll(() => {
  db = newSqliteDatabase(':memory:');
  store = new SqliteStore(db, ':memory:');
  db.exec('CREATE TABLE calls (id INTEGER PRIMARY KEY, name TEXT, duration INTEGER, price REAL, time INTEGER NOT NULL, paid INTEGER, kind TEXT NOT NULL)');
  const ins = db.prepare('INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const r of ROWS) ins.run(...r);
});
afterAll(() => db.close());

/** Ids of the rows a $filter selects, through the real compiler over the real table. */
function ids(filter: string, now?: number): number[] {
  const f = compileFilter(parseFilter(filter), model, sqliteDialect, now);
  return db.prepare(`SELECT id FROM calls WHERE ${f.sql} ORDER BY id`).pluck().all(...f.params) as number[];
}

function error(filter: string): string {
  try {
    compileFilter(parseFilter(filter), model, sqliteDialect);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`expected ${filter} to be rejected`);
}

describe('$filter null semantics (OData 4.01 §5.1.1.1, two-valued)', () => {
  it('a comparison with a null operand is false, and true under not', async () => {
    expect(ids('Duration gt 5')).toEqual([3, 4]);
    expect(ids('not (Duration gt 5)')).toEqual([1, 2]);
    expect(ids('not Duration gt 5')).toEqual([1, 2]);
    expect(ids('Duration lt null')).toEqual([]);
    expect(ids('not (Duration lt null)')).toEqual([1, 2, 3, 4]);
  });
  it('ne is true where the value is null; eq null / ne null test for null', async () => {
    expect(ids('Duration ne 3')).toEqual([2, 3, 4]);
    expect(ids('Duration eq null')).toEqual([2]);
    expect(ids('Duration ne null')).toEqual([1, 3, 4]);
    expect(ids('null eq Name')).toEqual([4]);
  });
  it('functions of null values are false, even under not', async () => {
    expect(ids("contains(Name,'nn')")).toEqual([2, 3]);
    expect(ids("not contains(Name,'nn')")).toEqual([1, 4]);
    expect(ids('not (Duration add 1 gt 5)')).toEqual([1, 2]);
  });
  it('a nullable boolean property is a condition that is false when null', async () => {
    expect(ids('Paid')).toEqual([1, 4]);
    expect(ids('not Paid')).toEqual([2, 3]);
    expect(ids('Paid eq false')).toEqual([2]);
    expect(ids('Paid eq null')).toEqual([3]);
  });
  it('in treats null like eq', async () => {
    expect(ids('Duration in (3, 7)')).toEqual([1, 4]);
    expect(ids('Duration in (3, null)')).toEqual([1, 2]);
    expect(ids('not (Duration in (3, 7))')).toEqual([2, 3]);
  });
});

describe('$filter string functions are case-sensitive', () => {
  it('contains / startswith / endswith distinguish case', async () => {
    expect(ids("startswith(Name,'A')")).toEqual([3]);
    expect(ids("startswith(Name,'a')")).toEqual([2]);
    expect(ids("endswith(Name,'na')")).toEqual([2, 3]);
    expect(ids("endswith(Name,'NA')")).toEqual([]);
    expect(ids("contains(Name,'%')")).toEqual([]);
    expect(ids("Name eq 'anna'")).toEqual([2]);
  });
  it('tolower / toupper / length / indexof / substring / trim / concat', async () => {
    expect(ids("tolower(Name) eq 'anna'")).toEqual([2, 3]);
    expect(ids("toupper(Name) eq 'ANNA'")).toEqual([2, 3]);
    expect(ids('length(Name) eq 6')).toEqual([1]);
    expect(ids("indexof(Name,'n') eq 1")).toEqual([2, 3]);
    expect(ids("substring(Name,1,2) eq 'nn'")).toEqual([2, 3]);
    expect(ids("substring(Name,2) eq 'Neil'")).toEqual([1]);
    expect(ids("trim(concat(' ', Name)) eq 'Anna'")).toEqual([3]);
  });
  it("a doubled quote is one quote: 'O''Neil'", async () => {
    expect(ids("Name eq 'O''Neil'")).toEqual([1]);
  });
});

describe('$filter arithmetic', () => {
  it('integer division truncates; a decimal operand makes it decimal', async () => {
    expect(ids('Duration div 2 eq 1')).toEqual([1]);
    expect(ids('Duration div 2.0 eq 1.5')).toEqual([1]);
    expect(ids('Duration divby 2 eq 1.5')).toEqual([1]);
    expect(ids('Price mul 2 eq 3')).toEqual([1]);
  });
  it('mod, add, sub, negation; division by zero is false, not an error', async () => {
    expect(ids('Duration mod 3 eq 1')).toEqual([3, 4]);
    expect(ids('Duration add 1 eq 4 or Duration sub 1 eq 9')).toEqual([1, 3]);
    expect(ids('-Duration lt -5')).toEqual([3, 4]);
    expect(ids('Duration div 0 eq 1')).toEqual([]);
    expect(ids('Price mod 2 eq 1.25')).toEqual([3]);
  });
});

describe('$filter dates and times', () => {
  it('date-time literals with offsets compare as instants', async () => {
    expect(ids('Time eq 2026-11-02T11:15:00+02:00')).toEqual([1]);
    expect(ids('Time lt 2026-11-02T09:15:00Z')).toEqual([3, 4]);
    expect(ids('Time ge 2026-11-02T10:15:00+01:00')).toEqual([1, 2]);
    expect(ids('Time gt 2026-11-02T22:30:00.2Z')).toEqual([2]);
  });
  it('year / month / day / hour / minute / second / date / time are UTC', async () => {
    expect(ids('year(Time) eq 2026 and month(Time) eq 11')).toEqual([1, 2]);
    expect(ids('day(Time) eq 31')).toEqual([3, 4]);
    expect(ids('hour(Time) eq 22 and minute(Time) eq 30 and second(Time) eq 0')).toEqual([2]);
    expect(ids('date(Time) eq 2026-11-02')).toEqual([1, 2]);
    expect(ids('time(Time) lt 10:00:00')).toEqual([1]);
    expect(ids('Time ge 2026-11-02')).toEqual([1, 2]);
  });
  it('now() is a bound parameter', async () => {
    expect(ids('Time lt now()', ms('2026-06-01T00:00:00Z'))).toEqual([3, 4]);
  });
});

describe('$filter enums', () => {
  it('accepts member names as strings and the qualified form', async () => {
    expect(ids("Kind eq 'StartWith'")).toEqual([2, 4]);
    expect(ids("Kind eq Controller.Kind'Equal'")).toEqual([1, 3]);
    expect(ids("Kind in ('Equal')")).toEqual([1, 3]);
  });
  it('rejects a value that is not a member', async () => {
    expect(error("Kind eq 'Prefix'")).toMatch(/'Prefix' is not a valid Kind; expected one of Equal, StartWith in \$filter at position 8/);
  });
});

describe('$filter type checking against the model', () => {
  it('rejects string functions on numbers and comparisons across types', async () => {
    expect(error("contains(Id,'1')")).toMatch(/Argument 1 of 'contains' must be string but is int in \$filter at position 9/);
    expect(error("Time gt 'abc'")).toMatch(/Cannot compare date-time with string in \$filter at position 8/);
    expect(error("Name add 1 eq 'x'")).toMatch(/needs numbers/);
    expect(error('Duration')).toMatch(/must be a boolean expression/);
  });
  it('names unknown and wrong-case properties with their position', async () => {
    expect(error('Id eq 1 and Foo eq 2')).toBe("Unknown property 'Foo' in $filter at position 12");
    expect(error('duration eq 1')).toMatch(/did you mean 'Duration'\?/);
  });
  it('rejects unsupported functions, wrong arity and GUIDs', async () => {
    expect(error('round(Price) eq 1')).toMatch(/Function 'round' is not supported in \$filter at position 0/);
    expect(error("contains(Name)")).toMatch(/takes 2 arguments/);
    expect(error('Id eq 01234567-89ab-cdef-0123-456789abcdef')).toMatch(/GUID/);
  });
});

describe('collection query', () => {
  const run = (q: Record<string, string>, pageSize?: number) => queryCollection(store, model, parseQueryOptions(q), { pageSize });
  it('orders by several keys and always ends with the key', async () => {
    expect((await run({ $orderby: 'Kind desc,Duration' })).rows.map((r) => r.Id)).toEqual([2, 4, 1, 3]);
  });
  it('pages through every row with $skiptoken, including null sort keys', async () => {
    for (const orderby of ['Duration', 'Duration desc', 'Name desc,Time', 'Paid,Price desc']) {
      const seen: unknown[] = [];
      let token: string | undefined;
      do {
        const page = (await run({ $orderby: orderby, ...(token ? { $skiptoken: token } : {}) }, 1));
        seen.push(...page.rows.map((r) => r.Id));
        token = page.nextSkiptoken;
      } while (token && seen.length < 10);
      const all = (await run({ $orderby: orderby })).rows.map((r) => r.Id);
      expect(seen).toEqual(all);
    }
  });
  it('rejects a forged or foreign $skiptoken', async () => {
    const token = (await run({ $orderby: 'Duration' }, 1)).nextSkiptoken!;
    await expect(run({ $orderby: 'Name', $skiptoken: token })).rejects.toThrow(/Invalid \$skiptoken/);
    await expect(run({ $skiptoken: 'not-a-token' })).rejects.toThrow(/Invalid \$skiptoken/);
    const forged = Buffer.from(JSON.stringify({ o: 'Id+', v: ['1 OR 1=1'] })).toString('base64url');
    await expect(run({ $skiptoken: forged })).rejects.toThrow(/Invalid \$skiptoken/);
  });
  it('counts the filtered set', async () => {
    expect((await run({ $filter: 'Duration gt 1', $count: 'true', $top: '1' })).count).toBe(3);
  });
});
