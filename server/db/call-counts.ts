/**
 * Bulk loads of calls (the demo, `npm run seed`) and the summaries `call_counts` and `call_totals` (migration 015):
 * their insert trigger costs one upsert per call, so on SQLite a bulk load drops it, inserts, rebuilds the summary with
 * one GROUP BY and puts the trigger back — all inside the caller's transaction, so no reader ever sees the summary out of
 * step. On PostgreSQL the triggers stay and keep the summaries as the rows arrive.
 */
import type { Queryable } from './store.ts';

/** Runs `insert` (inside a transaction the caller holds, `tx`) without SQLite's per-call trigger, then rebuilds the summary. */
export async function bulkInsertCalls<T>(tx: Queryable, insert: () => Promise<T>): Promise<T> {
  if (!tx.inTransaction) throw new Error('bulkInsertCalls needs a transaction');
  if (tx.engine !== 'sqlite') return insert();
  const trigger = await tx.value<string>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'calls_count_insert'");
  if (!trigger) return insert();
  await tx.exec('DROP TRIGGER calls_count_insert');
  const result = await insert();
  await rebuildCallCounts(tx);
  await tx.exec(trigger);
  return result;
}

/** Recomputes the summaries `call_counts` and `call_totals` from the calls (after a bulk load without the trigger). */
export async function rebuildCallCounts(q: Queryable): Promise<void> {
  // Grouped in each summary's key order, so the rows are appended, not inserted all over the B-tree.
  await q.exec(`DELETE FROM call_counts;
    DELETE FROM call_totals;
    INSERT INTO call_counts (interviewer_id, extended_status, bucket, n)
      SELECT interviewer_id, COALESCE(extended_status, -2147483649), time / 900000, COUNT(*)
      FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3;
    INSERT INTO call_totals (interviewer_id, bucket, n)
      SELECT interviewer_id, bucket, SUM(n) FROM call_counts GROUP BY 1, 2;`);
}
