/**
 * Named prepared statements on PostgreSQL (server/db/pg-statements.ts): a statement with parameters is prepared
 * once per connection, a connection holds at most a bounded number of them (the least recently used is
 * deallocated), and a statement whose table changed under it is prepared again. Runs in the `postgres` project.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../server/db/pg-store.ts';
import { STATEMENTS_PER_CONNECTION } from '../../server/db/pg-statements.ts';
import { testEngine } from '../helpers/engine.ts';
import { freshPgDatabase } from '../helpers/postgres.ts';

describe.skipIf(testEngine() !== 'postgres')('named prepared statements on PostgreSQL', () => {
  let store: PgStore;
  beforeAll(async () => {
    store = await PgStore.open(await freshPgDatabase(), { max: 1 }); // one connection: every statement meets the same cache
  });
  afterAll(async () => {
    await store?.close();
  });

  const prepared = async () => (await store.all<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements WHERE ? = 1', [1]));

  it('prepares a statement with parameters once and runs it by name afterwards', async () => {
    for (let i = 0; i < 3; i++) expect(await store.value('SELECT ? + 1 AS v', [i])).toBe(i + 1);
    const mine = (await prepared()).filter((p) => p.statement.includes('$1 + 1'));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.name).toMatch(/^q[0-9a-f]{16}_[0-9a-z]+$/);
    // Inside a transaction too, on the transaction's connection.
    await store.transaction(async (tx) => expect(await tx.value('SELECT ? + 1 AS v', [41])).toBe(42));
    expect((await prepared()).filter((p) => p.statement.includes('$1 + 1'))).toHaveLength(1);
  });

  it(`keeps at most ${STATEMENTS_PER_CONNECTION} statements per connection, the least recently used leaving first`, async () => {
    for (let i = 0; i < STATEMENTS_PER_CONNECTION + 50; i++) expect(await store.value(`SELECT ? * ${i} AS v`, [2])).toBe(2 * i);
    const names = await prepared();
    expect(names.length).toBeLessThanOrEqual(STATEMENTS_PER_CONNECTION + 1); // + the DEALLOCATE not yet run
    expect(names.some((p) => p.statement.includes(`$1 * ${STATEMENTS_PER_CONNECTION + 49} `))).toBe(true);
    expect(names.some((p) => p.statement.includes('$1 * 0 '))).toBe(false);
    // A text that left comes back under a new name and works.
    expect(await store.value('SELECT ? * 0 AS v', [2])).toBe(0);
  });

  it('a table changed under a prepared statement is read with its new shape', async () => {
    await store.exec('CREATE TABLE shape (id INTEGER PRIMARY KEY, a TEXT)');
    await store.run('INSERT INTO shape (id, a) VALUES (?, ?)', [1, 'x']);
    expect(await store.get('SELECT * FROM shape WHERE id = ?', [1])).toEqual({ id: 1, a: 'x' });
    await store.exec("ALTER TABLE shape ADD COLUMN b TEXT DEFAULT 'y'");
    expect(await store.get('SELECT * FROM shape WHERE id = ?', [1])).toEqual({ id: 1, a: 'x', b: 'y' });
  });

  it('a failed statement leaves the connection usable and its statement runnable', async () => {
    await expect(store.value('SELECT 1 / ?::int', [0])).rejects.toThrow(/division by zero/);
    expect(await store.value('SELECT 1 / ?::int', [1])).toBe(1);
    await expect(store.value('SELEC ?', [1])).rejects.toThrow(/syntax/);
    await expect(store.value('SELEC ?', [1])).rejects.toThrow(/syntax/);
  });
});
