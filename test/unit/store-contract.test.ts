/**
 * The Store contract (server/db/store.ts, docs/deployment.md#postgresql), run against both engines: a SQLite file and a fresh
 * database on the run's real PostgreSQL cluster (test/helpers/postgres.ts). The same cases, the same expected
 * answers — services must not be able to tell the engines apart.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertMany, insertNewReturningIds, insertReturningIds } from '../../server/db/bulk.ts';
import { listMigrations } from '../../server/db/open.ts';
import { openJobStore } from '../../server/db/open-store.ts';
import { PG_MIGRATIONS_DIR } from '../../server/db/pg-migrate.ts';
import type { Store } from '../../server/db/store.ts';
import { openTestStore, pgAvailability } from '../helpers/postgres.ts';

const pg = pgAvailability();
if (!pg.available) console.warn(`SKIPPED (PostgreSQL half of the Store contract): ${pg.reason}`);

const engines = [
  { engine: 'sqlite', skip: false },
  { engine: 'postgres', skip: !pg.available },
] as const;

describe('shared schema', () => {
  it('PostgreSQL has a twin of every SQLite migration, same numbers and names', () => {
    expect(listMigrations(PG_MIGRATIONS_DIR).map((m) => m.name)).toEqual(listMigrations().map((m) => m.name));
  });
});

describe.each(engines)('Store contract on $engine', ({ engine, skip }) => {
  let store: Store;
  beforeAll(async () => {
    if (!skip) store = await openTestStore(engine);
  });
  afterAll(async () => {
    await store?.close();
  });
  beforeEach(async (ctx) => {
    if (skip) ctx.skip();
    await store.exec('DROP TABLE IF EXISTS kv; CREATE TABLE kv (k TEXT PRIMARY KEY, n INTEGER NOT NULL, at BIGINT)');
  });

  const put = (k: string, n: number, at: number | null = null) => store.run('INSERT INTO kv (k, n, at) VALUES (?, ?, ?)', [k, n, at]);
  const keys = () => store.column<string>('SELECT k FROM kv ORDER BY k');

  it('reads rows as objects, first rows, first values, columns and arrays; run counts changes', async () => {
    expect(store.engine).toBe(engine);
    expect(await put('a', 1, 1763900000123)).toEqual({ changes: 1 });
    await put('b', 2);
    expect(await store.all('SELECT k, n, at FROM kv ORDER BY k')).toEqual([
      { k: 'a', n: 1, at: 1763900000123 },
      { k: 'b', n: 2, at: null },
    ]);
    expect(await store.get('SELECT k, n FROM kv WHERE k = ?', ['b'])).toEqual({ k: 'b', n: 2 });
    expect(await store.get('SELECT k FROM kv WHERE k = ?', ['zz'])).toBeUndefined();
    expect(await store.value('SELECT n FROM kv WHERE k = ?', ['a'])).toBe(1);
    expect(await store.value('SELECT n FROM kv WHERE k = ?', ['zz'])).toBeUndefined();
    expect(await store.column('SELECT n FROM kv ORDER BY k')).toEqual([1, 2]);
    expect(await store.rows('SELECT k, n FROM kv ORDER BY k')).toEqual([['a', 1], ['b', 2]]);
    expect(await store.run('UPDATE kv SET n = n + 10')).toEqual({ changes: 2 });
    expect(await store.run('DELETE FROM kv WHERE k = ?', ['none'])).toEqual({ changes: 0 });
    expect(await store.value<number>('INSERT INTO kv (k, n) VALUES (?, ?) RETURNING n', ['c', 3])).toBe(3);
  });

  it("opens the same database for a job's process from its connectionUrl", async () => {
    await put('seen', 7);
    const job = await openJobStore(store.connectionUrl());
    try {
      expect(job.engine).toBe(engine);
      expect(await job.value('SELECT n FROM kv WHERE k = ?', ['seen'])).toBe(7);
      await job.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['from-job', 8]);
    } finally {
      await job.close();
    }
    expect(await store.value('SELECT n FROM kv WHERE k = ?', ['from-job'])).toBe(8);
  });

  it('leaves ? in string literals, quoted names and comments alone', async () => {
    await put('a?', 1);
    expect(await store.get(`SELECT k AS "why?", 'x?y' AS lit FROM kv -- is ? here
      WHERE k = ? AND n = ?`, ['a?', 1])).toEqual({ 'why?': 'a?', lit: 'x?y' });
  });

  it('answers aggregates and epoch-ms times with the same JS numbers', async () => {
    await put('a', 1, 1763900000123);
    await put('b', 4, 1763900000999);
    const row = await store.get('SELECT count(*) AS c, sum(n) AS s, max(at) AS m, sum(at) AS total, min(n) * 1.5 AS f FROM kv');
    expect(row).toEqual({ c: 2, s: 5, m: 1763900000999, total: 3527800001122, f: 1.5 });
    expect(typeof row!.m).toBe('number');
    // JSON comes back as text on both (SQLite's JSON functions return text).
    expect(await store.value(store.engine === 'postgres' ? "SELECT json_build_array(1, 'a')" : "SELECT json_array(1, 'a')")).toMatch(/^\[1, ?"a"\]$/);
  });

  it('sorts text by code point and NULLs lowest, as SQLite does', async () => {
    const names = ['b', 'B', 'a', 'é', '_', 'Z', 'ä'];
    for (const [i, name] of names.entries()) await store.run('INSERT INTO interviewers (name, location) VALUES (?, ?)', [name, i % 2 ? null : `L${i}`]);
    expect(await store.column('SELECT name FROM interviewers ORDER BY name')).toEqual(['B', 'Z', '_', 'a', 'b', 'ä', 'é']);
    expect(await store.column(`SELECT location FROM interviewers ORDER BY ${store.dialect.orderTerm('location', false)}, name`)).toEqual([null, null, null, 'L0', 'L2', 'L4', 'L6']);
    expect(await store.column(`SELECT location FROM interviewers ORDER BY ${store.dialect.orderTerm('location', true)}, name`)).toEqual(['L6', 'L4', 'L2', 'L0', null, null, null]);
    expect(await store.value("SELECT count(*) FROM interviewers WHERE name > 'Z' AND name < 'a'")).toBe(1);
    await store.run('DELETE FROM interviewers');
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    const out = await store.transaction(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['a', 1]);
      return 'done';
    });
    expect(out).toBe('done');
    await expect(
      store.transaction(async (tx) => {
        await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['b', 2]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await keys()).toEqual(['a']);
    expect(store.inTransaction).toBe(false);
  });

  it('turns a nested transaction into a savepoint: its rollback keeps the outer work', async () => {
    await store.transaction(async (tx) => {
      await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['outer', 1]);
      await expect(
        store.transaction(async (inner) => {
          await inner.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['inner', 2]);
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await store.transaction((inner) => inner.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['kept', 3]));
    });
    expect(await keys()).toEqual(['kept', 'outer']);
  });

  it("runs a store-level statement from inside a transaction's async context in that transaction", async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['a', 1]);
        await new Promise((resolve) => setTimeout(resolve, 1));
        expect(store.inTransaction).toBe(true);
        expect(await store.value('SELECT count(*) FROM kv')).toBe(1); // sees the transaction's own write
        await store.run('INSERT INTO kv (k, n) VALUES (?, ?)', ['b', 2]);
        throw new Error('undo both');
      }),
    ).rejects.toThrow('undo both');
    expect(await keys()).toEqual([]);
  });

  it('serializes concurrent read-modify-write transactions: no increment is lost', async () => {
    await put('counter', 0);
    const increment = () =>
      store.transaction(async (tx) => {
        const n = (await tx.value<number>('SELECT n FROM kv WHERE k = ?', ['counter']))!;
        await new Promise((resolve) => setTimeout(resolve, 2));
        await tx.run('UPDATE kv SET n = ? WHERE k = ?', [n + 1, 'counter']);
      });
    await Promise.all([increment(), increment(), increment(), increment()]);
    expect(await store.value('SELECT n FROM kv WHERE k = ?', ['counter'])).toBe(4);
  });

  it('streams a large result in chunks and releases the reader when the loop breaks', async () => {
    await store.transaction(async (tx) => {
      await insertMany(tx, 'kv', ['k', 'n'], Array.from({ length: 250 }, (_, i) => [`k${String(i).padStart(3, '0')}`, i]));
    });
    const sizes: number[] = [];
    let last: unknown[] = [];
    for await (const chunk of store.chunks('SELECT k, n FROM kv WHERE n >= ? ORDER BY k', [0], 100)) {
      sizes.push(chunk.length);
      last = chunk[chunk.length - 1]!;
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(last).toEqual(['k249', 249]);
    // More early breaks than the pool has connections: each must give its connection back.
    for (let i = 0; i < 15; i++) {
      for await (const chunk of store.chunks('SELECT k FROM kv ORDER BY k', [], 10)) {
        expect(chunk).toHaveLength(10);
        break;
      }
    }
    expect(await store.value('SELECT count(*) FROM kv')).toBe(250);
    expect(await store.rows('SELECT n % 2 AS odd, count(*) AS c FROM kv GROUP BY n % 2 ORDER BY 1')).toEqual([
      [0, 125],
      [1, 125],
    ]);
  });

  it('inserts many rows with awkward text in the caller transaction, and a rollback removes them all', async () => {
    const text = ['tab\there', 'line\nbreak\r\n', 'back\\slash \\N', 'ünïcødé ✓', '', "quote ' \""];
    const rows = Array.from({ length: 1200 }, (_, i) => [`r${String(i).padStart(4, '0')}`, i, i % 3 ? null : 1763900000000 + i]);
    rows.push(...text.map((t, i) => [t, -i - 1, null]));
    expect(await store.transaction((tx) => insertMany(tx, 'kv', ['k', 'n', 'at'], rows))).toBe(1206);
    expect(await store.all('SELECT k, n FROM kv WHERE n < 0 ORDER BY n DESC')).toEqual(text.map((k, i) => ({ k, n: -i - 1 })));
    expect(await store.get('SELECT k, at FROM kv WHERE n = 3')).toEqual({ k: 'r0003', at: 1763900000003 });
    await expect(
      store.transaction(async (tx) => {
        await insertMany(tx, 'kv', ['k', 'n'], [['new1', 1], ['new2', 2]]);
        await insertMany(tx, 'kv', ['k', 'n'], [['r0001', 1]]); // duplicate key: the whole import fails
      }),
    ).rejects.toThrow();
    expect(await store.value('SELECT count(*) FROM kv')).toBe(1206);
  });

  it('merges an import through a staging table, skipping duplicates', async () => {
    await put('a', 1);
    const merged = await store.transaction(async (tx) => {
      await tx.exec('CREATE TEMP TABLE staging (k TEXT NOT NULL, n INTEGER NOT NULL)');
      await insertMany(tx, 'staging', ['k', 'n'], [['a', 10], ['b', 20], ['c', 30]]);
      const { changes } = await tx.run('INSERT INTO kv (k, n) SELECT k, n FROM staging WHERE true ON CONFLICT (k) DO NOTHING');
      await tx.exec('DROP TABLE staging');
      return changes;
    });
    expect(merged).toBe(2);
    expect(await store.rows('SELECT k, n FROM kv ORDER BY k')).toEqual([['a', 1], ['b', 20], ['c', 30]]);
  });

  it('inserts many rows ignoring conflicts with stored rows and with each other', async () => {
    await put('a', 1);
    const rows = [['a', 10], ['b', 20], ['b', 21], ['c', 30]];
    expect(await store.transaction((tx) => insertMany(tx, 'kv', ['k', 'n'], rows, { ignoreConflicts: true }))).toBe(2);
    expect(await store.rows('SELECT k, n FROM kv ORDER BY k')).toEqual([['a', 1], ['b', 20], ['c', 30]]);
  });

  it('applies every migration once, recorded with the same ids on both engines', async () => {
    const ids = await store.column<number>('SELECT id FROM schema_migrations ORDER BY id');
    expect(ids).toEqual(listMigrations().map((m) => m.id));
  });

  it('continues generated ids above explicitly given ones, as SQLite does', async () => {
    await store.run("INSERT INTO groups (id, name) VALUES (50, 'explicit')");
    expect(await store.value("INSERT INTO groups (name) VALUES ('generated') RETURNING id")).toBe(51);
    await insertMany(store, 'interviewers', ['id', 'name'], [[70, 'iv70'], [71, 'iv71']]);
    expect(await store.value("INSERT INTO interviewers (name) VALUES ('next') RETURNING id")).toBe(72);
  });

  it('answers the new ids in row order, never an id the table held before', async () => {
    const add = (numbers: string[]) => store.transaction((tx) => insertReturningIds(tx, 'blacklist', ['telephone_number', 'type', 'created'], numbers.map((n) => [n, 'Equal', 1])));
    const first = await add(['3110', '3111', '3112']);
    expect(first).toEqual([first[0], first[0]! + 1, first[0]! + 2]);
    expect(await store.rows('SELECT id, telephone_number FROM blacklist WHERE id >= ? ORDER BY id', [first[0]])).toEqual(first.map((id, i) => [id, `311${i}`]));
    await store.run('DELETE FROM blacklist WHERE id = ?', [first[2]]); // the largest: an AUTOINCREMENT id is not given again
    expect(await add(['3113'])).toEqual([first[2]! + 1]);
    await expect(add(['3120', '3110'])).rejects.toThrow(); // a stored number: the whole insert fails
    expect(await store.value("SELECT count(*) FROM blacklist WHERE telephone_number = '3120'")).toBe(0);
    const [next] = await add(['3120']); // PostgreSQL's sequence keeps the ids the failed insert drew
    expect(next).toBeGreaterThan(first[2]! + 1);
  });

  it('hands the new ids to whileInserting once, before the insert resolves; its throw fails the insert', async () => {
    const cols = ['telephone_number', 'type', 'created'];
    const seen: (readonly number[])[] = [];
    const ids = await store.transaction(async (tx) => {
      const out = await insertReturningIds(tx, 'blacklist', cols, [['3160', 'Equal', 1], ['3161', 'Equal', 1]], (given) => void seen.push([...given]));
      expect(seen).toEqual([out]); // already when the insert resolves, even with rows so few the database answers at once
      return out;
    });
    expect(seen).toEqual([ids]);
    const failing = store.transaction((tx) =>
      insertReturningIds(tx, 'blacklist', cols, [['3162', 'Equal', 1]], () => {
        throw new Error('not now');
      }),
    );
    await expect(failing).rejects.toThrow('not now');
    expect(await store.value("SELECT count(*) FROM blacklist WHERE telephone_number = '3162'")).toBe(0);
  });

  it('inserts only the rows new to the table and to the batch, answering their indexes and ids in order', async () => {
    const cols = ['telephone_number', 'type', 'comment', 'created'];
    const [stored] = await store.transaction((tx) => insertReturningIds(tx, 'blacklist', cols, [['3150', 'Equal', null, 1]]));
    const rows = [
      ['3150', 'Equal', 'stored already', 2],
      ['3151', 'Equal', 'first', 2],
      ['3151', 'Equal', 'a repeat', 2],
      ['3150', 'StartWith', 'another type', 2],
      ['3152', 'Equal', null, 2],
    ];
    const { index, ids } = await store.transaction((tx) => insertNewReturningIds(tx, 'blacklist', cols, rows, ['telephone_number', 'type']));
    expect(index).toEqual([1, 3, 4]);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBeGreaterThan(stored!);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const got = await store.rows('SELECT id, telephone_number, type, comment FROM blacklist WHERE created = 2 ORDER BY id');
    expect(got).toEqual(index.map((i, k) => [ids[k], rows[i]![0], rows[i]![1], rows[i]![2]]));
    expect(await store.transaction((tx) => insertNewReturningIds(tx, 'blacklist', cols, rows, ['telephone_number', 'type']))).toEqual({ index: [], ids: [] });
  });

  it('keeps the call summaries, id ranges and break types by trigger, with identical rows', async () => {
    await store.exec("INSERT INTO surveys (id, name) VALUES ('p1', 'One')");
    const hour = 3_600_000;
    const t0 = 1763900000000 - (1763900000000 % hour);
    for (const [id, time, iv, status] of [[1, t0, 7, 1], [2, t0 + 1000, 7, null], [3, t0 + hour, 7, 1], [4, t0, 8, 2], [5, t0, null, 1]] as const) {
      await store.run(
        'INSERT INTO calls (id, time, survey_id, interviewer_id, telephone_number, extended_status, call_center_id) VALUES (?, ?, ?, ?, ?, ?, 1)',
        [id, time, 'p1', iv, '555', status],
      );
    }
    await store.run('UPDATE calls SET extended_status = 1 WHERE id = 2');
    await store.run('DELETE FROM calls WHERE id = 4');
    await store.run("INSERT INTO breaks (time, interviewer_id, call_center_id, break_type_id, break_type_name) VALUES (?, 7, 1, 3, 'Lunch')", [t0]);
    await store.run("INSERT INTO breaks (time, interviewer_id, call_center_id, break_type_id, break_type_name, is_paid) VALUES (?, 7, 1, 3, 'Renamed', 1)", [t0]);
    const b = t0 / 900_000;
    expect(await store.rows('SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n > 0 ORDER BY 1, 2, 3')).toEqual([
      [7, b, 1, 2],
      [7, b + 4, 1, 1],
    ]);
    expect(await store.rows('SELECT interviewer_id, bucket, n FROM call_totals ORDER BY 1, 2')).toEqual([
      [7, b, 2],
      [7, b + 4, 1],
      [8, b, 0],
    ]);
    expect(await store.rows('SELECT hour, min_id, max_id FROM call_id_ranges ORDER BY 1')).toEqual([
      [t0 / hour, 1, 5],
      [t0 / hour + 1, 3, 3],
    ]);
    expect(await store.rows('SELECT id, name, is_paid FROM break_types')).toEqual([[3, 'Lunch', 0]]);
  });

  it('refuses to change the audit log', async () => {
    await store.run("INSERT INTO audit_log (time, actor, action, entity, changes) VALUES (1, 'cli', 'created', 'groups', '{}')");
    await expect(store.run("UPDATE audit_log SET actor = 'x'")).rejects.toThrow('the audit log is append-only');
    await expect(store.run('DELETE FROM audit_log')).rejects.toThrow('the audit log is append-only');
  });
});
