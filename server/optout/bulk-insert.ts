import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Queryable } from '../db/store.ts';

/** Parameters one statement binds at most (SQLite allows 32766, PostgreSQL 65535). */
const MAX_PARAMS = 30_000;
/** Rows one statement inserts at most. */
const MAX_ROWS = 5_000;

/**
 * Inserts `rows` (each in `columns` order) into `table` within the caller's transaction `tx`, in multi-row
 * `INSERT … ON CONFLICT DO NOTHING` statements of a few thousand rows, yielding to the event loop between
 * statements; `beforeChunk` runs before each statement (a deadline check may throw there, which rolls the
 * caller's transaction back). Answers the rows inserted (conflicting ones, stored before or repeated in
 * `rows`, are skipped). Portable SQL on both engines; table and column names come from code, never input.
 * The one place to swap for the COPY-based bulk insert of server/db/bulk.ts.
 */
export async function insertIgnoringConflicts(
  tx: Queryable,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
  beforeChunk: () => void = () => {},
): Promise<number> {
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / columns.length)));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  const sqlFor = (n: number) => `${head}${Array<string>(n).fill(tuple).join(', ')} ON CONFLICT DO NOTHING`;
  const full = sqlFor(perStatement);
  let inserted = 0;
  let params: unknown[] = [];
  let count = 0;
  const flush = async () => {
    beforeChunk();
    inserted += (await tx.run(count === perStatement ? full : sqlFor(count), params)).changes;
    params = [];
    count = 0;
    await yieldToLoop();
  };
  for (const row of rows) {
    for (const v of row) params.push(v);
    if (++count === perStatement) await flush();
  }
  if (count > 0) await flush();
  return inserted;
}
