import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.ts';
import type { EntryKind } from './entries.ts';

const BATCH = 500;

function insertSql(kind: EntryKind, rows: number): string {
  const table = kind === 'emails' ? 'optout_emails (list_id, email_address, timestamp)' : 'optout_domains (list_id, domain, timestamp)';
  return `INSERT OR IGNORE INTO ${table} VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}`;
}

/**
 * Writes normalised values into a list in ONE immediate transaction (all or nothing) with multi-row
 * INSERT OR IGNORE (the unique index drops duplicates, whether already stored or repeated in the file).
 * Sorted input keeps the index inserts sequential. Returns how many rows were new. Runs on the import
 * worker's own connection, so the main thread never waits for it; other writers wait on busy_timeout.
 */
export function writeEntries(db: Db, kind: EntryKind, listId: number, values: readonly string[]): number {
  const now = Date.now();
  const full = db.prepare(insertSql(kind, BATCH));
  const one = db.prepare(insertSql(kind, 1));
  const exists = db.prepare('SELECT 1 FROM optout_lists WHERE id = ?').pluck();
  return db.transaction(() => {
    if (!exists.get(listId)) throw Object.assign(new Error('The opt-out list no longer exists'), { code: 'LIST_GONE' });
    let added = 0;
    const params: unknown[] = new Array(BATCH * 3);
    let i = 0;
    for (; i + BATCH <= values.length; i += BATCH) {
      for (let j = 0; j < BATCH; j++) {
        params[j * 3] = listId;
        params[j * 3 + 1] = values[i + j];
        params[j * 3 + 2] = now;
      }
      added += (full as Statement<unknown[]>).run(...params).changes;
    }
    for (; i < values.length; i++) added += one.run(listId, values[i], now).changes;
    return added;
  }).immediate();
}
