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

const HOUR = 3_600_000;
const BUCKET = 900_000;
/** call_counts' outcome for a call without one (migration 015). */
const NO_STATUS = -2147483649;

/**
 * The summaries of calls bulk loaded on SQLite with their insert triggers dropped (`npm run seed`), counted as the
 * rows go by instead of by GROUP BY scans of the whole table afterwards: `write` adds to `call_id_ranges`,
 * `call_counts` and `call_totals` exactly what the triggers would have added. Calls come in id order from `firstId`
 * (SQLite's next rowid) with whole-millisecond times; a run of calls in the same hour or 15-minute bucket is held
 * until it ends, so memory follows the calls between two writes, not the size of the load.
 */
export class CallSummaryTally {
  private nextId: number;
  private hour = Number.NaN;
  private hourFirstId = 0;
  private bucket = Number.NaN;
  /** The open bucket's calls: interviewer → outcome → n. */
  private open = new Map<number, Map<number, number>>();
  private ranges: number[][] = [];
  private counts: number[][] = [];
  private totals: number[][] = [];

  constructor(firstId: number) {
    this.nextId = firstId;
  }

  /** Counts the next call (id `firstId`, then `firstId + 1`, …). */
  add(time: number, interviewerId: number | null, status: number | null): void {
    const id = this.nextId++;
    const hour = Math.floor(time / HOUR);
    if (hour !== this.hour) {
      this.closeHour(id - 1);
      this.hour = hour;
      this.hourFirstId = id;
    }
    if (interviewerId === null) return;
    const bucket = Math.trunc(time / BUCKET); // SQLite's integer division
    if (bucket !== this.bucket) {
      this.closeBucket();
      this.bucket = bucket;
    }
    let byStatus = this.open.get(interviewerId);
    if (!byStatus) this.open.set(interviewerId, (byStatus = new Map()));
    const s = status ?? NO_STATUS;
    byStatus.set(s, (byStatus.get(s) ?? 0) + 1);
  }

  /** Adds the finished runs (every run, with `end`) to the summaries, in the caller's transaction. */
  async write(q: Queryable, end = false): Promise<void> {
    if (end) {
      this.closeHour(this.nextId - 1);
      this.hour = Number.NaN;
      this.closeBucket();
    }
    // Each run is merged as the triggers merge one call: bounds widened, counts added.
    await q.run(`INSERT INTO call_id_ranges (hour, min_id, max_id) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
      ON CONFLICT (hour) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id)`, [JSON.stringify(this.ranges)]);
    await q.run(`INSERT INTO call_counts (interviewer_id, extended_status, bucket, n) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) WHERE true
      ON CONFLICT DO UPDATE SET n = n + excluded.n`, [JSON.stringify(this.counts)]);
    await q.run(`INSERT INTO call_totals (interviewer_id, bucket, n) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
      ON CONFLICT DO UPDATE SET n = n + excluded.n`, [JSON.stringify(this.totals)]);
    this.ranges = [];
    this.counts = [];
    this.totals = [];
  }

  private closeHour(lastId: number): void {
    if (!Number.isNaN(this.hour)) this.ranges.push([this.hour, this.hourFirstId, lastId]);
  }

  private closeBucket(): void {
    for (const [interviewer, byStatus] of this.open) {
      let n = 0;
      for (const [status, k] of byStatus) {
        this.counts.push([interviewer, status, this.bucket, k]);
        n += k;
      }
      this.totals.push([interviewer, this.bucket, n]);
    }
    this.open = new Map();
  }
}
