/**
 * Typed database errors (server/db/database-error.ts): both engines throw a DatabaseError whose `kind` says what
 * went wrong — the engines' codes are read in db/ only — and server/errors.ts answers each kind with one status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../server/db/database-error.ts';
import type { Store } from '../../server/db/store.ts';
import { fromDatabaseError } from '../../server/errors.ts';
import { openTestStore, pgAvailability } from '../helpers/postgres.ts';

const pg = pgAvailability();

for (const engine of ['sqlite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !pg.available)(`DatabaseError on ${engine}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await openTestStore(engine);
      await store.exec('CREATE TABLE t_parent (id INTEGER PRIMARY KEY); CREATE TABLE t_child (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL REFERENCES t_parent (id))');
      await store.run('INSERT INTO t_parent (id) VALUES (1)');
    });
    afterAll(() => store?.close());

    it('a duplicate key is `unique` (409), inside a transaction too', async () => {
      const err = await store.run('INSERT INTO t_parent (id) VALUES (1)').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseError);
      expect(err).toMatchObject({ kind: 'unique' });
      expect(fromDatabaseError(err)?.status).toBe(409);
      const inTx = await store.transaction((tx) => tx.run('INSERT INTO t_parent (id) VALUES (1)')).catch((e: unknown) => e);
      expect(inTx).toMatchObject({ name: 'DatabaseError', kind: 'unique' });
    });

    it('a missing referenced row is `foreignKey` (400)', async () => {
      const err = await store.transaction((tx) => tx.run('INSERT INTO t_child (id, parent) VALUES (1, 99)')).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'DatabaseError', kind: 'foreignKey' });
      expect(fromDatabaseError(err)?.status).toBe(400);
    });

    it('other failures stay what they were', async () => {
      const err = await store.run('INSERT INTO no_such_table (id) VALUES (1)').catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(DatabaseError);
      expect(fromDatabaseError(err)).toBeUndefined();
    });
  });
}

describe('the HTTP answer of each kind', () => {
  it('busy → 429 with Retry-After, full → 507 (this machine) or 503 (the database server), range → 400, exhausted → 503', () => {
    const answer = (kind: DatabaseError['kind'], remote = false) => {
      const e = fromDatabaseError(new DatabaseError(kind, 'x', 'X', remote))!;
      return [e.status, e.headers?.['Retry-After']];
    };
    expect(answer('busy')).toEqual([429, '1']);
    expect(answer('full')).toEqual([507, undefined]);
    expect(answer('full', true)).toEqual([503, '30']);
    expect(answer('range')).toEqual([400, undefined]);
    expect(answer('exhausted', true)).toEqual([503, '30']);
    // An engine's error that did not pass through a store is typed by the same rules.
    expect(fromDatabaseError(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' }))?.status).toBe(429);
    expect(fromDatabaseError(Object.assign(new Error('dup'), { code: '23505' }))?.status).toBe(409);
  });
});
