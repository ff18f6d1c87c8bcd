import { createHash } from 'node:crypto';
import { SqliteStore } from '../db/sqlite-store.ts';
import type { Params, Store } from '../db/store.ts';

/** SHA-256 hex digest of a key or token: the only form in which they are stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** PostgreSQL's lock_not_available (lock_timeout passed). */
const PG_LOCK_NOT_AVAILABLE = '55P03';

/**
 * Runs a small bookkeeping write (a "last used" stamp) without waiting for a lock: while another connection
 * holds SQLite's write lock (a bulk import) or a PostgreSQL transaction holds the row, the write is skipped
 * instead of making the request wait. Answers whether it wrote; a skipped stamp is tried again on next use.
 *
 * On SQLite the busy timeout is lowered around the statement synchronously, on the store's own connection, so
 * no other request's statement runs with it; while a transaction is open there the stamp is skipped too.
 */
export async function writeIfIdle(store: Store, sql: string, params: Params): Promise<boolean> {
  if (store instanceof SqliteStore) {
    const db = store.db;
    if (db.inTransaction) return false;
    const timeout = db.pragma('busy_timeout', { simple: true }) as number;
    db.pragma('busy_timeout = 0');
    try {
      db.prepare(sql).run(...params);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      return false;
    } finally {
      db.pragma(`busy_timeout = ${Math.trunc(timeout)}`);
    }
  }
  try {
    await store.transaction(async (tx) => {
      await tx.exec("SET LOCAL lock_timeout = '100ms'");
      await tx.run(sql, params);
    });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== PG_LOCK_NOT_AVAILABLE) throw err;
    return false;
  }
}
