/**
 * What only the PostgreSQL engine has (server/db/pg-*.ts, open-store.ts): placeholder numbering, the schema
 * twin of SQLite's, concurrent migration, connection loss and reconnection on a cluster of its own, and the
 * engine chosen by `--database`. The Store contract both engines share is in store-contract.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { insertMany } from '../../server/db/bulk.ts';
import { listMigrations } from '../../server/db/open.ts';
import { openStore } from '../../server/db/open-store.ts';
import { numberPlaceholders } from '../../server/db/pg-sql.ts';
import { PgStore } from '../../server/db/pg-store.ts';
import { DatabaseUnavailableError } from '../../server/db/store.ts';
import { createDatabase, freePort, PgCluster, postgresBinDir } from '../helpers/pg-cluster.ts';
import { freshPgDatabase, openTestStore, pgAvailability } from '../helpers/postgres.ts';

const pg = pgAvailability();
if (!pg.available) console.warn(`SKIPPED (PostgreSQL engine tests): ${pg.reason}`);

describe('PostgreSQL placeholders', () => {
  it('numbers ? outside literals, quoted identifiers, dollar quotes and comments', () => {
    expect(numberPlaceholders(`SELECT '?', "a?", ? -- ?\n, $x$ ? $x$, /* ? */ ?, 'it''s ?' || ?`)).toBe(
      `SELECT '?', "a?", $1 -- ?\n, $x$ ? $x$, /* ? */ $2, 'it''s ?' || $3`,
    );
  });
});

/** References PostgreSQL checks with statement-level triggers instead of foreign keys (migration 022). */
const CHECKED_BY_TRIGGER: Record<string, string[]> = {
  calls: ['survey_id → surveys.id', 'call_center_id → call_centers.id'],
  breaks: ['survey_id → surveys.id', 'call_center_id → call_centers.id'],
};

describe.skipIf(!pg.available)('PostgreSQL schema', () => {
  it('matches SQLite table by table: columns in order, integer or text, nullability, binary text order, primary and foreign keys; named indexes (table, unique, columns) and triggers', async () => {
    const [lite, post] = await Promise.all([openTestStore('sqlite'), openTestStore('postgres')]);
    try {
      const tables = await lite.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
      expect(tables).toContain('calls');
      expect(await post.column("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name COLLATE \"C\"")).toEqual(tables);
      for (const table of tables) {
        const liteColumns = (await lite.all<{ name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`)).map((c) => ({
          name: c.name,
          kind: c.type === 'TEXT' ? 'text' : c.type === 'BLOB' ? 'bytes' : 'integer',
          nullable: c.notnull === 0 && c.pk === 0,
        }));
        const pgColumns = (
          await post.all<{ name: string; type: string; nullable: string }>(
            "SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
            [table],
          )
        ).map((c) => ({ name: c.name, kind: c.type === 'text' ? 'text' : c.type === 'bytea' ? 'bytes' : /int/.test(c.type) ? 'integer' : c.type, nullable: c.nullable === 'YES' }));
        expect(pgColumns, table).toEqual(liteColumns);
        // Text compares and sorts by code point, as SQLite's BINARY, whatever the database's locale.
        const collations = await post.column(
          "SELECT DISTINCT collation_name FROM information_schema.columns WHERE table_name = ? AND data_type = 'text' AND table_name <> 'schema_migrations'",
          [table],
        );
        expect(collations.filter((c) => c !== 'C'), table).toEqual([]);
      }
      const liteIndexes = await lite.column<string>("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name");
      const pgIndexes = await post.column<string>("SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname COLLATE \"C\"");
      expect(pgIndexes).toEqual(expect.arrayContaining(liteIndexes));
      // Keys: the primary key's columns in order, and every foreign key (column → table.column), table by table.
      for (const table of tables) {
        const litePk = (await lite.all<{ name: string; pk: number }>(`PRAGMA table_info(${table})`)).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
        const pgPk = await post.column<string>(
          `SELECT a.attname FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
           WHERE i.indrelid = CAST(? AS regclass) AND i.indisprimary ORDER BY k.n`,
          [table],
        );
        expect(pgPk, `${table} primary key`).toEqual(litePk);
        const liteFks = (await lite.all<{ from: string; table: string; to: string | null }>(`PRAGMA foreign_key_list(${table})`))
          .map((f) => `${f.from} → ${f.table}.${f.to ?? 'id'}`)
          .sort();
        const pgFks = (
          await post.column<string>(
            `SELECT a.attname || ' → ' || rt.relname || '.' || ra.attname
               FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k(col, refcol)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col
               JOIN pg_class rt ON rt.oid = c.confrelid
               JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = k.refcol
             WHERE c.contype = 'f' AND c.conrelid = CAST(? AS regclass)`,
            [table],
          )
        ).sort();
        expect([...pgFks, ...(CHECKED_BY_TRIGGER[table] ?? [])].sort(), `${table} foreign keys`).toEqual(liteFks);
      }
      // Each named SQLite index: on PostgreSQL the same table, uniqueness and column list (expression indexes by name only).
      for (const index of liteIndexes) {
        const info = (await lite.get<{ tbl_name: string; sql: string }>("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'index' AND name = ?", [index]))!;
        const columns = await lite.all<{ name: string | null }>(`PRAGMA index_info(${index})`);
        const pgIndex = (await post.get<{ tablename: string; indexdef: string }>("SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname = ?", [index]))!;
        expect(pgIndex.tablename, index).toBe(info.tbl_name);
        expect(/^CREATE UNIQUE/i.test(pgIndex.indexdef), `${index} unique`).toBe(/^CREATE UNIQUE/i.test(info.sql));
        if (columns.some((c) => c.name === null)) continue;
        const pgColumns = await post.column<string>(
          `SELECT a.attname FROM pg_class ic JOIN pg_index i ON i.indexrelid = ic.oid CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
           WHERE ic.relname = ? ORDER BY k.n`,
          [index],
        );
        expect(pgColumns, `${index} columns`).toEqual(columns.map((c) => c.name));
      }
      const liteTriggers = await lite.column<string>("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name");
      const pgTriggers = await post.column<string>('SELECT DISTINCT trigger_name FROM information_schema.triggers');
      expect(pgTriggers).toEqual(expect.arrayContaining(liteTriggers));
    } finally {
      await lite.close();
      await post.close();
    }
  });

  it('holds the references of calls and breaks as foreign keys did: inserts (COPY too) and updates name existing rows, referenced rows stay', async () => {
    const store = await openTestStore('postgres');
    onTestFinished(() => store.close());
    await store.exec(`INSERT INTO surveys (id, name) VALUES ('p1', 'One'), ('p2', 'Two'); INSERT INTO call_centers (id, name) VALUES (2, 'Two')`);
    const call = (survey: string, center: number) => [1, survey, null, null, '31200000000', null, 0, 0, center];
    const columns = ['time', 'survey_id', 'interview_id', 'interviewer_id', 'telephone_number', 'extended_status', 'duration', 'waiting_time', 'call_center_id'];
    const violation = { code: '23503' };
    const copy = (rows: unknown[][]) => store.transaction((tx) => insertMany(tx, 'calls', columns, rows));
    expect(await copy([call('p1', 1), call('p2', 2), call('p1', 2)])).toBe(3);
    await expect(copy([call('p1', 1), call('p9', 1)])).rejects.toMatchObject(violation);
    await expect(copy([call('p1', 9)])).rejects.toMatchObject(violation);
    await expect(store.run("INSERT INTO breaks (time, survey_id, duration, interviewer_id, call_center_id, break_type_id, break_type_name) VALUES (1, 'p9', 0, 1, 1, 1, 'x')")).rejects.toMatchObject(violation);
    await store.run("INSERT INTO breaks (time, survey_id, duration, interviewer_id, call_center_id, break_type_id, break_type_name) VALUES (1, NULL, 0, 1, 2, 1, 'x')");
    expect(await store.value('SELECT count(*)::int FROM calls')).toBe(3); // the refused statements stored nothing
    await expect(store.run("UPDATE calls SET survey_id = 'p9' WHERE survey_id = 'p2'")).rejects.toMatchObject(violation);
    await expect(store.run('UPDATE breaks SET call_center_id = 9')).rejects.toMatchObject(violation);
    expect(await store.run("UPDATE calls SET survey_id = 'p2' WHERE survey_id = 'p1'")).toEqual({ changes: 2 });
    await expect(store.run("DELETE FROM surveys WHERE id = 'p2'")).rejects.toMatchObject(violation);
    await expect(store.run('UPDATE call_centers SET id = 7 WHERE id = 2')).rejects.toMatchObject(violation);
    await expect(store.run('DELETE FROM call_centers WHERE id = 2')).rejects.toMatchObject(violation);
    expect(await store.run("DELETE FROM surveys WHERE id = 'p1'")).toEqual({ changes: 1 }); // no history names it any more
    expect(await store.run("UPDATE surveys SET name = 'Second' WHERE id = 'p2'")).toEqual({ changes: 1 });
  });

  it('lets no survey go while an insert naming it is uncommitted: the delete waits, then fails', async () => {
    const store = await openTestStore('postgres');
    onTestFinished(() => store.close());
    await store.exec(`INSERT INTO surveys (id, name) VALUES ('p1', 'One')`);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
    const insert = store.transaction(async (tx) => {
      await tx.run("INSERT INTO calls (time, survey_id, telephone_number, call_center_id) VALUES (1, 'p1', '312', 1)");
      inserted();
      await held;
    });
    await insertedNow;
    let settled = false;
    const remove = store.run("DELETE FROM surveys WHERE id = 'p1'").finally(() => (settled = true));
    remove.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false); // blocked by the insert's FOR KEY SHARE lock
    release();
    await insert;
    await expect(remove).rejects.toMatchObject({ code: '23503' });
    expect(await store.value("SELECT count(*)::int FROM surveys WHERE id = 'p1'")).toBe(1);
  });

  it('lets two servers migrate a new database at the same time: each migration applied once', async () => {
    const url = await freshPgDatabase();
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url), PgStore.open(url)]);
    try {
      expect(await stores[0]!.column('SELECT id FROM schema_migrations ORDER BY id')).toEqual(listMigrations().map((m) => m.id));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

// A cluster of its own: stopping the run's shared one would break the other test files.
describe.skipIf(!pg.available || !postgresBinDir())('PostgreSQL connection loss', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await PgCluster.create();
  }, 120_000);
  afterAll(() => cluster?.remove());

  it('refuses to open an unreachable server with one line naming host:port, never the password', async () => {
    const port = await freePort();
    const err = (await PgStore.open(`postgres://cati:s3cret@127.0.0.1:${port}/nowhere`).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).not.toMatch(/s3cret|\n/);
  });

  it('fails statements with DatabaseUnavailableError while the server is down, and works again after a restart', async () => {
    const url = await createDatabase(cluster.url());
    const store = await PgStore.open(url.replace('cati@', 'cati:pw@'));
    expect(store.description).not.toContain('pw');
    try {
      await store.exec('CREATE TABLE t (n INTEGER)');
      await expect(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO t VALUES (1)');
          cluster.stop(); // the connection breaks in the middle of the transaction
          await tx.run('INSERT INTO t VALUES (2)');
        }),
      ).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(store.value('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
      const reading = async () => {
        for await (const _ of store.chunks('SELECT n FROM t', [], 10)) return;
      };
      await expect(reading()).rejects.toBeInstanceOf(DatabaseUnavailableError);
      cluster.start();
      expect(await store.value('SELECT count(*) FROM t')).toBe(0); // nothing half-written
      await store.transaction((tx) => tx.run('INSERT INTO t VALUES (3)'));
      // Connections cut under a running server (a fail-over, an administrator): the next statement still works.
      const admin = new PgStore(cluster.url());
      await admin.value('SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = ?', [new URL(url).pathname.slice(1)]);
      await admin.close();
      // A statement that met a cut connection is refused as unavailable (a 503); the one after it reconnects.
      const first = await store.value('SELECT sum(n) FROM t').catch((e: unknown) => e);
      if (first !== 3) expect(first).toBeInstanceOf(DatabaseUnavailableError);
      expect(await store.value('SELECT sum(n) FROM t')).toBe(3);
    } finally {
      await store.close();
    }
  });
});

describe('openStore', () => {
  it('opens SQLite by default, for sqlite: and sqlite:PATH, PostgreSQL for postgres:// URLs, and refuses other schemes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cati-open-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const byDefault = await openStore(undefined, dir);
    expect([byDefault.engine, byDefault.description]).toEqual(['sqlite', `sqlite:${join(dir, 'cati.sqlite')}`]);
    await byDefault.close();
    const named = await openStore(`sqlite:${join(dir, 'other.sqlite')}`, dir);
    expect(named.description).toBe(`sqlite:${join(dir, 'other.sqlite')}`);
    await named.close();
    await expect(openStore('mysql://root:pw@db/x', dir)).rejects.toThrow(/scheme 'mysql:'/);
    await expect(openStore('mysql://root:pw@db/x', dir)).rejects.not.toThrow(/pw/);
    if (!pg.available) return;
    const url = new URL(await freshPgDatabase());
    url.password = 'hidden';
    const store = await openStore(url.toString().replace(/^postgres:/, 'postgresql:'), dir);
    expect(store.engine).toBe('postgres');
    expect(store.description).not.toContain('hidden');
    await store.close();
  });
});

