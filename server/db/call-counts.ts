/**
 * Bulk loads of calls (the demo, `npm run seed`) and the summaries `call_counts` and `call_totals` (migration 015):
 * their insert trigger costs one upsert per call, so a bulk load drops it, inserts, rebuilds the summary with one GROUP BY and
 * puts the trigger back — all inside the caller's transaction, so no reader ever sees the summary out of step.
 */
import type { Db } from './open.ts';

/** Runs `insert` (inside a transaction the caller holds) without the per-call trigger, then rebuilds the summary. */
export function bulkInsertCalls<T>(db: Db, insert: () => T): T {
  if (!db.inTransaction) throw new Error('bulkInsertCalls needs a transaction');
  const trigger = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'calls_count_insert'").pluck().get() as string | undefined;
  if (!trigger) return insert();
  db.exec('DROP TRIGGER calls_count_insert');
  const result = insert();
  rebuildCallCounts(db);
  db.exec(trigger);
  return result;
}

/** Recomputes the summaries `call_counts` and `call_totals` from the calls (after a bulk load without the trigger). */
export function rebuildCallCounts(db: Db): void {
  // Grouped in each summary's key order, so the rows are appended, not inserted all over the B-tree.
  db.exec(`DELETE FROM call_counts;
    DELETE FROM call_totals;
    INSERT INTO call_counts (interviewer_id, extended_status, bucket, n)
      SELECT interviewer_id, COALESCE(extended_status, -2147483649), time / 900000, COUNT(*)
      FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3;
    INSERT INTO call_totals (interviewer_id, bucket, n)
      SELECT interviewer_id, bucket, SUM(n) FROM call_counts GROUP BY 1, 2;`);
}
