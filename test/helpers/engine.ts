/**
 * Engine-specific test mechanics, so the API tests run unchanged on SQLite and on PostgreSQL (docs/deployment.md#postgresql):
 * which engine this run uses, skipping what is SQLite-only by nature, injecting a write failure, holding the
 * write lock from another connection, and seeing whether a reader still holds its snapshot.
 */
import { describe, it } from 'vitest';
import { openDatabase } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import type { Params, Queryable, Store } from '../../server/db/store.ts';
import type { TestServer } from './server.ts';

/**
 * The engine the test servers of this run use: `CATI_TEST_DATABASE=postgres` selects PostgreSQL, anything else
 * SQLite. Read from the environment because tests decide what to skip before `beforeAll` starts a server.
 */
export function testEngine(): 'sqlite' | 'postgres' {
  return process.env.CATI_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
}

/** Whether this run's test servers use SQLite. */
export const isSqlite = (): boolean => testEngine() === 'sqlite';

/** `describe` that runs on SQLite only (backups, the database file itself); say why in the name or a comment. */
export const describeSqliteOnly = describe.skipIf(!isSqlite());

/** `it` that runs on SQLite only; say why in the name or a comment. */
export const itSqliteOnly = it.skipIf(!isSqlite());

/** The message of a failure `failInsertsWhen` injects (a response must not leak it). */
export const INJECTED_FAILURE = 'injected test failure';

let injected = 0;

/**
 * Makes every INSERT into `table` whose `column` equals `value` fail inside the database (a trigger), so a test
 * can check that a bulk write is atomic. Resolves with the undo, to await in a `finally`. A persistent trigger
 * on both engines: a TEMP one would miss the other connections SQLite's workers and PostgreSQL's pool use.
 */
export async function failInsertsWhen(store: Queryable, table: string, column: string, value: string | number): Promise<() => Promise<void>> {
  const name = `test_fail_${process.pid}_${++injected}`;
  const literal = typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;
  const when = `NEW.${ident(column)} = ${literal}`;
  if (store.engine === 'sqlite') {
    await store.exec(`CREATE TRIGGER ${name} BEFORE INSERT ON ${ident(table)} WHEN ${when} BEGIN SELECT RAISE(ABORT, '${INJECTED_FAILURE}'); END`);
    return () => store.exec(`DROP TRIGGER IF EXISTS ${name}`);
  }
  await store.exec(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${INJECTED_FAILURE}'; END $$;
    CREATE TRIGGER ${name} BEFORE INSERT ON ${ident(table)} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`);
  return () => store.exec(`DROP TRIGGER IF EXISTS ${name} ON ${ident(table)}; DROP FUNCTION IF EXISTS ${name}()`);
}

/**
 * Holds the write lock on `table` outside every request, until the returned release is awaited: writes to it
 * wait, everything else goes on. SQLite: BEGIN IMMEDIATE on a second connection to the
 * file (the whole database's write lock). PostgreSQL: a transaction of the server's pool holding
 * `LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE` (other requests take other pool connections).
 */
export async function holdWriteLock(t: TestServer, table: string): Promise<() => Promise<void>> {
  const { store } = t.server.ctx;
  if (store.engine === 'sqlite') {
    const other = secondSqliteConnection(t);
    await other.exec('BEGIN IMMEDIATE');
    return async () => {
      await other.exec('COMMIT');
      await other.close();
    };
  }
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockedNow = new Promise<void>((resolve) => (locked = resolve));
  const holding = store.transaction(async (tx) => {
    await tx.exec(`LOCK TABLE ${ident(table)} IN SHARE ROW EXCLUSIVE MODE`);
    locked();
    await released;
  });
  await Promise.race([lockedNow, holding]);
  return async () => {
    release();
    await holding;
  };
}

/**
 * Runs one write the way another process on the same database would (the `keys` CLI, a second server), past
 * everything the server holds in memory. SQLite: a second connection to the file, so the server sees a commit
 * that is not its own. PostgreSQL: a connection of the server's pool — the server keeps nothing per connection
 * there, so a statement that bypasses its services is what another process's write is to it.
 */
export async function writeFromAnotherConnection(t: TestServer, sql: string, params: Params = []): Promise<number> {
  if (t.server.ctx.store.engine !== 'sqlite') return (await t.server.ctx.store.run(sql, params)).changes;
  const other = secondSqliteConnection(t);
  try {
    return (await other.run(sql, params)).changes;
  } finally {
    await other.close();
  }
}

/** A connection of its own to the test server's SQLite file (already migrated by the server). */
const secondSqliteConnection = (t: TestServer) => new SqliteStore(openDatabase(t.server.ctx.store.localFile!, { migrate: false }), t.server.ctx.store.localFile!);

/**
 * Whether some connection other than the asking one still holds a read snapshot open (a streamed export that has
 * not finished). SQLite: a passive WAL checkpoint (never waits) cannot copy every frame back past that reader.
 * PostgreSQL: a client backend of this database still has a snapshot horizon (`backend_xmin`).
 */
export async function readerHoldsSnapshot(store: Store): Promise<boolean> {
  if (store.engine === 'sqlite') {
    const row = await store.get<{ log: number; checkpointed: number }>('PRAGMA wal_checkpoint(PASSIVE)');
    return row!.checkpointed < row!.log;
  }
  const holders = await store.value(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()
    AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL`);
  return Number(holders) > 0;
}

/** A double-quoted identifier (the same on both engines). */
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
