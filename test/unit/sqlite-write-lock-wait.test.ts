/**
 * Load shedding (docs/deployment.md#reliability): while another connection (an import's write worker, the CLI) holds
 * SQLite's write lock, a transaction of the server's connection waits for it on timers, not in SQLite's busy handler:
 * the event loop stays free and reads go on; the transaction runs once the lock is released, or fails SQLITE_BUSY
 * (→ 429) after the busy timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';

let dir: string;
let store: SqliteStore;
let holder: Db;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sqlite-lock-wait-'));
  store = new SqliteStore(openDatabase(join(dir, 'cati.sqlite'), { busyTimeoutMs: 3000 }), join(dir, 'cati.sqlite'));
  await store.exec('CREATE TABLE t (v INTEGER)');
  holder = openDatabase(join(dir, 'cati.sqlite'), { migrate: false });
});
afterAll(async () => {
  holder.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a transaction waiting for the write lock', () => {
  it('leaves the event loop free and reads going, then runs when the lock is released', async () => {
    holder.exec('BEGIN IMMEDIATE');
    const t0 = Date.now();
    const write = store.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (1)'));
    const timerAt = await sleep(20).then(() => Date.now() - t0);
    expect(timerAt).toBeLessThan(500); // before: blocked inside SQLite until the lock or the busy timeout
    expect(await store.value('SELECT count(*) FROM t')).toBe(0); // reads are served meanwhile
    holder.exec('COMMIT');
    await write;
    expect(await store.value('SELECT count(*) FROM t')).toBe(1);
    expect(Number(store.db.pragma('busy_timeout', { simple: true }))).toBe(3000); // restored after each attempt
  });

  it('fails with SQLITE_BUSY after the busy timeout, and the next transaction runs', async () => {
    holder.exec('BEGIN IMMEDIATE');
    const t0 = Date.now();
    try {
      await expect(store.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (2)'))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    } finally {
      holder.exec('ROLLBACK');
    }
    await store.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (3)'));
    expect(await store.column('SELECT v FROM t ORDER BY v')).toEqual([1, 3]);
  });
});
